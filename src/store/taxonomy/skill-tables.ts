import type { DuckDBAppender } from '@duckdb/node-api'
import type { SkillType } from '../../schemas/taxonomy.js'
import type { ExternalVendor } from '../../schemas/vendors.js'
import type { VocabLanguage } from '../../schemas/vocabulary-languages.js'
import { listValue } from '../../vendor/duckdb.js'
import { timestampValue } from '../sql-values.js'
import type { TenantDatabase } from '../tenant-database.js'

/**
 * The statements of a vendor's skills (`skills`) and of their names and aliases (`skill_labels`,
 * one row per label) as the taxonomy operations read and write them one skill at a time.
 */

/** A stored skill with the subdomain and domain of its cluster; custom properties as JSON text. */
export interface SkillRow {
  external_id: string
  external_vendor: ExternalVendor
  skill_cluster_id: string | null
  skill_type: SkillType
  description: string | null
  custom: boolean
  props: string | null
  content_hash: string
  updated_at: Date
  subdomain_id: string | null
  domain_id: string | null
}

/** A skill's names and aliases by language, as a vocabulary holds them. */
export interface SkillLabelsOf {
  external_id: string
  names: Partial<Record<VocabLanguage, string>>
  aliases: Partial<Record<VocabLanguage, readonly string[]>>
}

/** One `skill_labels` row: a name or an alias of a skill in a language. */
export interface SkillLabelRow {
  skill_id: string
  language: VocabLanguage
  kind: string
  label: string
}

/** The rows of skills `ids` of a vendor (those that exist), in external_id order. */
export function findSkillRows(
  database: TenantDatabase,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<SkillRow[]> {
  return database.all<SkillRow & Record<string, unknown>>(
    `SELECT s.external_id, s.external_vendor, s.skill_cluster_id, s.skill_type, s.description, s.custom,
            s.custom_properties::VARCHAR AS props, s.content_hash, s.updated_at,
            c.subdomain_id, d.domain_id
       FROM skills s
       LEFT JOIN skill_clusters c ON c.external_vendor = s.external_vendor AND c.external_id = s.skill_cluster_id
       LEFT JOIN subdomains d ON d.external_vendor = s.external_vendor AND d.external_id = c.subdomain_id
      WHERE s.external_vendor = $1 AND list_contains($2::VARCHAR[], s.external_id)
      ORDER BY s.external_id`,
    [vendor, listValue([...ids])],
  )
}

/** The label rows of skills `ids` of a vendor, in the order they were written. */
export function skillLabelRows(
  database: TenantDatabase,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<SkillLabelRow[]> {
  return database.all<SkillLabelRow & Record<string, unknown>>(
    `SELECT skill_id, language, kind, label FROM skill_labels
      WHERE external_vendor = $1 AND list_contains($2::VARCHAR[], skill_id) ORDER BY rowid`,
    [vendor, listValue([...ids])],
  )
}

/** A custom skill as `insertCustomSkill` stores it; `properties` is JSON text or null. */
export interface CustomSkillWrite extends SkillLabelsOf {
  skill_cluster_id: string | null
  skill_type: SkillType
  description: string | null
  properties: string | null
  content_hash: string
  time: Date
}

/** Stores a custom skill (custom = true) with its names and aliases. */
export async function insertCustomSkill(
  database: TenantDatabase,
  vendor: ExternalVendor,
  skill: CustomSkillWrite,
): Promise<void> {
  await database.run('INSERT INTO skills VALUES ($1, $2, $3, $4, $5, true, $6::JSON, $7, $8)', [
    skill.external_id,
    vendor,
    skill.skill_cluster_id,
    skill.skill_type,
    skill.description,
    skill.properties,
    skill.content_hash,
    timestampValue(skill.time),
  ])
  const appender = await database.appender('skill_labels')
  appendLabels(appender, vendor, skill)
  appender.closeSync()
}

/** Removes a skill and its labels. */
export async function deleteSkillRows(
  database: TenantDatabase,
  vendor: ExternalVendor,
  id: string,
): Promise<void> {
  await database.run('DELETE FROM skills WHERE external_vendor = $1 AND external_id = $2', [vendor, id])
  await database.run('DELETE FROM skill_labels WHERE external_vendor = $1 AND skill_id = $2', [vendor, id])
}

/** Appends a skill's display names and aliases as `skill_labels` rows. */
export function appendLabels(appender: DuckDBAppender, vendor: ExternalVendor, skill: SkillLabelsOf): void {
  for (const [language, name] of Object.entries(skill.names)) {
    if (name === undefined) continue
    appender.appendVarchar(vendor)
    appender.appendVarchar(skill.external_id)
    appender.appendVarchar(language)
    appender.appendVarchar('name')
    appender.appendVarchar(name)
    appender.endRow()
  }
  for (const [language, aliases] of Object.entries(skill.aliases)) {
    for (const alias of aliases ?? []) {
      appender.appendVarchar(vendor)
      appender.appendVarchar(skill.external_id)
      appender.appendVarchar(language)
      appender.appendVarchar('alias')
      appender.appendVarchar(alias)
      appender.endRow()
    }
  }
}

/** The content hash and the kind (custom or vocabulary) of every skill of a vendor, by external_id. */
export async function skillHashesOfVendor(
  database: TenantDatabase,
  vendor: ExternalVendor,
): Promise<Map<string, { hash: string; custom: boolean }>> {
  const hashes = new Map<string, { hash: string; custom: boolean }>()
  for (const row of await database.all<{ external_id: string; content_hash: string; custom: boolean }>(
    'SELECT external_id, content_hash, custom FROM skills WHERE external_vendor = $1',
    [vendor],
  )) {
    hashes.set(row.external_id, { hash: row.content_hash, custom: row.custom })
  }
  return hashes
}

/** The custom properties (JSON text) of those of skills `ids` of a vendor that have any. */
export async function skillPropertiesOf(
  database: TenantDatabase,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const properties = new Map<string, string>()
  for (const row of await database.all<{ external_id: string; props: string | null }>(
    'SELECT external_id, custom_properties::VARCHAR AS props FROM skills WHERE external_vendor = $1 AND list_contains($2, external_id)',
    [vendor, listValue([...ids])],
  )) {
    if (row.props !== null) properties.set(row.external_id, row.props)
  }
  return properties
}

/** Removes skills `ids` of a vendor and their labels. */
export async function deleteSkillsWithLabels(
  database: TenantDatabase,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<void> {
  await database.run('DELETE FROM skills WHERE external_vendor = $1 AND list_contains($2, external_id)', [
    vendor,
    listValue([...ids]),
  ])
  await database.run('DELETE FROM skill_labels WHERE external_vendor = $1 AND list_contains($2, skill_id)', [
    vendor,
    listValue([...ids]),
  ])
}
