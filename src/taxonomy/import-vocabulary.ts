import { createHash } from 'node:crypto'
import type { DuckDBAppender } from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import type { Skill, SkillType } from '../schemas/taxonomy.js'
import type { LevelCounts, TaxonomyImportSummary } from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabularyDomainFile } from '../schemas/vocabulary-file.js'
import { DEFAULT_VOCAB_LANGUAGE, type VocabLanguage } from '../schemas/vocabulary-languages.js'
import { timestampValue } from '../store/sql-values.js'
import {
  deleteLevelRows,
  type LevelTable,
  levelRowsOfVendor,
  renameLevelRow,
} from '../store/taxonomy/level-tables.js'
import {
  appendLabels,
  deleteSkillsWithLabels,
  skillHashesOfVendor,
  skillPropertiesOf,
} from '../store/taxonomy/skill-tables.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { NO_SKILL_CHANGES, recordTaxonomyChange } from './taxonomy-changes.js'
import { type EventContext, eventContextFromDatabase } from './taxonomy-tenant.js'

/** A skill as a vocabulary holds it, whatever format it was read from. */
export interface VocabularyEntrySkill {
  external_id: string
  skill_cluster_id: string | null
  skill_type: SkillType
  description: string | null
  names: Partial<Record<VocabLanguage, string>>
  aliases: Partial<Record<VocabLanguage, readonly string[]>>
}

/** A custom skill as a request or a skills file gives it: `skill_name` is its en_uk name. */
export function vocabularyEntryOf(skill: Skill): VocabularyEntrySkill {
  return {
    external_id: skill.external_id,
    skill_cluster_id: skill.skill_cluster_id ?? null,
    skill_type: skill.skill_type,
    description: skill.description ?? null,
    names: { ...skill.names, [DEFAULT_VOCAB_LANGUAGE]: skill.skill_name },
    aliases: skill.aliases ?? {},
  }
}

/** A vocabulary flattened into its four levels; parents are named by external_id. */
export interface VocabularyEntities {
  domains: { external_id: string; domain_name: string }[]
  subdomains: { external_id: string; domain_id: string; subdomain_name: string }[]
  skill_clusters: { external_id: string; subdomain_id: string; skill_cluster_name: string }[]
  skills: VocabularyEntrySkill[]
}

export interface ImportVocabularyOptions {
  /** Rows of a tenant's custom taxonomy (true) or of a vendor's vocabulary (false, the default). */
  custom?: boolean
  /** Entities (of the same kind: custom or vocabulary) absent from the input are deleted. Default: !custom. */
  replace?: boolean
  /** Send one skill event per skill created, updated or deleted (default true). */
  skillEvents?: boolean
  /** Where the vocabulary came from, recorded in the change's details (`default`, `esco`, `skillhouse`). */
  source?: string
  /** More details for the change record (files, languages). */
  details?: Record<string, unknown>
  /** Tenant name and base URL for the events; read from the database's settings when absent. */
  context?: EventContext
}

/** What an import did: skills by content, structure counts per level, and the change it recorded. */
export interface VocabularyDiff {
  external_vendor: ExternalVendor
  custom: boolean
  /** Skills in the input. */
  skills: number
  created: string[]
  updated: string[]
  deleted: string[]
  domains: LevelCounts
  subdomains: LevelCounts
  skill_clusters: LevelCounts
  /** The `vocabulary_imported` change, or null when the import changed nothing. */
  change_id: string | null
  events: number
}

/** Flattens skillhouse vocabulary files (one Domain each) into the four levels. */
export function vocabularyFromDomainFiles(files: readonly VocabularyDomainFile[]): VocabularyEntities {
  const entities: VocabularyEntities = { domains: [], subdomains: [], skill_clusters: [], skills: [] }
  for (const domain of files) {
    entities.domains.push({ external_id: domain.external_id, domain_name: domain.domain_name })
    for (const subdomain of domain.subdomains) {
      entities.subdomains.push({
        external_id: subdomain.external_id,
        domain_id: domain.external_id,
        subdomain_name: subdomain.subdomain_name,
      })
      for (const cluster of subdomain.skill_clusters) {
        entities.skill_clusters.push({
          external_id: cluster.external_id,
          subdomain_id: subdomain.external_id,
          skill_cluster_name: cluster.skill_cluster_name,
        })
        for (const skill of cluster.skills) {
          entities.skills.push({
            external_id: skill.external_id,
            skill_cluster_id: cluster.external_id,
            skill_type: skill.skill_type,
            description: skill.description ?? null,
            names: skill.names,
            aliases: skill.aliases ?? {},
          })
        }
      }
    }
  }
  return entities
}

