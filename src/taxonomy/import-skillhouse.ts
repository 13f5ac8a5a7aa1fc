import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import { csvCellsToRecord } from '../records/csv-record.js'
import { Skill } from '../schemas/taxonomy.js'
import type { TaxonomyImportSummary } from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { VocabularyDomainFile } from '../schemas/vocabulary-file.js'
import {
  isLanguageAllowedForVendor,
  toVocabLanguage,
  type VocabLanguage,
} from '../schemas/vocabulary-languages.js'
import { withCsvReader } from './csv-table.js'
import {
  importSummary,
  importVocabulary,
  type VocabularyEntities,
  type VocabularyEntrySkill,
  vocabularyEntryOf,
  vocabularyFromDomainFiles,
} from './import-vocabulary.js'
import {
  activateWithTenantUpdate,
  describeIssues,
  eventContextOf,
  requireVendor,
  type TaxonomyTenant,
} from './taxonomy-tenant.js'

/**
 * The skillhouse vocabulary format, for a tenant's custom taxonomy (`taxonomy import PATH…
 * --format skillhouse`). PATH is a file or a folder (read one level deep) holding:
 *
 * - JSON files, one Domain each, with its Subdomains, their Skill Clusters and their Skills: the
 *   format of the embedded default vocabulary (`fixtures/vocabulary/default/*.json`, schema
 *   `VocabularyDomainFile`). A skill has `external_id`, `skill_type`, `names` per vocabulary
 *   language, and optionally `aliases` per language and `description`.
 * - `skills.csv` (any `*.csv`): custom skills without the levels above them, one per row, with a
 *   header row and the columns
 *     external_id       required, 1 to 100 of `[a-zA-Z0-9_-]`
 *     skill_name        required, the en_uk display name
 *     skill_cluster_id  optional, an existing Skill Cluster of the vendor (custom or vocabulary),
 *                       or one of the JSON files imported with it
 *     skill_type        optional: hard_skill (default), soft_skill, language, tool, knowledge,
 *                       certification
 *     description       optional
 *     names.<lang>      optional, the display name in another language
 *     aliases.<lang>    optional, `|`-separated aliases in that language
 *   where <lang> is a vocabulary language (en_uk, en_us, de, fr, nl; es, fr_ca, it, ja, ko, pt_br,
 *   zh_cn, zh_tw, sv, fi, da, no with vendor_a), `en`, or a BCP 47 tag such as `nl-BE`.
 *   Example:
 *     external_id,skill_name,skill_cluster_id,skill_type,names.nl,aliases.en,aliases.nl
 *     acme-forklift,Forklift operation,acme-warehouse,hard_skill,Heftruck besturen,forklift|FLT,heftruck
 *
 * Everything imported is custom (custom=true) in the vendor's taxonomy (default vendor_default).
 * Entities in the files are created or updated; with `--replace`, custom entities of that vendor
 * that the files do not hold are deleted. A skill whose content did not change is left alone, so
 * re-importing the same files changes nothing and sends no event.
 */

export interface SkillhouseVocabulary {
  entities: VocabularyEntities
  files: string[]
  skipped: { path: string; reason: string }[]
  languages: VocabLanguage[]
}

const FIXED_COLUMNS = ['external_id', 'skill_name', 'skill_cluster_id', 'skill_type', 'description']

function listFiles(paths: readonly string[]): {
  files: string[]
  skipped: { path: string; reason: string }[]
} {
  const files: string[] = []
  const skipped: { path: string; reason: string }[] = []
  for (const path of paths) {
    let stats: ReturnType<typeof statSync>
    try {
      stats = statSync(path)
    } catch {
      throw errors.notFound(
        'file or folder',
        path,
        'name vocabulary JSON files, a skills.csv, or a folder of them',
      )
    }
    if (!stats.isDirectory()) {
      files.push(path)
      continue
    }
    for (const name of readdirSync(path).sort()) {
      const file = join(path, name)
      if (!statSync(file).isFile()) continue
      if (/\.(json|csv)$/i.test(name)) files.push(file)
      else skipped.push({ path: file, reason: 'neither a vocabulary JSON file nor a skills CSV' })
    }
  }
  return { files, skipped }
}

function readDomainFile(path: string): VocabularyDomainFile {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw errors.badRequest(`${path} is not valid JSON: ${(error as Error).message}`)
  }
  const parsed = VocabularyDomainFile.safeParse(json)
  if (!parsed.success) {
    throw errors.unprocessable(
      describeIssues(parsed.error.issues.slice(0, 20), 'a vocabulary domain file').map(
        (issue) => `${path}: ${issue}`,
      ),
    )
  }
  return parsed.data
}

