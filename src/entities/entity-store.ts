import { createHash } from 'node:crypto'
import type { DuckDBValue } from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import { forgetStems } from '../extraction/extractor-cache.js'
import { deleteKeptVacancyAnswers } from '../matching/kept-vacancy-answers.js'
import { deletePersistedJobIndexes } from '../matching/persisted-job-index.js'
import { checkRecord, type EntityTenant } from '../records/record-check.js'
import { PageQuery } from '../schemas/common.js'
import { parseQuery } from '../schemas/input-issues.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { EntityCollection } from './entity-collections.js'

/**
 * The entity records of the resource pattern of docs/api.md, stored exactly as ingest stores them (the
 * validated record as `doc`, its sha1 as `doc_hash`, the indexed columns, a new `change_seq` on
 * every change so that derivation picks the record up). Every function throws a SkillhouseError
 * with the spec's status; none formats a response.
 */

/** A page of a collection (docs/api.md): records in external_id order and the cursor of the next page. */
export interface EntityPage {
  records: Record<string, unknown>[]
  has_next: boolean
  next_starting_after: string | null
}

/** A record's noun for messages about the whole record: "an employee", "a vacancy". */
const withArticle = (noun: string) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`

/** `POST /collection`: creates the record; 409 when its external_id exists, whatever its content. */
export async function createEntity(
  tenant: EntityTenant,
  collection: EntityCollection,
  input: unknown,
): Promise<void> {
  const record = await checkRecord(tenant, collection.kind, input, withArticle(collection.noun))
  const id = collection.kind.key(record)
  if (collection.kind.entity === 'organisational_units') {
    await checkUnitParent(tenant.database, id, record.parent_id)
  }
  await tenant.database.transaction(async () => {
    if (await findDoc(tenant.database, collection, id)) throw errors.conflict(collection.noun, id)
    const { sql, params } = insertOf(collection, id, record)
    await tenant.database.run(sql, params)
  })
}

/** `GET /collection/{id}`: the record as stored; 404 when it does not exist. */
export async function getEntity(
  tenant: EntityTenant,
  collection: EntityCollection,
  id: string,
): Promise<Record<string, unknown>> {
  const row = await findDoc(tenant.database, collection, id)
  if (!row) throw errors.notFound(collection.noun, id)
  return JSON.parse(row.doc) as Record<string, unknown>
}

/**
 * `PATCH /collection/{id}`: a merge of the body into the stored record. A field of the body
 * replaces the stored field whole (a location, a list of languages), `custom_properties` merge by
 * property name, and `null` removes a field or a property. The merged record gets every check of a
 * new one. `external_id` may be repeated but not changed (422). Returns whether anything changed:
 * a patch that changes nothing leaves the record (and its change_seq) alone.
 */
export async function updateEntity(
  tenant: EntityTenant,
  collection: EntityCollection,
  id: string,
  patch: unknown,
): Promise<boolean> {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw errors.badRequest(`the body of a PATCH must be a JSON object of the ${collection.noun}'s fields`)
  }
  const stored = await findDoc(tenant.database, collection, id)
  if (!stored) throw errors.notFound(collection.noun, id)
  const changes = patch as Record<string, unknown>
  if ('external_id' in changes && changes.external_id !== id) {
    throw errors.unprocessable(
      `external_id: cannot change (it is the ${collection.noun}'s identity, '${id}'); create a new ${collection.noun} instead`,
    )
  }
  const merged = mergePatch(JSON.parse(stored.doc) as Record<string, unknown>, changes)
  const record = await checkRecord(tenant, collection.kind, merged, withArticle(collection.noun))
  if (collection.kind.entity === 'organisational_units') {
    await checkUnitParent(tenant.database, id, record.parent_id)
  }
  const { json, hash } = docOf(record)
  if (hash === stored.doc_hash) return false
  const columns = collection.kind.columns ?? []
  const params: DuckDBValue[] = [id, json, hash, ...columns.map((column) => columnValue(record[column]))]
  await tenant.database.run(
    `UPDATE ${collection.kind.table}
        SET doc = $2::JSON, doc_hash = $3, updated_at = now(), change_seq = nextval('change_seq')
            ${columns.map((column, index) => `, ${column} = $${index + 4}`).join('')}
      WHERE external_id = $1`,
    params,
  )
  return true
}

/**
 * `DELETE /collection/{id}`: removes the record and what means nothing without it (its profile;
 * for an employee its skill events and match feedback). 404 when it does not exist; 409 naming the
 * records that still refer to it (units below a unit, employees of a job, …), which must be moved
 * or deleted first, as a Domain with Subdomains cannot be deleted.
 */
