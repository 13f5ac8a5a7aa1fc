import type { DuckDBValue } from '@duckdb/node-api'
import type { ExternalVendor } from '../schemas/index.js'
import type { SqlParams, TenantDatabase } from '../store/tenant-database.js'

/**
 * Skill profiles as typed arrays, for the matching indexes: entities and skills are numbered in
 * external_id order (so a smaller number is a smaller id, which is how ties are broken), and one
 * entity's skills are a contiguous run (CSR) sorted by skill number. Arrays live on
 * SharedArrayBuffers so that worker threads read them without a copy.
 */
export interface ProfileColumns {
  /** Number of entities (rows of `start` minus one). */
  count: number
  /** start[i] … start[i + 1] is entity i's run. */
  start: Int32Array
  skill: Int32Array
  /** 1 for a validated skill, else the profile's evidence score. */
  strength: Float64Array
  /** 1–5, 0 when unknown. */
  level: Uint8Array
  /** 1 when critical (governed_critical, else inferred_critical). */
  critical: Uint8Array
}

/** The entity tables matching numbers; never built from request input. */
export type EntitySource = 'employees' | 'jobs' | 'active_vacancies'

const ENTITY_TYPE: Record<EntitySource, string> = {
  employees: 'employee',
  jobs: 'job',
  active_vacancies: 'vacancy',
}
const ENTITY_IDS: Record<EntitySource, string> = {
  employees: 'SELECT external_id FROM employees',
  jobs: 'SELECT external_id FROM jobs',
  active_vacancies: `SELECT external_id FROM vacancies WHERE status = 'active'`,
}

export const sharedInt32 = (length: number): Int32Array =>
  new Int32Array(new SharedArrayBuffer(Math.max(1, length) * 4), 0, length)
export const sharedFloat64 = (length: number): Float64Array =>
  new Float64Array(new SharedArrayBuffer(Math.max(1, length) * 8), 0, length)
export const sharedUint8 = (length: number): Uint8Array =>
  new Uint8Array(new SharedArrayBuffer(Math.max(1, length)), 0, length)

/**
 * Streams a query chunk by chunk (2,048 rows) and hands each row's values to `visit`, without
 * building an object per row: the way to read millions of profile rows. The query is a constant
 * of this module's callers; values are bound as parameters.
 */
export async function forEachRow(
  database: TenantDatabase,
  sql: string,
  params: SqlParams,
  columns: number,
  visit: (values: DuckDBValue[]) => void,
): Promise<number> {
  const result = await database.connection.stream(sql, params)
  const values: DuckDBValue[] = new Array(columns).fill(null)
  let rows = 0
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) break
    const vectors = Array.from({ length: columns }, (_, index) => chunk.getColumnVector(index))
    const count = chunk.rowCount
    for (let row = 0; row < count; row++) {
      for (let column = 0; column < columns; column++)
        values[column] = (vectors[column] as (typeof vectors)[number]).getItem(row)
      visit(values)
    }
    rows += count
  }
  return rows
}

/** External ids of an entity source, in the order matching numbers them. */
export async function entityIds(database: TenantDatabase, source: EntitySource): Promise<string[]> {
  const ids: string[] = []
  await forEachRow(database, `${ENTITY_IDS[source]} ORDER BY external_id`, [], 1, (values) => {
    ids.push(values[0] as string)
  })
  return ids
}

/** A skill numbering held in a temporary table for the reads of one index build. */
export interface SkillNumbering {
  /** Skill ids by number. */
  ids: string[]
  /** The temporary table (skill_id, s): a name this module makes, never request input. */
  table: string
}

let numberings = 0

/**
 * Numbers the skills that profiles of `sources` hold for a vendor (in skill id order) into a
 * temporary table, for `work` to read profiles with, then drops it. Computing the numbering once
 * spares each profile read a DISTINCT over millions of rows.
 */
export async function withSkillNumbering<T>(
  database: TenantDatabase,
  vendor: ExternalVendor,
  sources: readonly EntitySource[],
  work: (numbering: SkillNumbering) => Promise<T>,
): Promise<T> {
  // Entity types are constants of this module, never request input.
  const types = sources.map((source) => `'${ENTITY_TYPE[source]}'`).join(', ')
  const table = `matching_skill_numbers_${++numberings}`
  await database.run(
    `CREATE OR REPLACE TEMP TABLE ${table} AS
       SELECT skill_id, (row_number() OVER (ORDER BY skill_id) - 1)::INTEGER AS s
         FROM (SELECT DISTINCT skill_id FROM profile_skills WHERE external_vendor = $vendor AND entity_type IN (${types}))`,
    { vendor },
  )
  try {
    const ids: string[] = []
    await forEachRow(database, `SELECT skill_id FROM ${table} ORDER BY s`, [], 1, (values) => {
      ids.push(values[0] as string)
    })
    return await work({ ids, table })
  } finally {
    await database.run(`DROP TABLE IF EXISTS ${table}`)
  }
}

/**
 * Reads the profiles of one entity source for a vendor into CSR columns numbered by `ids` (the
 * result of `entityIds`) and by a skill numbering (`withSkillNumbering`); skills outside the
 * numbering are left out.
 */