/**
 * The content hash of a skill: what decides "updated" on the next import. Languages are sorted,
 * so the order a file lists them in does not matter; custom properties are not part of it. The
 * text is joined with control characters rather than JSON.stringify, which took twice as long on
 * 14,000 skills × 5 languages.
 */
export function skillContentHash(skill: VocabularyEntrySkill): string {
  let text = `${skill.skill_cluster_id ?? '\u0002'}\u0001${skill.skill_type}\u0001${skill.description ?? '\u0002'}`
  for (const language of Object.keys(skill.names).sort()) {
    text += `\u0001n\u0000${language}\u0000${skill.names[language as VocabLanguage]}`
  }
  for (const language of Object.keys(skill.aliases).sort()) {
    text += `\u0001a\u0000${language}\u0000${(skill.aliases[language as VocabLanguage] ?? []).join('\u0000')}`
  }
  return createHash('sha1').update(text).digest('base64url')
}

interface Level {
  kind: string
  table: LevelTable
  name: 'domain_name' | 'subdomain_name' | 'skill_cluster_name'
  parent: 'domain_id' | 'subdomain_id' | null
  rows: readonly Record<string, string>[]
}

interface LevelPlan {
  level: Level
  created: Record<string, string>[]
  updated: Record<string, string>[]
  deleted: string[]
}

/** The skills of an import by external_id, each with its content hash. */
type HashedSkills = Map<string, { skill: VocabularyEntrySkill; hash: string }>

/** What an import changes: the plan of each level and the skills created, updated and deleted. */
interface ImportPlan {
  levels: [LevelPlan, LevelPlan, LevelPlan]
  skills: HashedSkills
  created: string[]
  updated: string[]
  deleted: string[]
}

/**
 * Imports a vocabulary into a tenant database in one transaction. A vendor's vocabulary
 * (`custom: false`) replaces the previous one; a custom taxonomy (`custom: true`) is merged into
 * the tenant's custom entities, or replaces them with `replace`. Skills are compared by content:
 * re-importing an unchanged vocabulary writes nothing, records nothing and sends nothing.
 * Otherwise the same transaction records one `vocabulary_imported` change and appends one skill
 * event per skill created, updated or deleted (unless `skillEvents` is false) and one
 * `ai.vendor.taxonomy.updated.v1`. An external_id already used by the other kind (a custom skill
 * and a vocabulary skill of the same vendor) is a 409.
 */
export async function importVocabulary(
  database: TenantDatabase,
  vendor: ExternalVendor,
  vocabulary: readonly VocabularyDomainFile[] | VocabularyEntities,
  options: ImportVocabularyOptions = {},
): Promise<VocabularyDiff> {
  const entities = Array.isArray(vocabulary)
    ? vocabularyFromDomainFiles(vocabulary as readonly VocabularyDomainFile[])
    : (vocabulary as VocabularyEntities)
  const custom = options.custom ?? false
  const replace = options.replace ?? !custom
  const plan = await planImport(database, vendor, entities, custom, replace)
  const diff = diffOf(vendor, custom, plan)
  const structureChanged = plan.levels.some(
    (level) => level.created.length + level.updated.length + level.deleted.length > 0,
  )
  if (!structureChanged && plan.created.length + plan.updated.length + plan.deleted.length === 0) return diff

  const context = options.context ?? (await eventContextFromDatabase(database))
  const time = new Date()
  await database.transaction(async () => {
    for (const level of plan.levels) await applyLevel(database, vendor, level, custom, time)
    await writeSkills(database, vendor, plan, custom, time)
    const recorded = await recordTaxonomyChange(
      database,
      context,
      {
        operation_type: 'vocabulary_imported',
        entity_external_id: null,
        external_vendor: vendor,
        details: importDetails(diff, replace, options),
      },
      (options.skillEvents ?? true)
        ? { created: diff.created, updated: diff.updated, deleted: diff.deleted }
        : NO_SKILL_CHANGES,
      time,
    )
    diff.change_id = recorded.change.external_id
    diff.events = recorded.events
  })
  return diff
}

/** The four levels of an import, each with the stored entities it changes; 422 or 409 for a bad input. */
async function planImport(
  database: TenantDatabase,
  vendor: ExternalVendor,
  entities: VocabularyEntities,
  custom: boolean,
  replace: boolean,
): Promise<ImportPlan> {
  const levels = levelsOf(entities)
  const known = new Map<string, Set<string>>()
  const plans: LevelPlan[] = []
  for (const level of levels) {
    const plan = await planLevel(database, vendor, level, custom, replace)
    plans.push(plan)
    known.set(
      level.table,
      new Set([...plan.existingIds, ...level.rows.map((row) => row.external_id as string)]),
    )
  }
  checkParents(levels, known, vendor)
  const skills = hashSkills(entities.skills, known.get('skill_clusters') as Set<string>, vendor)
  const existing = await skillHashesOfVendor(database, vendor)
  const created: string[] = []
  const updated: string[] = []
  for (const [id, { hash }] of skills) {
    const current = existing.get(id)
    if (!current) created.push(id)
    else if (current.custom !== custom) throw collision(vendor, 'skill', id, current.custom)
    else if (current.hash !== hash) updated.push(id)
  }
  const deleted = replace
    ? [...existing].filter(([id, row]) => row.custom === custom && !skills.has(id)).map(([id]) => id)
    : []
  return { levels: plans as [LevelPlan, LevelPlan, LevelPlan], skills, created, updated, deleted }
}

