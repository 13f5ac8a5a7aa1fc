import type { DuckDBValue } from '@duckdb/node-api'
import type { ExternalVendor } from '../../schemas/vendors.js'
import { listValue } from '../../vendor/duckdb.js'
import { timestampValue } from '../sql-values.js'
import type { TenantDatabase } from '../tenant-database.js'

/**
 * The statements of the three levels of a taxonomy above its skills: Domains, Subdomains and
 * Skill Clusters. Each level's statements are written once, from the table and column names
 * below; every value is a bound parameter.
 */

/** The table of a level. */
export type LevelTable = 'domains' | 'subdomains' | 'skill_clusters'

/** A level's columns: its name, the column naming its parent, and who refers to it. */
export interface LevelColumns {
  name: 'domain_name' | 'subdomain_name' | 'skill_cluster_name'
  parent: 'domain_id' | 'subdomain_id' | null
  children: { table: 'subdomains' | 'skill_clusters' | 'skills'; column: string }
}

export const LEVEL_COLUMNS: Readonly<Record<LevelTable, LevelColumns>> = {
  domains: {
    name: 'domain_name',
    parent: null,
    children: { table: 'subdomains', column: 'domain_id' },
  },
  subdomains: {
    name: 'subdomain_name',
    parent: 'domain_id',
    children: { table: 'skill_clusters', column: 'subdomain_id' },
  },
  skill_clusters: {
    name: 'skill_cluster_name',
    parent: 'subdomain_id',
    children: { table: 'skills', column: 'skill_cluster_id' },
  },
}

/** A stored entity of a level: its name, its parent's external_id and its custom properties as JSON. */
export interface LevelRow {
  external_id: string
  name: string
  parent: string | null
  custom: boolean
  props: string | null
  updated_at: Date
}

/** What a write of a custom entity stores; `properties` is JSON text or null. */
export interface LevelWrite {
  name: string
  parent: string | null
  properties: string | null
  time: Date
}

interface LevelStatements {
  all: string
  find: string
  insert: string
  update: string
  remove: string
  children: string
}

/** A level's statements; a level with a parent binds it as the last parameter of an insert and an update. */
function levelStatements(table: LevelTable): LevelStatements {
  const { name, parent, children } = LEVEL_COLUMNS[table]
  const columns = `external_id, ${name} AS name, ${parent ?? 'NULL'} AS parent, custom,
            custom_properties::VARCHAR AS props, updated_at`
  return {
    all: `SELECT ${columns} FROM ${table} WHERE external_vendor = $1`,
    find: `SELECT ${columns} FROM ${table} WHERE external_vendor = $1 AND external_id = $2`,
    insert: `INSERT INTO ${table} (external_id, external_vendor, ${name}, custom, custom_properties, updated_at${parent ? `, ${parent}` : ''})
       VALUES ($1, $2, $3, true, $4::JSON, $5${parent ? ', $6' : ''})`,
    update: `UPDATE ${table} SET ${name} = $3, ${parent ? `${parent} = $6,` : ''}
              custom_properties = $4::JSON, updated_at = $5
        WHERE external_vendor = $1 AND external_id = $2`,
    remove: `DELETE FROM ${table} WHERE external_vendor = $1 AND external_id = $2`,
    children: `SELECT external_id FROM ${children.table}
      WHERE external_vendor = $1 AND ${children.column} = $2 ORDER BY external_id LIMIT $3`,
  }
}

const STATEMENTS: Readonly<Record<LevelTable, LevelStatements>> = {
  domains: levelStatements('domains'),
  subdomains: levelStatements('subdomains'),
  skill_clusters: levelStatements('skill_clusters'),
}

/** The entity `id` of a vendor's level, or undefined. */
export function findLevelRow(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  id: string,
): Promise<LevelRow | undefined> {
  return database.one<LevelRow & Record<string, unknown>>(STATEMENTS[table].find, [vendor, id])
}