export async function readProfileColumns(
  database: TenantDatabase,
  source: EntitySource,
  vendor: ExternalVendor,
  ids: readonly string[],
  numbering: SkillNumbering,
): Promise<ProfileColumns> {
  // Entities and skills are numbered in SQL by the same ORDER BYs as `entityIds` and
  // `withSkillNumbering`, so no string crosses into JavaScript per row.
  const sql = `
WITH ids AS (SELECT external_id, (row_number() OVER (ORDER BY external_id) - 1)::INTEGER AS i FROM (${ENTITY_IDS[source]})),
     sk AS (SELECT skill_id, s FROM ${numbering.table})
SELECT ids.i,
       sk.s,
       (CASE WHEN p.validation_state = 'validated' THEN 1.0 ELSE p.score END)::DOUBLE AS strength,
       (CASE WHEN coalesce(p.governed_proficiency_level, p.proficiency_level) BETWEEN 1 AND 5
               THEN coalesce(p.governed_proficiency_level, p.proficiency_level)
             WHEN p.proficiency_float IS NOT NULL THEN least(5, 1 + floor(p.proficiency_float * 5))
             ELSE 0 END)::UTINYINT AS level,
       coalesce(p.governed_critical, p.inferred_critical, false)::UTINYINT AS critical
FROM profile_skills p JOIN ids ON ids.external_id = p.entity_id JOIN sk ON sk.skill_id = p.skill_id
WHERE p.entity_type = $type AND p.external_vendor = $vendor
ORDER BY ids.i, sk.s`
  let capacity = 1 << 16
  let entity: Int32Array = new Int32Array(capacity)
  let skill: Int32Array = new Int32Array(capacity)
  let strength: Float64Array = new Float64Array(capacity)
  let level: Uint8Array = new Uint8Array(capacity)
  let critical: Uint8Array = new Uint8Array(capacity)
  let rows = 0
  const result = await database.connection.stream(sql, { type: ENTITY_TYPE[source], vendor })
  for (;;) {
    const chunk = await result.fetchChunk()
    if (!chunk || chunk.rowCount === 0) break
    const count = chunk.rowCount
    while (rows + count > capacity) {
      capacity *= 2
      entity = grow(entity, capacity)
      skill = grow(skill, capacity)
      strength = grow(strength, capacity)
      level = grow(level, capacity)
      critical = grow(critical, capacity)
    }
    copyColumn(chunk.getColumnVector(0), entity, rows, count)
    copyColumn(chunk.getColumnVector(1), skill, rows, count)
    copyColumn(chunk.getColumnVector(2), strength, rows, count)
    copyColumn(chunk.getColumnVector(3), level, rows, count)
    copyColumn(chunk.getColumnVector(4), critical, rows, count)
    rows += count
  }
  const start = sharedInt32(ids.length + 1)
  for (let row = 0; row < rows; row++) {
    const at = (entity[row] as number) + 1
    start[at] = (start[at] as number) + 1
  }
  for (let index = 0; index < ids.length; index++)
    start[index + 1] = (start[index] as number) + (start[index + 1] as number)
  return {
    count: ids.length,
    start,
    skill: toShared(skill, rows, sharedInt32),
    strength: toShared(strength, rows, sharedFloat64),
    level: toShared(level, rows, sharedUint8),
    critical: toShared(critical, rows, sharedUint8),
  }
}

/**
 * Copies one column of a chunk into `target` at `offset`. The query's columns are never NULL
 * (they are built with coalesce), so the vector's own typed array is copied whole when the
 * installed @duckdb/node-api exposes it (a private field of its numeric vectors); otherwise
 * value by value.
 */
function copyColumn(
  vector: { getItem(index: number): unknown },
  target: Int32Array | Float64Array | Uint8Array,
  offset: number,
  count: number,
): void {
  const items = (vector as unknown as { items?: unknown }).items
  if (
    (items instanceof Int32Array && target instanceof Int32Array) ||
    (items instanceof Float64Array && target instanceof Float64Array) ||
    (items instanceof Uint8Array && target instanceof Uint8Array)
  ) {
    if (items.length >= count) {
      target.set(items.subarray(0, count) as never, offset)
      return
    }
  }
  for (let row = 0; row < count; row++) target[offset + row] = Number(vector.getItem(row))
}

function toShared<T extends Int32Array | Float64Array | Uint8Array>(
  array: T,
  length: number,
  make: (length: number) => T,
): T {
  const out = make(length)
  out.set(array.subarray(0, length) as never)
  return out
}

function grow<T extends Int32Array | Float64Array | Uint8Array>(array: T, capacity: number): T {
  const next = new (array.constructor as new (length: number) => T)(capacity)
  next.set(array)
  return next
}

/** Per entity of `ids`, whether its profile (of the vendor) has low data availability. */
export async function lowDataFlags(
  database: TenantDatabase,
  source: EntitySource,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<Uint8Array> {
  const flags = sharedUint8(ids.length)
  const index = new Map<string, number>()
  for (let position = 0; position < ids.length; position++) index.set(ids[position] as string, position)
  await forEachRow(
    database,
    'SELECT entity_id FROM skill_profiles WHERE entity_type = $1 AND external_vendor = $2 AND low_data',
    [ENTITY_TYPE[source], vendor],
    1,
    (values) => {
      const position = index.get(values[0] as string)
      if (position !== undefined) flags[position] = 1
    },
  )
  return flags
}

/** Per entity of `ids`, when its record was last updated (epoch milliseconds). */
export async function updatedAt(
  database: TenantDatabase,
  source: EntitySource,
  ids: readonly string[],
): Promise<Float64Array> {
  const times = new Float64Array(ids.length).fill(Number.NaN)
  const index = new Map<string, number>()
  for (let position = 0; position < ids.length; position++) index.set(ids[position] as string, position)
  const table = source === 'employees' ? 'employees' : source === 'jobs' ? 'jobs' : 'vacancies'
  await forEachRow(
    database,
    `SELECT external_id, epoch_ms(updated_at)::DOUBLE FROM ${table}`,
    [],
    2,
    (values) => {
      const position = index.get(values[0] as string)
      if (position !== undefined) times[position] = values[1] as number
    },
  )
  return times
}