function levelsOf(entities: VocabularyEntities): Level[] {
  return [
    { kind: 'domain', table: 'domains', name: 'domain_name', parent: null, rows: entities.domains },
    {
      kind: 'subdomain',
      table: 'subdomains',
      name: 'subdomain_name',
      parent: 'domain_id',
      rows: entities.subdomains,
    },
    {
      kind: 'skill cluster',
      table: 'skill_clusters',
      name: 'skill_cluster_name',
      parent: 'subdomain_id',
      rows: entities.skill_clusters,
    },
  ]
}

/** The skills by external_id with their content hashes; 422 for a repeated skill or an unknown cluster. */
function hashSkills(
  entries: readonly VocabularyEntrySkill[],
  clusters: ReadonlySet<string>,
  vendor: ExternalVendor,
): HashedSkills {
  const skills: HashedSkills = new Map()
  const problems: string[] = []
  for (const skill of entries) {
    if (skills.has(skill.external_id)) problems.push(`skill '${skill.external_id}' appears more than once`)
    if (skill.skill_cluster_id !== null && !clusters.has(skill.skill_cluster_id)) {
      problems.push(
        `skill '${skill.external_id}': skill_cluster_id '${skill.skill_cluster_id}' is no skill cluster of ${vendor}`,
      )
    }
    skills.set(skill.external_id, { skill, hash: skillContentHash(skill) })
  }
  if (problems.length) throw errors.unprocessable(problems.slice(0, 20))
  return skills
}

function diffOf(vendor: ExternalVendor, custom: boolean, plan: ImportPlan): VocabularyDiff {
  const counts = (level: LevelPlan): LevelCounts => ({
    created: level.created.length,
    updated: level.updated.length,
    deleted: level.deleted.length,
  })
  const [domains, subdomains, clusters] = plan.levels
  return {
    external_vendor: vendor,
    custom,
    skills: plan.skills.size,
    created: plan.created,
    updated: plan.updated,
    deleted: plan.deleted,
    domains: counts(domains),
    subdomains: counts(subdomains),
    skill_clusters: counts(clusters),
    change_id: null,
    events: 0,
  }
}

/** The details of the `vocabulary_imported` change. */
function importDetails(
  diff: VocabularyDiff,
  replace: boolean,
  options: ImportVocabularyOptions,
): Record<string, unknown> {
  return {
    source: options.source ?? 'skillhouse',
    custom: diff.custom,
    replace,
    skill_events: options.skillEvents ?? true,
    skills: { created: diff.created.length, updated: diff.updated.length, deleted: diff.deleted.length },
    domains: diff.domains,
    subdomains: diff.subdomains,
    skill_clusters: diff.skill_clusters,
    ...options.details,
  }
}

/** Writes the skills an import creates or updates (with their labels) and removes the deleted ones. */
async function writeSkills(
  database: TenantDatabase,
  vendor: ExternalVendor,
  plan: ImportPlan,
  custom: boolean,
  time: Date,
): Promise<void> {
  const { created, updated, deleted } = plan
  // Custom properties of updated custom skills survive: the files do not carry them.
  const kept = custom && updated.length ? await skillPropertiesOf(database, vendor, updated) : new Map()
  const stale = [...updated, ...deleted]
  if (stale.length) await deleteSkillsWithLabels(database, vendor, stale)
  const now = timestampValue(time)
  const skillAppender = await database.appender('skills')
  // Measured against DuckDBDataChunk batches and a packed string split by SQL: neither beat
  // the row appender for ~450,000 labels, so the plain one stays.
  const labelAppender = await database.appender('skill_labels')
  for (const id of [...created, ...updated]) {
    const { skill, hash } = plan.skills.get(id) as { skill: VocabularyEntrySkill; hash: string }
    skillAppender.appendVarchar(skill.external_id)
    skillAppender.appendVarchar(vendor)
    appendNullable(skillAppender, skill.skill_cluster_id)
    skillAppender.appendVarchar(skill.skill_type)
    appendNullable(skillAppender, skill.description)
    skillAppender.appendBoolean(custom)
    appendNullable(skillAppender, kept.get(id) ?? null)
    skillAppender.appendVarchar(hash)
    skillAppender.appendTimestamp(now)
    skillAppender.endRow()
    appendLabels(labelAppender, vendor, skill)
  }
  skillAppender.closeSync()
  labelAppender.closeSync()
}

