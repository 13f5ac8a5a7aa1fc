import type { TenantDatabase } from '../store/tenant-database.js'
import { loadDefaultVocabulary } from '../tenants/initialise-tenant.js'
import { SkillExtractor } from './skill-extractor.js'
import { labelsOfTenant, labelsOfVocabulary } from './vocabulary-labels.js'

const compiled = new Map<string, { signature: string; extractor: SkillExtractor }>()

/**
 * The extractor of a tenant's vocabulary for a vendor, compiled once per process and again only
 * when the vocabulary changed (its skill count or last update differ).
 */
export async function extractorFor(database: TenantDatabase, vendor: string): Promise<SkillExtractor> {
  const row = await database.one<{ skills: number; updated: Date | null }>(
    'SELECT count(*) AS skills, max(updated_at) AS updated FROM skills WHERE external_vendor = $1',
    [vendor],
  )
  const signature = `${row?.skills}:${row?.updated?.getTime?.() ?? ''}`
  const key = `${database.path}|${vendor}`
  const known = compiled.get(key)
  if (known && known.signature === signature) return known.extractor
  const extractor = SkillExtractor.compile(await labelsOfTenant(database, vendor))
  compiled.set(key, { signature, extractor })
  return extractor
}

let embedded: SkillExtractor | undefined

/** The extractor of the embedded default vocabulary, for work outside any tenant. */
export function defaultExtractor(): SkillExtractor {
  embedded ??= SkillExtractor.compile(labelsOfVocabulary(loadDefaultVocabulary()))
  return embedded
}