/** The values of an insert or an update after vendor and id; the parent last, where the level has one. */
function writeValues(table: LevelTable, write: LevelWrite): DuckDBValue[] {
  const values: DuckDBValue[] = [write.name, write.properties, timestampValue(write.time)]
  if (LEVEL_COLUMNS[table].parent) values.push(write.parent)
  return values
}

/** Every entity of a vendor's level. */
export function readLevelRows(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
): Promise<LevelRow[]> {
  return database.all<LevelRow & Record<string, unknown>>(STATEMENTS[table].all, [vendor])
}

/** Stores a new custom entity of a level. */
export async function insertLevelRow(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  id: string,
  write: LevelWrite,
): Promise<void> {
  await database.run(STATEMENTS[table].insert, [id, vendor, ...writeValues(table, write)])
}

/** Rewrites a custom entity's name, parent and custom properties. */
export async function updateLevelRow(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  id: string,
  write: LevelWrite,
): Promise<void> {
  await database.run(STATEMENTS[table].update, [vendor, id, ...writeValues(table, write)])
}

export async function deleteLevelRow(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  id: string,
): Promise<void> {
  await database.run(STATEMENTS[table].remove, [vendor, id])
}

/** The external_ids of at most `limit` entities that refer to entity `id` (its children), in order. */
export async function childIds(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  id: string,
  limit: number,
): Promise<string[]> {
  const rows = await database.all<{ external_id: string }>(STATEMENTS[table].children, [vendor, id, limit])
  return rows.map((row) => row.external_id)
}

/** The number of Skill Clusters of `vendors` and the newest change of one (null when there is none). */
export async function skillClusterTotals(
  database: TenantDatabase,
  vendors: readonly ExternalVendor[],
): Promise<{ count: number; last: Date | null }> {
  const row = await database.one<{ n: number; last: Date | null }>(
    'SELECT count(*) AS n, max(updated_at) AS last FROM skill_clusters WHERE list_contains($1, external_vendor)',
    [listValue([...vendors])],
  )
  return { count: Number(row?.n ?? 0), last: row?.last ?? null }
}

/** What an import compares a level's entity with: its name, its parent and whether it is custom. */
export interface LevelImportRow {
  external_id: string
  name: string
  parent: string | null
  custom: boolean
}

/** Every entity of a vendor's level, custom and vocabulary alike. */
export function levelRowsOfVendor(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
): Promise<LevelImportRow[]> {
  const { name, parent } = LEVEL_COLUMNS[table]
  return database.all<LevelImportRow & Record<string, unknown>>(
    `SELECT external_id, ${name} AS name, ${parent ?? 'NULL'} AS parent, custom FROM ${table} WHERE external_vendor = $1`,
    [vendor],
  )
}

/** Removes entities `ids` of a vendor's level that are custom (or vocabulary ones, `custom` false). */
export async function deleteLevelRows(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  custom: boolean,
  ids: readonly string[],
): Promise<void> {
  await database.run(
    `DELETE FROM ${table} WHERE external_vendor = $1 AND custom = $2 AND list_contains($3, external_id)`,
    [vendor, custom, listValue([...ids])],
  )
}

/** Renames an entity and moves it to `parent` (where the level has one), keeping its custom properties. */
export async function renameLevelRow(
  database: TenantDatabase,
  table: LevelTable,
  vendor: ExternalVendor,
  id: string,
  entity: { name: string; parent: string | null; time: Date },
): Promise<void> {
  const { name, parent } = LEVEL_COLUMNS[table]
  if (parent) {
    await database.run(
      `UPDATE ${table} SET ${name} = $3, ${parent} = $4, updated_at = $5 WHERE external_vendor = $1 AND external_id = $2`,
      [vendor, id, entity.name, entity.parent, timestampValue(entity.time)],
    )
  } else {
    await database.run(
      `UPDATE ${table} SET ${name} = $3, updated_at = $4 WHERE external_vendor = $1 AND external_id = $2`,
      [vendor, id, entity.name, timestampValue(entity.time)],
    )
  }
}
