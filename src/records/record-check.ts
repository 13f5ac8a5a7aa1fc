import { errors } from '../errors/skillhouse-error.js'
import type { PropertyType } from '../schemas/custom-properties.js'
import { parseBody } from '../schemas/input-issues.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'
import type { EntityKind, Reference, ReferenceTarget } from './entity-kinds.js'
import { loadDefinitions } from './reference-index.js'
import { checkRow, type ReferenceLookup } from './row-check.js'

/** What checking and storing one record needs of a tenant. */
export interface EntityTenant {
  database: TenantDatabase
  settings: TenantSettings
}

const TABLES: Record<Exclude<ReferenceTarget, 'jobs_or_job_families'>, string> = {
  organisational_units: 'organisational_units',
  jobs: 'jobs',
  job_families: 'job_families',
  companies: 'companies',
  courses: 'courses',
  employees: 'employees',
  vacancies: 'vacancies',
  skills: 'skills',
}

/** Which of `ids` exist in `target` (a job or a job family for `jobs_or_job_families`): one query per table. */
export async function existingIds(
  database: TenantDatabase,
  target: ReferenceTarget,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  if (target === 'jobs_or_job_families') {
    const jobs = await existingIds(database, 'jobs', ids)
    const families = await existingIds(database, 'job_families', ids)
    return new Set([...jobs, ...families])
  }
  // The table name comes from the fixed map above, never from the request.
  const rows = await rowsByExternalIds<{ external_id: string }>(
    database,
    `SELECT DISTINCT external_id FROM ${TABLES[target]}`,
    [...new Set(ids)],
  )
  return new Set(rows.map((row) => row.external_id))
}

/** Most ids looked up through a table's key index with an `IN (…)` list of parameters. */
const INDEX_SCAN_MAX_IDS = 2048

/**
 * The rows of `select` (a constant `SELECT … FROM table` of the caller) whose external_id is one
 * of `ids`, the ids bound as values (never written into the SQL text). Up to INDEX_SCAN_MAX_IDS
 * ids go as an `IN ($1,…)` list, which DuckDB answers from the key index (a few rows read; the
 * statement is kept prepared, one per list length); more go as one list parameter
 * (`IN (SELECT unnest($1))`), which joins against the whole table.
 */
export async function rowsByExternalIds<T extends Record<string, unknown>>(
  database: TenantDatabase,
  select: string,
  ids: readonly string[],
): Promise<T[]> {
  if (ids.length === 0) return []
  if (ids.length > INDEX_SCAN_MAX_IDS) {
    return database.all<T>(`${select} WHERE external_id IN (SELECT unnest($1::VARCHAR[]))`, [
      listValue([...ids]),
    ])
  }
  const parameters = Array.from({ length: ids.length }, (_, index) => `$${index + 1}`).join(',')
  return database.allPrepared<T>(`${select} WHERE external_id IN (${parameters})`, [...ids])
}

/** Every external_id of `target` (a few MB for 100,000 records). */
export async function allExternalIds(
  database: TenantDatabase,
  target: Exclude<ReferenceTarget, 'jobs_or_job_families'>,
): Promise<Set<string>> {
  const rows = await database.all<{ external_id: string }>(`SELECT external_id FROM ${TABLES[target]}`)
  return new Set(rows.map((row) => row.external_id))
}

/** Whether `id` exists in `target` (a job or a job family for `jobs_or_job_families`). */
export async function referenceExists(
  database: TenantDatabase,
  target: ReferenceTarget,
  id: string,
): Promise<boolean> {
  return (await existingIds(database, target, [id])).has(id)
}

/**
 * A ReferenceLookup holding exactly the given references, looked up with one query per target
 * table: ingest loads every id of a target per file, which a request for a few records on a
 * tenant of 100,000 employees cannot afford.
 */
export async function lookupReferences(
  database: TenantDatabase,
  references: readonly Reference[],
): Promise<ReferenceLookup> {
  const byTarget = new Map<ReferenceTarget, string[]>()
  for (const reference of references) {
    const ids = byTarget.get(reference.target) ?? []
    ids.push(reference.id)
    byTarget.set(reference.target, ids)
  }
  const found = new Set<string>()
  for (const [target, ids] of byTarget) {
    for (const id of await existingIds(database, target, ids)) found.add(`${target}\u0000${id}`)
  }
  return { has: (target, id) => found.has(`${target}\u0000${id}`) }
}

/** The tenant's custom property definitions of the kind's entity type, as ingest loads them. */
export async function definitionsOf(
  database: TenantDatabase,
  kind: EntityKind,
): Promise<Map<string, PropertyType> | undefined> {
  return loadDefinitions(database, kind)
}

/**
 * Checks one record sent over HTTP with the checks ingest gives a row of the same entity
 * (`checkRow`: the zod schema, custom properties against their definitions, the model
 * configuration rule, references), and answers with the spec's statuses: 400 for a wrong
 * structure, 422 for invalid values (and an outdated model configuration), 404 naming a
 * referenced record that does not exist. Returns the record as ingest would store it.
 */
export async function checkRecord(
  tenant: EntityTenant,
  kind: EntityKind,
  input: unknown,
  what: string,
): Promise<Record<string, unknown>> {
  // The schema first, on its own, because checkRow's problems do not say structure from value.
  const parsed = parseBody(kind.schema, input, what) as Record<string, unknown>
  const lookup = await lookupReferences(tenant.database, kind.references(parsed))
  return checkParsedRecord(tenant, kind, input, parsed, lookup, await definitionsOf(tenant.database, kind))
}

/**
 * The checks of `checkRecord` after the schema, with the references and custom property
 * definitions already looked up (a batch of records looks them up once for all).
 */
export function checkParsedRecord(
  tenant: EntityTenant,
  kind: EntityKind,
  input: unknown,
  parsed: Record<string, unknown>,
  lookup: ReferenceLookup,
  definitions: ReadonlyMap<string, PropertyType> | undefined,
): Record<string, unknown> {
  const references = kind.references(parsed)
  const checked = checkRow(input, { kind, settings: tenant.settings, definitions, references: lookup })
  if (checked.record) return checked.record
  const missing = new Set(
    references.filter((reference) => !lookup.has(reference.target, reference.id)).map((r) => r.path),
  )
  const unknown = checked.problems.filter((problem) => missing.has(problem.field))
  const invalid = checked.problems.filter((problem) => !missing.has(problem.field))
  // A bad value is reported before a missing reference: fixing it may change what is referenced.
  if (invalid.length > 0) {
    throw errors.unprocessable(invalid.map((problem) => `${problem.field}: ${problem.reason}`))
  }
  throw errors.unknownReferences(
    unknown.map(
      (problem) =>
        `${problem.field}: ${problem.reason.replace('; ingest it first (404 Not Found)', '; create it first')}`,
    ),
  )
}
