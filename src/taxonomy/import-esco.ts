import { createHash } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import type { SkillType } from '../schemas/taxonomy.js'
import type { TaxonomyImportSummary } from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import {
  isLanguageAllowedForVendor,
  toVocabLanguage,
  type VocabLanguage,
} from '../schemas/vocabulary-languages.js'
import { type CsvTable, type CsvTableReader, withCsvReader } from './csv-table.js'
import {
  importSummary,
  importVocabulary,
  type VocabularyEntities,
  type VocabularyEntrySkill,
} from './import-vocabulary.js'
import {
  activateWithTenantUpdate,
  eventContextOf,
  requireVendor,
  type TaxonomyTenant,
} from './taxonomy-tenant.js'

/**
 * ESCO (the European Skills, Competences, Qualifications and Occupations classification) in its
 * official CSV download, mapped onto the four taxonomy levels:
 *
 * - `skillsHierarchy_<lang>.csv`: Level 0 groups become Domains, Level 1 groups Subdomains, and
 *   Level 2 and Level 3 groups Skill Clusters (a Level 3 cluster belongs to its Level 1 Subdomain).
 * - `skills_<lang>.csv`, or when it is absent the collections `*SkillsCollection_<lang>.csv`
 *   (digital, green, language, transversal, …): one Skill per conceptUri; `preferredLabel` is its
 *   name and `altLabels` (newline- or ` | `-separated) its aliases in that file's language, `en`
 *   counting as en_uk; files in several languages merge into one vocabulary.
 * - `broaderRelationsSkillPillar_<lang>.csv` (else each skill file's `broaderConceptUri`): a skill
 *   goes to the cluster of its nearest broader group, walking up through broader skills (a skill
 *   under another skill inherits that skill's cluster); among groups equally near, the deeper one
 *   and then the one first in the hierarchy wins. A skill that reaches only a Level 1 group lands
 *   in a cluster `<subdomain>-general` made for it.
 * - external_ids come from the concept URI: `esco-<uuid>` for `…/esco/skill/<uuid>`,
 *   `esco-isced-f-0613` for `…/esco/isced-f/0613`.
 * - skill_type: `language` in the language domain (Level 0 code L), `knowledge` for ESCO's
 *   knowledge, `soft_skill` for transversal reuse, otherwise `hard_skill`.
 *
 * Other files of the download (occupations, ISCO groups, …) are listed as skipped.
 */

/** The files of an ESCO download that the import reads, by role. */
export interface EscoFiles {
  hierarchy: { path: string; language: string }[]
  relations: string[]
  /** Per ESCO language code, the files that hold its skills. */
  skills: Map<string, string[]>
  skipped: { path: string; reason: string }[]
}

const HIERARCHY = /^skillsHierarchy_([A-Za-z-]+)\.csv$/
const RELATIONS = /^broaderRelationsSkillPillar(?:_[A-Za-z-]+)?\.csv$/
const SKILLS = /^skills_([A-Za-z-]+)\.csv$/
const COLLECTION = /^[A-Za-z]+SkillsCollection_([A-Za-z-]+)\.csv$/
const GROUPS = /^skillGroups_[A-Za-z-]+\.csv$/

/** Whether a file name belongs to an ESCO skills pillar download (used to detect the format). */
export function isEscoFileName(name: string): boolean {
  return [HIERARCHY, RELATIONS, SKILLS, COLLECTION, GROUPS].some((pattern) => pattern.test(name))
}

/** Sorts the files of `paths` (files, or folders read one level deep) into their ESCO roles. */
export function findEscoFiles(paths: readonly string[]): EscoFiles {
  const files: string[] = []
  for (const path of paths) {
    let stats: ReturnType<typeof statSync>
    try {
      stats = statSync(path)
    } catch {
      throw errors.notFound('file or folder', path, 'name an ESCO download folder or its CSV files')
    }
    if (stats.isDirectory()) {
      for (const name of readdirSync(path).sort()) {
        if (statSync(join(path, name)).isFile()) files.push(join(path, name))
      }
    } else files.push(path)
  }
  const found: EscoFiles = { hierarchy: [], relations: [], skills: new Map(), skipped: [] }
  const collections = new Map<string, string[]>()
  for (const path of files) {
    const name = basename(path)
    const hierarchy = HIERARCHY.exec(name)
    const skills = SKILLS.exec(name)
    const collection = COLLECTION.exec(name)
    if (hierarchy) found.hierarchy.push({ path, language: (hierarchy[1] as string).toLowerCase() })
    else if (RELATIONS.test(name)) found.relations.push(path)
    else if (skills) found.skills.set((skills[1] as string).toLowerCase(), [path])
    else if (collection) {
      const language = (collection[1] as string).toLowerCase()
      collections.set(language, [...(collections.get(language) ?? []), path])
    } else if (GROUPS.test(name)) {
      found.skipped.push({ path, reason: 'group names come from skillsHierarchy; skillGroups is not needed' })
    } else found.skipped.push({ path, reason: 'not a file of the ESCO skills pillar' })
  }
  for (const [language, paths] of collections) {
    if (found.skills.has(language)) {
      for (const path of paths)
        found.skipped.push({ path, reason: `skills_${language}.csv holds all of its skills` })
    } else found.skills.set(language, paths)
  }
  return found
}

