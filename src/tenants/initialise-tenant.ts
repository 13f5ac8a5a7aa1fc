import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import { VocabularyDomainFile } from '../schemas/vocabulary-file.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { importVocabulary } from '../taxonomy/import-vocabulary.js'
import { fixturesDir } from '../util/project-paths.js'

/** The embedded default vocabulary, parsed (and checked) once per process. */
let defaultVocabulary: VocabularyDomainFile[] | undefined

export function loadDefaultVocabulary(): VocabularyDomainFile[] {
  if (defaultVocabulary) return defaultVocabulary
  const dir = fixturesDir('vocabulary', 'default')
  defaultVocabulary = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const parsed = VocabularyDomainFile.safeParse(JSON.parse(readFileSync(join(dir, name), 'utf8')))
      if (!parsed.success) {
        throw errors.internal(
          `embedded vocabulary file ${name} is invalid at ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
        )
      }
      return parsed.data
    })
  return defaultVocabulary
}

/**
 * What every new tenant gets after its schema: the embedded default vocabulary, as vendor_default.
 *
 * This first load records one `vocabulary_imported` change and sends one
 * `ai.vendor.taxonomy.updated.v1`, and no `skill.created` event per skill: a new tenant has no
 * consumer that knew an earlier vocabulary, so 1,200 events would announce nothing but "the
 * vocabulary exists", which the one taxonomy event (pointing at the export) already says. Later
 * imports into an existing tenant do send one skill event per skill that changed.
 */
export async function initialiseTenant(database: TenantDatabase, _settings: TenantSettings): Promise<void> {
  await importVocabulary(database, 'vendor_default', loadDefaultVocabulary(), {
    source: 'default',
    skillEvents: false,
  })
}