function appendNullable(appender: DuckDBAppender, value: string | null): void {
  if (value === null) appender.appendNull()
  else appender.appendVarchar(value)
}

async function planLevel(
  database: TenantDatabase,
  vendor: ExternalVendor,
  level: Level,
  custom: boolean,
  replace: boolean,
): Promise<LevelPlan & { existingIds: string[] }> {
  const rows = await levelRowsOfVendor(database, level.table, vendor)
  const existing = new Map(rows.map((row) => [row.external_id, row]))
  const seen = new Set<string>()
  const plan: LevelPlan = { level, created: [], updated: [], deleted: [] }
  for (const row of level.rows) {
    const id = row.external_id as string
    if (seen.has(id)) throw errors.unprocessable(`${level.kind} '${id}' appears more than once`)
    seen.add(id)
    const current = existing.get(id)
    if (!current) plan.created.push(row)
    else if (current.custom !== custom) throw collision(vendor, level.kind, id, current.custom)
    else if (
      current.name !== row[level.name] ||
      (level.parent !== null && current.parent !== row[level.parent])
    ) {
      plan.updated.push(row)
    }
  }
  if (replace) {
    plan.deleted = rows
      .filter((row) => row.custom === custom && !seen.has(row.external_id))
      .map((row) => row.external_id)
  }
  return { ...plan, existingIds: rows.map((row) => row.external_id) }
}

function checkParents(
  levels: readonly Level[],
  known: ReadonlyMap<string, Set<string>>,
  vendor: ExternalVendor,
): void {
  const problems: string[] = []
  for (const [index, level] of levels.entries()) {
    const parentLevel = levels[index - 1]
    if (!level.parent || !parentLevel) continue
    const parents = known.get(parentLevel.table) as Set<string>
    for (const row of level.rows) {
      const parent = row[level.parent] as string
      if (!parents.has(parent)) {
        problems.push(
          `${level.kind} '${row.external_id}': ${level.parent} '${parent}' is no ${parentLevel.kind} of ${vendor}`,
        )
      }
    }
  }
  if (problems.length) throw errors.unprocessable(problems.slice(0, 20))
}

async function applyLevel(
  database: TenantDatabase,
  vendor: ExternalVendor,
  plan: LevelPlan,
  custom: boolean,
  time: Date,
): Promise<void> {
  const { level } = plan
  if (plan.deleted.length) await deleteLevelRows(database, level.table, vendor, custom, plan.deleted)
  // Updates keep the row, and with it the custom properties set through the API.
  for (const row of plan.updated) {
    await renameLevelRow(database, level.table, vendor, row.external_id as string, {
      name: row[level.name] as string,
      parent: level.parent ? (row[level.parent] as string) : null,
      time,
    })
  }
  if (plan.created.length === 0) return
  const now = timestampValue(time)
  const appender = await database.appender(level.table)
  for (const row of plan.created) {
    appender.appendVarchar(row.external_id as string)
    appender.appendVarchar(vendor)
    if (level.parent) appender.appendVarchar(row[level.parent] as string)
    appender.appendVarchar(row[level.name] as string)
    appender.appendBoolean(custom)
    appender.appendNull()
    appender.appendTimestamp(now)
    appender.endRow()
  }
  appender.closeSync()
}

function collision(vendor: ExternalVendor, kind: string, id: string, existingIsCustom: boolean) {
  return errors.conflict(`${existingIsCustom ? 'custom' : `${vendor} vocabulary`} ${kind} of ${vendor}`, id)
}

/** What an import says of itself (`taxonomy import`), from the files it read and the diff it made. */
export function importSummary(
  format: TaxonomyImportSummary['format'],
  vendor: ExternalVendor,
  custom: boolean,
  read: Pick<TaxonomyImportSummary, 'files' | 'skipped' | 'languages' | 'notes'>,
  diff: VocabularyDiff,
  started: number,
): TaxonomyImportSummary {
  return {
    format,
    external_vendor: vendor,
    custom,
    files: read.files,
    skipped: read.skipped,
    languages: read.languages,
    skills: diff.skills,
    domains: diff.domains,
    subdomains: diff.subdomains,
    skill_clusters: diff.skill_clusters,
    skill_changes: {
      created: diff.created.length,
      updated: diff.updated.length,
      deleted: diff.deleted.length,
    },
    change_id: diff.change_id,
    events: diff.events,
    notes: read.notes,
    seconds: (performance.now() - started) / 1000,
  }
}