/** The ExternalId of an ESCO concept URI: stable, `[a-zA-Z0-9_-]`, at most 100 characters. */
export function escoExternalId(uri: string): string {
  const rest = /\/esco\/(.+)$/.exec(uri.trim())?.[1]
  if (rest) {
    const id = `esco-${(rest.startsWith('skill/') ? rest.slice(6) : rest).replace(/[^a-zA-Z0-9_-]+/g, '-')}`
    if (id.length <= 100) return id
  }
  return `esco-x-${createHash('sha1').update(uri).digest('hex').slice(0, 32)}`
}

interface Group {
  uri: string
  level: number
  name: string
  parent: string | null
  /** Position in the hierarchy file: the tie-break between equally near groups. */
  order: number
  domainCode: string
}

interface SkillConcept {
  names: Partial<Record<VocabLanguage, string>>
  aliases: Partial<Record<VocabLanguage, string[]>>
  description: string | null
  skillType: string
  reuseLevel: string
  /** Language of the file that set description and type: en wins. */
  sourceLanguage: string
}

export interface EscoVocabulary {
  entities: VocabularyEntities
  languages: VocabLanguage[]
  files: string[]
  skipped: { path: string; reason: string }[]
  notes: string[]
}

const SKILL_COLUMNS = [
  'conceptUri',
  'preferredLabel',
  'altLabels',
  'description',
  'skillType',
  'reuseLevel',
  'broaderConceptUri',
] as const
const MAX_LABEL = 255
const MAX_ALIASES = 100
const MAX_DESCRIPTION = 2000

function cell(table: CsvTable, name: string, row: number): string {
  return (table.column(name)?.[row] ?? '').trim()
}

function requireColumns(table: CsvTable, names: readonly string[]): void {
  const missing = names.filter((name) => !table.names.includes(name))
  if (missing.length) {
    throw errors.unprocessable(
      `${table.path}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}; the header is ${table.names.join(', ')}`,
    )
  }
}

async function readHierarchy(reader: CsvTableReader, files: EscoFiles): Promise<Map<string, Group>> {
  if (files.hierarchy.length === 0) {
    throw errors.unprocessable(
      'an ESCO import needs skillsHierarchy_<lang>.csv (Level 0 to 3 groups); none was found among the paths given',
    )
  }
  // Group names are single-language: English when the download has it.
  const chosen =
    files.hierarchy.find((file) => file.language === 'en') ?? (files.hierarchy[0] as { path: string })
  const columns = [0, 1, 2, 3].flatMap((level) => [`Level ${level} URI`, `Level ${level} preferred term`])
  const table = await reader.read(chosen.path, [...columns, 'Level 0 code'], { ragged: true })
  requireColumns(table, [
    'Level 0 URI',
    'Level 0 preferred term',
    'Level 1 URI',
    'Level 2 URI',
    'Level 3 URI',
  ])
  const groups = new Map<string, Group>()
  for (let row = 0; row < table.rows; row++) {
    let parent: string | null = null
    const domainCode = cell(table, 'Level 0 code', row)
    for (let level = 0; level <= 3; level++) {
      const uri = cell(table, `Level ${level} URI`, row)
      if (!uri) break
      if (!groups.has(uri)) {
        const name = cell(table, `Level ${level} preferred term`, row) || uri
        groups.set(uri, {
          uri,
          level,
          name: name.slice(0, MAX_LABEL),
          parent,
          order: groups.size,
          domainCode,
        })
      }
      parent = uri
    }
  }
  return groups
}

