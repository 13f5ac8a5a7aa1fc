import type { TenantDatabase } from '../store/tenant-database.js'
import type { LastRun } from './change-set.js'

/** What derivation records between runs (`derive_state`). */
export type DeriveState = LastRun

const ENTITY_TABLES = ['employees', 'jobs', 'job_families', 'courses', 'vacancies', 'skill_events'] as const

/** The derivation state: the last run's as-of date (null before the first run), its change sequence and vocabularies. */
export async function readState(database: TenantDatabase): Promise<DeriveState> {
  const row = await database.one<{ value: string }>(
    "SELECT value::VARCHAR AS value FROM derive_state WHERE key = 'derive'",
  )
  return row ? (JSON.parse(row.value) as DeriveState) : { last_seq: -1, last_as_of: null, vocabularies: {} }
}

/** Records the state of a finished run. */
export async function writeState(database: TenantDatabase, state: DeriveState): Promise<void> {
  await database.run("INSERT OR REPLACE INTO derive_state VALUES ('derive', $1)", [JSON.stringify(state)])
}

/** The highest change sequence of any entity table: what the next run's changes come after. */
export async function currentSeq(database: TenantDatabase): Promise<number> {
  const row = await database.one<{ seq: number | null }>(
    `SELECT max(seq) AS seq FROM (${ENTITY_TABLES.map((table) => `SELECT max(change_seq) AS seq FROM ${table}`).join(' UNION ALL ')})`,
  )
  return row?.seq ?? 0
}