/** A `names.<lang>`/`aliases.<lang>` column with its language mapped to the internal value. */
function normaliseColumn(path: string, column: string): string {
  if (FIXED_COLUMNS.includes(column)) return column
  const match = /^(names|aliases)\.(.+)$/.exec(column)
  const language = match ? toVocabLanguage(match[2] as string) : undefined
  if (!match || !language) {
    throw errors.unprocessable(
      `${path}: column '${column}' is not part of the skills CSV; columns: ${FIXED_COLUMNS.join(', ')}, names.<lang>, aliases.<lang> (lang a vocabulary language such as en, nl, de, fr or a BCP 47 tag)`,
    )
  }
  return `${match[1]}.${language}`
}

async function readSkillsCsv(path: string): Promise<VocabularyEntrySkill[]> {
  const table = await withCsvReader(async (reader) => {
    // The header decides which columns are read; each must be one of the format's.
    const names = (await reader.read(path, [])).names
    for (const name of names) normaliseColumn(path, name)
    return reader.read(path, names)
  })
  const columns = table.names.map((name) => normaliseColumn(path, name))
  for (const required of ['external_id', 'skill_name']) {
    if (!columns.includes(required))
      throw errors.unprocessable(`${path}: the header has no '${required}' column`)
  }
  const skills: VocabularyEntrySkill[] = []
  const problems: string[] = []
  for (let row = 0; row < table.rows; row++) {
    const cells: Record<string, string | null> = {}
    table.names.forEach((name, index) => {
      cells[columns[index] as string] = table.column(name)?.[row] ?? null
    })
    const parsed = Skill.safeParse(csvCellsToRecord(cells, Skill))
    if (!parsed.success) {
      const where = `${path} row ${row + 1}${cells.external_id ? ` (external_id '${cells.external_id}')` : ''}`
      problems.push(...describeIssues(parsed.error.issues, 'a skill').map((issue) => `${where}: ${issue}`))
      continue
    }
    skills.push(vocabularyEntryOf(parsed.data))
  }
  if (problems.length) throw errors.unprocessable(problems.slice(0, 20))
  return skills
}

/** Reads skillhouse-format files (JSON domain files and skills CSVs) into one vocabulary. */
export async function readSkillhouseVocabulary(
  paths: readonly string[],
  vendor: ExternalVendor,
): Promise<SkillhouseVocabulary> {
  const { files, skipped } = listFiles(paths)
  const domains: VocabularyDomainFile[] = []
  const csvSkills: VocabularyEntrySkill[] = []
  const read: string[] = []
  for (const file of files) {
    if (/\.json$/i.test(file)) domains.push(readDomainFile(file))
    else if (/\.csv$/i.test(file)) csvSkills.push(...(await readSkillsCsv(file)))
    else {
      skipped.push({ path: file, reason: 'neither a vocabulary JSON file nor a skills CSV' })
      continue
    }
    read.push(file)
  }
  if (read.length === 0)
    throw errors.unprocessable('no vocabulary JSON file or skills CSV was found among the paths given')
  const entities = vocabularyFromDomainFiles(domains)
  entities.skills.push(...csvSkills)
  const languages = new Set<VocabLanguage>()
  const problems: string[] = []
  for (const skill of entities.skills) {
    for (const [field, record] of [
      ['names', skill.names],
      ['aliases', skill.aliases],
    ] as const) {
      for (const language of Object.keys(record) as VocabLanguage[]) {
        if (isLanguageAllowedForVendor(language, vendor)) languages.add(language)
        else {
          problems.push(
            `skill '${skill.external_id}': ${field}.${language}: ${language} is a vocabulary language of vendor_a only; import into vendor_a or leave it out`,
          )
        }
      }
    }
  }
  if (problems.length) throw errors.unprocessable(problems.slice(0, 20))
  return { entities, files: read, skipped, languages: [...languages].sort() }
}

/**
 * `taxonomy import --format skillhouse`: a tenant's custom taxonomy from skillhouse-format files
 * into the vendor's taxonomy (default vendor_default), merged, or replacing the custom entities
 * with `replace`. Records the change and sends its events (see importVocabulary).
 */
export async function importSkillhouse(
  tenant: TaxonomyTenant,
  paths: readonly string[],
  options: {
    external_vendor?: string | undefined
    replace?: boolean
    onStage?: (stage: string) => void
  } = {},
): Promise<TaxonomyImportSummary> {
  const started = performance.now()
  const vendor = requireVendor(
    tenant,
    options.external_vendor ?? 'vendor_default',
    activateWithTenantUpdate(tenant),
  )
  options.onStage?.('reading the vocabulary files')
  const vocabulary = await readSkillhouseVocabulary(paths, vendor)
  options.onStage?.(
    `importing ${vocabulary.entities.skills.length.toLocaleString('en')} custom skills into ${vendor}`,
  )
  const diff = await importVocabulary(tenant.database, vendor, vocabulary.entities, {
    custom: true,
    replace: options.replace ?? false,
    source: 'skillhouse',
    details: { files: vocabulary.files.map((file) => basename(file)) },
    context: eventContextOf(tenant),
  })
  return importSummary('skillhouse', vendor, true, { ...vocabulary, notes: [] }, diff, started)
}