async function readRelations(reader: CsvTableReader, files: EscoFiles): Promise<Map<string, string[]>> {
  const broader = new Map<string, string[]>()
  for (const path of files.relations) {
    const table = await reader.read(path, ['conceptUri', 'broaderUri'])
    requireColumns(table, ['conceptUri', 'broaderUri'])
    const concepts = table.column('conceptUri') as readonly (string | null)[]
    const parents = table.column('broaderUri') as readonly (string | null)[]
    for (let row = 0; row < table.rows; row++) {
      const concept = concepts[row]?.trim()
      const parent = parents[row]?.trim()
      if (!concept || !parent) continue
      const list = broader.get(concept)
      if (list) list.push(parent)
      else broader.set(concept, [parent])
    }
  }
  return broader
}

function splitLabels(value: string): string[] {
  if (!value) return []
  return value.split(/\r?\n| \| /)
}

async function readSkills(
  reader: CsvTableReader,
  files: EscoFiles,
  vendor: ExternalVendor,
  broader: Map<string, string[]>,
  result: EscoVocabulary,
): Promise<Map<string, SkillConcept>> {
  const concepts = new Map<string, SkillConcept>()
  // Without a relations file, each skill's own broaderConceptUri column places it.
  const useBroaderColumn = files.relations.length === 0
  for (const [code, paths] of files.skills) {
    const language = toVocabLanguage(code)
    if (!language) {
      for (const path of paths)
        result.skipped.push({ path, reason: `'${code}' is not a vocabulary language` })
      continue
    }
    if (!isLanguageAllowedForVendor(language, vendor)) {
      for (const path of paths) {
        result.skipped.push({
          path,
          reason: `${language} is a vocabulary language of vendor_a only, not of ${vendor}`,
        })
      }
      continue
    }
    if (!result.languages.includes(language)) result.languages.push(language)
    for (const path of paths) {
      const table = await reader.read(path, SKILL_COLUMNS)
      requireColumns(table, ['conceptUri', 'preferredLabel'])
      result.files.push(path)
      const long = readSkillTable(table, { code, language }, concepts, useBroaderColumn ? broader : null)
      if (long)
        result.notes.push(`${path}: ${long} preferred labels longer than ${MAX_LABEL} characters were cut`)
    }
  }
  return concepts
}

/**
 * Adds the names, aliases and (from the English file first) descriptions of one skills file in
 * one language to `concepts`, and each skill's broader concepts to `broader` when it is given.
 * Returns how many preferred labels were cut to the longest allowed.
 */
function readSkillTable(
  table: CsvTable,
  file: { code: string; language: VocabLanguage },
  concepts: Map<string, SkillConcept>,
  broader: Map<string, string[]> | null,
): number {
  const { code, language } = file
  const uris = table.column('conceptUri') as readonly (string | null)[]
  const labels = table.column('preferredLabel') as readonly (string | null)[]
  const alts = table.column('altLabels')
  const descriptions = table.column('description')
  const types = table.column('skillType')
  const reuse = table.column('reuseLevel')
  const broaderColumn = table.column('broaderConceptUri')
  let long = 0
  for (let row = 0; row < table.rows; row++) {
    const uri = uris[row]?.trim()
    const name = labels[row]?.trim()
    if (!uri || !name) continue
    let concept = concepts.get(uri)
    if (!concept) {
      concept = {
        names: {},
        aliases: {},
        description: null,
        skillType: '',
        reuseLevel: '',
        sourceLanguage: '',
      }
      concepts.set(uri, concept)
    }
    if (concept.names[language] !== undefined) continue // the same skill in two collections
    if (name.length > MAX_LABEL) long++
    concept.names[language] = name.slice(0, MAX_LABEL)
    const aliases: string[] = []
    const seen = new Set([name])
    for (const alias of splitLabels(alts?.[row] ?? '')) {
      const label = alias.trim()
      if (!label || label.length > MAX_LABEL || seen.has(label)) continue
      seen.add(label)
      aliases.push(label)
      if (aliases.length === MAX_ALIASES) break
    }
    if (aliases.length) concept.aliases[language] = aliases
    if (concept.sourceLanguage === '' || (code === 'en' && concept.sourceLanguage !== 'en')) {
      concept.sourceLanguage = code
      const description = descriptions?.[row]?.trim()
      concept.description = description ? description.slice(0, MAX_DESCRIPTION) : null
      concept.skillType = types?.[row]?.trim() ?? ''
      concept.reuseLevel = reuse?.[row]?.trim() ?? ''
    }
    if (broader && !broader.has(uri)) {
      const parents = (broaderColumn?.[row] ?? '')
        .split('|')
        .map((part) => part.trim())
        .filter(Boolean)
      if (parents.length) broader.set(uri, parents)
    }
  }
  return long
}