export async function deleteEntity(
  tenant: EntityTenant,
  collection: EntityCollection,
  id: string,
): Promise<void> {
  const database = tenant.database
  if (!(await findDoc(database, collection, id))) throw errors.notFound(collection.noun, id)
  for (const dependent of collection.dependents) {
    const rows = await database.all<{ external_id: string }>(`${dependent.sql} ORDER BY 1 LIMIT 6`, [id])
    if (rows.length > 0) {
      const names = rows.slice(0, 5).map((row) => row.external_id)
      throw errors.stillReferred(collection.noun, id, dependent.noun, names, rows.length > 5)
    }
  }
  await database.transaction(async () => {
    for (const sql of collection.touchOnDelete) await database.run(sql, [id])
    for (const sql of collection.cascade) await database.run(sql, [id])
    await database.run(`DELETE FROM ${collection.kind.table} WHERE external_id = $1`, [id])
  })
  // The stems kept from the tenant's texts hold the words of this employee's events too, and the
  // kept job matching indexes their id and profile, the kept 4.11 answers their matches.
  if (collection.profileType === 'employee') {
    forgetStems(database)
    deletePersistedJobIndexes(database.path)
    deleteKeptVacancyAnswers(database.path)
  }
}

/**
 * `GET /collection?starting_after=&limit=`: records in external_id order after `starting_after`
 * (exclusive; it need not exist), `limit` 1 to 1,000 (default 100). A bad parameter is a 422
 * naming it.
 */
export async function listEntities(
  tenant: EntityTenant,
  collection: EntityCollection,
  query: { starting_after?: string | undefined; limit?: string | undefined },
): Promise<EntityPage> {
  const page = parseQuery(PageQuery, query)
  const rows = await tenant.database.all<{ external_id: string; doc: string }>(
    `SELECT external_id, doc::VARCHAR AS doc FROM ${collection.kind.table}
      WHERE $1::VARCHAR IS NULL OR external_id > $1
      ORDER BY external_id LIMIT $2`,
    [page.starting_after ?? null, page.limit + 1],
  )
  const records = rows.slice(0, page.limit)
  const has_next = rows.length > page.limit
  return {
    records: records.map((row) => JSON.parse(row.doc) as Record<string, unknown>),
    has_next,
    next_starting_after: has_next ? (records.at(-1)?.external_id ?? null) : null,
  }
}

async function findDoc(
  database: TenantDatabase,
  collection: EntityCollection,
  id: string,
): Promise<{ doc: string; doc_hash: string } | undefined> {
  return database.one<{ doc: string; doc_hash: string }>(
    `SELECT doc::VARCHAR AS doc, doc_hash FROM ${collection.kind.table} WHERE external_id = $1`,
    [id],
  )
}

/** The stored form of a record: the same JSON text and hash ingest's merge writes. */
function docOf(record: Record<string, unknown>): { json: string; hash: string } {
  const json = JSON.stringify(record)
  return { json, hash: createHash('sha1').update(json).digest('base64url') }
}

const columnValue = (value: unknown): DuckDBValue =>
  value === undefined || value === null ? null : String(value)

function insertOf(collection: EntityCollection, id: string, record: Record<string, unknown>) {
  const columns = collection.kind.columns ?? []
  const { json, hash } = docOf(record)
  const params: DuckDBValue[] = [id, ...columns.map((column) => columnValue(record[column])), json, hash]
  const n = columns.length
  const sql = `INSERT INTO ${collection.kind.table}
      (external_id, ${columns.map((column) => `${column}, `).join('')}doc, doc_hash, updated_at, change_seq)
    VALUES ($1, ${columns.map((_, index) => `$${index + 2}, `).join('')}$${n + 2}::JSON, $${n + 3}, now(), nextval('change_seq'))`
  return { sql, params }
}

/** Top-level fields replace, `custom_properties` merge by name, null removes. */
function mergePatch(
  stored: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...stored }
  for (const [field, value] of Object.entries(patch)) {
    if (value === null) {
      delete merged[field]
      continue
    }
    if (field === 'custom_properties' && typeof value === 'object' && !Array.isArray(value)) {
      const current = merged.custom_properties
      const properties: Record<string, unknown> =
        current !== null && typeof current === 'object' ? { ...(current as Record<string, unknown>) } : {}
      for (const [name, property] of Object.entries(value as Record<string, unknown>)) {
        if (property === null) delete properties[name]
        else properties[name] = property
      }
      if (Object.keys(properties).length === 0) delete merged.custom_properties
      else merged.custom_properties = properties
      continue
    }
    merged[field] = value
  }
  return merged
}

/**
 * A unit's parent must exist (404) and must not be the unit or one of its descendants (422): each
 * unit has at most one parent and the hierarchy has no cycles (2.8).
 */
async function checkUnitParent(database: TenantDatabase, id: string, parent: unknown): Promise<void> {
  if (typeof parent !== 'string') return
  const chain = [id]
  let cursor: string | null = parent
  const seen = new Set<string>()
  while (cursor !== null) {
    chain.push(cursor)
    if (cursor === id) {
      throw errors.unprocessable(
        `parent_id: the parent chain makes a cycle: ${chain.join(' → ')}; no unit may be its own ancestor`,
      )
    }
    if (seen.has(cursor)) return
    seen.add(cursor)
    const row: { parent_id: string | null } | undefined = await database.one<{ parent_id: string | null }>(
      'SELECT parent_id FROM organisational_units WHERE external_id = $1',
      [cursor],
    )
    if (!row) {
      if (cursor === parent) {
        throw errors.unknownParentUnit(parent)
      }
      return
    }
    cursor = row.parent_id
  }
}
