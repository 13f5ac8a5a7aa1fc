import { createHash } from 'node:crypto'
import { type DuckDBAppender, listValue } from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import {
  DEFAULT_VOCAB_LANGUAGE,
  type ExternalVendor,
  type LevelCounts,
  type Skill,
  type SkillType,
  type VocabLanguage,
  type VocabularyDomainFile,
} from '../schemas/index.js'
import { appendLabels } from '../store/taxonomy/skill-tables.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { NO_SKILL_CHANGES, recordTaxonomyChange } from './taxonomy-changes.js'
import { type EventContext, eventContextFromDatabase, timestampValue } from './taxonomy-tenant.js'

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
  table: 'domains' | 'subdomains' | 'skill_clusters'
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
  const levels: Level[] = [
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

  const skills = new Map<string, { skill: VocabularyEntrySkill; hash: string }>()
  const problems: string[] = []
  const clusters = known.get('skill_clusters') as Set<string>
  for (const skill of entities.skills) {
    if (skills.has(skill.external_id)) problems.push(`skill '${skill.external_id}' appears more than once`)
    if (skill.skill_cluster_id !== null && !clusters.has(skill.skill_cluster_id)) {
      problems.push(
        `skill '${skill.external_id}': skill_cluster_id '${skill.skill_cluster_id}' is no skill cluster of ${vendor}`,
      )
    }
    skills.set(skill.external_id, { skill, hash: skillContentHash(skill) })
  }
  if (problems.length) throw errors.unprocessable(problems.slice(0, 20))

  const existing = new Map<string, { hash: string; custom: boolean }>()
  for (const row of await database.all<{ external_id: string; content_hash: string; custom: boolean }>(
    'SELECT external_id, content_hash, custom FROM skills WHERE external_vendor = $1',
    [vendor],
  )) {
    existing.set(row.external_id, { hash: row.content_hash, custom: row.custom })
  }
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

  const counts = (plan: LevelPlan): LevelCounts => ({
    created: plan.created.length,
    updated: plan.updated.length,
    deleted: plan.deleted.length,
  })
  const [domainPlan, subdomainPlan, clusterPlan] = plans as [LevelPlan, LevelPlan, LevelPlan]
  const diff: VocabularyDiff = {
    external_vendor: vendor,
    custom,
    skills: skills.size,
    created,
    updated,
    deleted,
    domains: counts(domainPlan),
    subdomains: counts(subdomainPlan),
    skill_clusters: counts(clusterPlan),
    change_id: null,
    events: 0,
  }
  const structureChanged = plans.some(
    (plan) => plan.created.length + plan.updated.length + plan.deleted.length > 0,
  )
  if (!structureChanged && created.length + updated.length + deleted.length === 0) return diff

  const context = options.context ?? (await eventContextFromDatabase(database))
  const time = new Date()
  const now = timestampValue(time)
  await database.transaction(async () => {
    for (const plan of plans) await applyLevel(database, vendor, plan, custom, now)

    // Custom properties of updated custom skills survive: the files do not carry them.
    const kept = new Map<string, string>()
    if (custom && updated.length) {
      for (const row of await database.all<{ external_id: string; props: string | null }>(
        'SELECT external_id, custom_properties::VARCHAR AS props FROM skills WHERE external_vendor = $1 AND list_contains($2, external_id)',
        [vendor, listValue(updated)],
      )) {
        if (row.props !== null) kept.set(row.external_id, row.props)
      }
    }
    const stale = [...updated, ...deleted]
    if (stale.length) {
      await database.run('DELETE FROM skills WHERE external_vendor = $1 AND list_contains($2, external_id)', [
        vendor,
        listValue(stale),
      ])
      await database.run(
        'DELETE FROM skill_labels WHERE external_vendor = $1 AND list_contains($2, skill_id)',
        [vendor, listValue(stale)],
      )
    }
    const skillAppender = await database.appender('skills')
    // Measured against DuckDBDataChunk batches and a packed string split by SQL: neither beat
    // the row appender for ~450,000 labels, so the plain one stays.
    const labelAppender = await database.appender('skill_labels')
    for (const id of [...created, ...updated]) {
      const { skill, hash } = skills.get(id) as { skill: VocabularyEntrySkill; hash: string }
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

    const recorded = await recordTaxonomyChange(
      database,
      context,
      {
        operation_type: 'vocabulary_imported',
        entity_external_id: null,
        external_vendor: vendor,
        details: {
          source: options.source ?? 'skillhouse',
          custom,
          replace,
          skill_events: options.skillEvents ?? true,
          skills: { created: created.length, updated: updated.length, deleted: deleted.length },
          domains: diff.domains,
          subdomains: diff.subdomains,
          skill_clusters: diff.skill_clusters,
          ...options.details,
        },
      },
      (options.skillEvents ?? true) ? { created, updated, deleted } : NO_SKILL_CHANGES,
      time,
    )
    diff.change_id = recorded.change.external_id
    diff.events = recorded.events
  })
  return diff
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
  const parent = level.parent ?? 'NULL'
  const rows = await database.all<{
    external_id: string
    name: string
    parent: string | null
    custom: boolean
  }>(
    `SELECT external_id, ${level.name} AS name, ${parent} AS parent, custom FROM ${level.table} WHERE external_vendor = $1`,
    [vendor],
  )
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
  now: ReturnType<typeof timestampValue>,
): Promise<void> {
  const { level } = plan
  if (plan.deleted.length) {
    await database.run(
      `DELETE FROM ${level.table} WHERE external_vendor = $1 AND custom = $2 AND list_contains($3, external_id)`,
      [vendor, custom, listValue(plan.deleted)],
    )
  }
  // Updates keep the row, and with it the custom properties set through the API.
  for (const row of plan.updated) {
    if (level.parent) {
      await database.run(
        `UPDATE ${level.table} SET ${level.name} = $3, ${level.parent} = $4, updated_at = $5 WHERE external_vendor = $1 AND external_id = $2`,
        [vendor, row.external_id as string, row[level.name] as string, row[level.parent] as string, now],
      )
    } else {
      await database.run(
        `UPDATE ${level.table} SET ${level.name} = $3, updated_at = $4 WHERE external_vendor = $1 AND external_id = $2`,
        [vendor, row.external_id as string, row[level.name] as string, now],
      )
    }
  }
  if (plan.created.length === 0) return
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