/** Where a concept's skills go: a cluster group (Level 2 or 3), or a Level 0/1 group as a last resort. */
function placeOf(
  uri: string,
  broader: ReadonlyMap<string, readonly string[]>,
  groups: ReadonlyMap<string, Group>,
  memo: Map<string, Group | null>,
): Group | null {
  const known = memo.get(uri)
  if (known !== undefined) return known
  let best: Group | null = null
  let fallback: Group | null = null
  const better = (candidate: Group, current: Group | null) =>
    !current ||
    candidate.level > current.level ||
    (candidate.level === current.level && candidate.order < current.order)
  const visited = new Set([uri])
  let frontier = [uri]
  // Breadth first: the nearest cluster wins; a Level 0/1 group is kept only in case none is found.
  while (frontier.length && !best) {
    const next: string[] = []
    for (const concept of frontier) {
      for (const parent of broader.get(concept) ?? []) {
        if (visited.has(parent)) continue
        visited.add(parent)
        const group = groups.get(parent)
        if (group && group.level >= 2) {
          if (better(group, best)) best = group
        } else if (group) {
          if (better(group, fallback)) fallback = group
        } else {
          // Skills, and groups outside the hierarchy, are walked through.
          next.push(parent)
        }
      }
    }
    frontier = next
  }
  const place = best ?? fallback
  memo.set(uri, place)
  return place
}

/**
 * Whether a concept sits anywhere under ESCO's language domain (Level 0 code L), through broader
 * skills or groups: "write Hungarian" is placed in a transversal cluster, but its broader skill
 * "Hungarian" is a language.
 */
function underLanguageDomain(
  uri: string,
  broader: ReadonlyMap<string, readonly string[]>,
  groups: ReadonlyMap<string, Group>,
): boolean {
  const visited = new Set([uri])
  const stack = [uri]
  while (stack.length) {
    const concept = stack.pop() as string
    const group = groups.get(concept)
    if (group) {
      if (group.domainCode === 'L') return true
      continue
    }
    for (const parent of broader.get(concept) ?? []) {
      if (!visited.has(parent)) {
        visited.add(parent)
        stack.push(parent)
      }
    }
  }
  return false
}

function skillTypeOf(concept: SkillConcept, language: boolean): SkillType {
  if (language) return 'language'
  if (/knowledge$/i.test(concept.skillType)) return 'knowledge'
  if (/transversal$/i.test(concept.reuseLevel)) return 'soft_skill'
  return 'hard_skill'
}

/**
 * Reads an ESCO download (folders or files) into a vocabulary for `vendor`. Languages the vendor
 * may not use, and files that are not part of the skills pillar, are listed as skipped.
 */
export async function readEscoVocabulary(
  paths: readonly string[],
  vendor: ExternalVendor,
): Promise<EscoVocabulary> {
  const files = findEscoFiles(paths)
  const result: EscoVocabulary = {
    entities: { domains: [], subdomains: [], skill_clusters: [], skills: [] },
    languages: [],
    files: [...files.hierarchy.map((file) => file.path), ...files.relations],
    skipped: [...files.skipped],
    notes: [],
  }
  if (files.skills.size === 0) {
    throw errors.unprocessable(
      'an ESCO import needs skills_<lang>.csv or the skill collections (*SkillsCollection_<lang>.csv); none was found among the paths given',
    )
  }
  const { groups, broader, concepts } = await withCsvReader(async (reader) => {
    const groups = await readHierarchy(reader, files)
    const broader = await readRelations(reader, files)
    const concepts = await readSkills(reader, files, vendor, broader, result)
    return { groups, broader, concepts }
  })
  if (concepts.size === 0)
    throw errors.unprocessable('the ESCO files hold no skill in a language this vendor can use')

  const memo = new Map<string, Group | null>()
  const clusterSkills = new Map<string, VocabularyEntrySkill[]>()
  let unplaced = 0
  for (const [uri, concept] of concepts) {
    const place = placeOf(uri, broader, groups, memo)
    if (!place) {
      unplaced++
      continue
    }
    const domain = domainOf(place, groups)
    const clusterKey = place.level >= 2 ? place.uri : `${place.uri}#general`
    const skill: VocabularyEntrySkill = {
      external_id: escoExternalId(uri),
      skill_cluster_id: null, // set when the clusters are laid out
      skill_type: skillTypeOf(
        concept,
        domain.domainCode === 'L' || underLanguageDomain(uri, broader, groups),
      ),
      description: concept.description,
      names: concept.names,
      aliases: concept.aliases,
    }
    const list = clusterSkills.get(clusterKey)
    if (list) list.push(skill)
    else clusterSkills.set(clusterKey, [skill])
  }
  if (unplaced)
    result.notes.push(`${unplaced} skills have no broader skill group in the hierarchy and were left out`)
  layOut(result.entities, groups, clusterSkills)
  result.languages.sort()
  return result
}

function domainOf(group: Group, groups: ReadonlyMap<string, Group>): Group {
  let current = group
  while (current.parent) current = groups.get(current.parent) ?? current
  return current
}

function subdomainOf(group: Group, groups: ReadonlyMap<string, Group>): Group | null {
  let current: Group | undefined = group
  while (current && current.level > 1) current = current.parent ? groups.get(current.parent) : undefined
  return current && current.level === 1 ? current : null
}

/** Lays the clusters that hold skills out under their Subdomains and Domains, in hierarchy order. */
function layOut(
  entities: VocabularyEntities,
  groups: ReadonlyMap<string, Group>,
  clusterSkills: ReadonlyMap<string, VocabularyEntrySkill[]>,
): void {
  const domains = new Set<string>()
  const subdomains = new Set<string>()
  const ordered = [...clusterSkills.keys()].sort((a, b) => orderOf(a, groups) - orderOf(b, groups))
  for (const key of ordered) {
    const general = key.endsWith('#general')
    const group = groups.get(general ? key.slice(0, -'#general'.length) : key) as Group
    const domain = domainOf(group, groups)
    let subdomain = group.level === 0 ? null : subdomainOf(group, groups)
    let subdomainId: string
    let subdomainName: string
    if (subdomain) {
      subdomainId = escoExternalId(subdomain.uri)
      subdomainName = subdomain.name
    } else {
      // Skills placed directly under a Domain get a Subdomain of their own.
      subdomain = null
      subdomainId = `${escoExternalId(domain.uri)}-general`
      subdomainName = `${domain.name} (general)`.slice(0, MAX_LABEL)
    }
    const domainId = escoExternalId(domain.uri)
    if (!domains.has(domainId)) {
      domains.add(domainId)
      entities.domains.push({ external_id: domainId, domain_name: domain.name })
    }
    if (!subdomains.has(subdomainId)) {
      subdomains.add(subdomainId)
      entities.subdomains.push({
        external_id: subdomainId,
        domain_id: domainId,
        subdomain_name: subdomainName,
      })
    }
    const clusterId = general
      ? `${group.level === 0 ? subdomainId : escoExternalId(group.uri)}-general`
      : escoExternalId(group.uri)
    const clusterName = general ? `${subdomainName.replace(/ \(general\)$/, '')} (general)` : group.name
    entities.skill_clusters.push({
      external_id: clusterId,
      subdomain_id: subdomainId,
      skill_cluster_name: clusterName.slice(0, MAX_LABEL),
    })
    for (const skill of clusterSkills.get(key) as VocabularyEntrySkill[]) {
      skill.skill_cluster_id = clusterId
      entities.skills.push(skill)
    }
  }
}

function orderOf(key: string, groups: ReadonlyMap<string, Group>): number {
  const general = key.endsWith('#general')
  const group = groups.get(general ? key.slice(0, -'#general'.length) : key)
  return (group?.order ?? Number.MAX_SAFE_INTEGER) + (general ? 0.5 : 0)
}

/**
 * `taxonomy import --format esco`: reads an ESCO download and replaces the vendor's vocabulary
 * with it (default vendor_a, which must be activated on the tenant, else 403 naming the activated
 * vendors), recording the change and sending its events (see importVocabulary).
 */
export async function importEsco(
  tenant: TaxonomyTenant,
  paths: readonly string[],
  options: { external_vendor?: string | undefined; onStage?: (stage: string) => void } = {},
): Promise<TaxonomyImportSummary> {
  const started = performance.now()
  const vendor = requireVendor(
    tenant,
    options.external_vendor ?? 'vendor_a',
    activateWithTenantUpdate(tenant),
  )
  options.onStage?.('reading the ESCO files')
  const vocabulary = await readEscoVocabulary(paths, vendor)
  options.onStage?.(
    `importing ${vocabulary.entities.skills.length.toLocaleString('en')} skills into ${vendor}`,
  )
  const diff = await importVocabulary(tenant.database, vendor, vocabulary.entities, {
    custom: false,
    replace: true,
    source: 'esco',
    details: { files: vocabulary.files.map((file) => basename(file)), languages: vocabulary.languages },
    context: eventContextOf(tenant),
  })
  return importSummary('esco', vendor, false, vocabulary, diff, started)
}
