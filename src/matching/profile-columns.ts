import type { DuckDBValue } from '@duckdb/node-api'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { SqlParams, TenantDatabase } from '../store/tenant-database.js'

/**
 * Skill profiles as typed arrays, for the matching indexes: entities and skills are numbered in
 * external_id order (so a smaller number is a smaller id, which is how ties are broken), and one
 * entity's skills are a contiguous run (CSR), in no particular order (every reader either looks
 * skills up or puts them in its own order). Arrays live on SharedArrayBuffers so that worker
 * threads read them without a copy.
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
  /**
   * The rows again as pairs (skill · 8 + level, strength), when the read was asked for them: what
   * the job scorer reads of a candidate's profile then lies in a few neighbouring cache lines
   * rather than in three arrays (score-job-candidates.ts).
   */
  held?: Float64Array
}

/** The entity tables matching (and the skill gap) numbers; never built from request input. */
export type EntitySource = 'employees' | 'jobs' | 'active_vacancies' | 'vacancies'

export const ENTITY_TYPE: Record<EntitySource, string> = {
  employees: 'employee',
  jobs: 'job',
  active_vacancies: 'vacancy',
  vacancies: 'vacancy',
}
export const ENTITY_IDS: Record<EntitySource, string> = {
  employees: 'SELECT external_id FROM employees',
  jobs: 'SELECT external_id FROM jobs',
  active_vacancies: `SELECT external_id FROM vacancies WHERE status = 'active'`,
  vacancies: 'SELECT external_id FROM vacancies',
}

export const sharedInt32 = (length: number): Int32Array =>
  new Int32Array(new SharedArrayBuffer(Math.max(1, length) * 4), 0, length)
export const sharedFloat64 = (length: number): Float64Array =>
  new Float64Array(new SharedArrayBuffer(Math.max(1, length) * 8), 0, length)
export const sharedUint8 = (length: number): Uint8Array =>
  new Uint8Array(new SharedArrayBuffer(Math.max(1, length)), 0, length)
export const sharedUint32 = (length: number): Uint32Array =>
  new Uint32Array(new SharedArrayBuffer(Math.max(1, length) * 4), 0, length)

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

/**
 * External ids of an entity source, in the order matching numbers them. They come as one string
 * joined by newlines (which an ExternalId cannot hold), split here: decoding 100,000 short strings
 * one by one costs several times more than one long one.
 */
export async function entityIds(database: TenantDatabase, source: EntitySource): Promise<string[]> {
  const row = await database.one<{ ids: string | null; n: number }>(
    `SELECT string_agg(external_id, chr(10) ORDER BY external_id) AS ids, count(*)::INTEGER AS n
       FROM (${ENTITY_IDS[source]})`,
  )
  const ids = row?.ids ? row.ids.split('\n') : []
  if (ids.length === (row?.n ?? 0)) return ids
  // Only an id stored outside the ExternalId rules (a newline in it) gets here: read them one by one.
  const each: string[] = []
  await forEachRow(database, `${ENTITY_IDS[source]} ORDER BY external_id`, [], 1, (values) => {
    each.push(values[0] as string)
  })
  return each
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
 * The profile rows of one entity source for a vendor: the entity's number (`i`, as `entityIds`
 * numbers it) and `columns`, which may read the profile row `p` and the skill's number `sk.s`.
 * Skills outside the numbering are left out. Entities and skills are numbered in SQL by the same
 * ORDER BYs as `entityIds` and `withSkillNumbering`, so that no string crosses into JavaScript per
 * row. Binds `$type` and `$vendor`; `columns` is a constant of this module's callers.
 */
function profileRowsSql(source: EntitySource, numbering: SkillNumbering, columns: string): string {
  return `
WITH ids AS (SELECT external_id, (row_number() OVER (ORDER BY external_id) - 1)::INTEGER AS i FROM (${ENTITY_IDS[source]})),
     sk AS (SELECT skill_id, s FROM ${numbering.table})
SELECT ids.i, ${columns}
FROM profile_skills p JOIN ids ON ids.external_id = p.entity_id JOIN sk ON sk.skill_id = p.skill_id
WHERE p.entity_type = $type AND p.external_vendor = $vendor`
}

/**
 * The first half of a counting sort by entity: fills `start` (zeros, one longer than there are
 * entities) with where each entity's run begins, from the entity numbers of every chunk of rows,
 * and returns the number of rows.
 */
function countRuns(chunks: readonly { count: number; entity: Int32Array }[], start: Int32Array): number {
  let rows = 0
  for (const chunk of chunks) {
    rows += chunk.count
    for (let row = 0; row < chunk.count; row++) {
      const at = (chunk.entity[row] as number) + 1
      start[at] = (start[at] as number) + 1
    }
  }
  for (let index = 0; index + 1 < start.length; index++)
    start[index + 1] = (start[index] as number) + (start[index + 1] as number)
  return rows
}

/** Profiles as runs of skills per entity (CSR) with a number per skill and column of the read. */
export interface ProfileRuns {
  /** start[i] … start[i + 1] is entity i's run. */
  start: Int32Array
  skill: Int32Array
  /** One array per column read, in the order of the columns. */
  values: Float64Array[]
}

/**
 * Reads the profiles of one entity source for a vendor into runs numbered by `ids` and by a
 * skill numbering, with one number per skill and SQL expression of `columns` (each a DOUBLE that
 * is never NULL; a constant of the caller, never request input). Rows stay in the order they came
 * within a run. The general form of `readProfileColumns`, for indexes other than matching's.
 */
export async function readProfileRuns(
  database: TenantDatabase,
  source: EntitySource,
  vendor: ExternalVendor,
  ids: readonly string[],
  numbering: SkillNumbering,
  columns: readonly string[],
): Promise<ProfileRuns> {
  const sql = profileRowsSql(
    source,
    numbering,
    ['sk.s', ...columns.map((column) => `(${column})::DOUBLE`)].join(', '),
  )
  const result = await database.connection.run(sql, { type: ENTITY_TYPE[source], vendor })
  const chunks = Array.from({ length: result.chunkCount }, (_, index) => {
    const chunk = result.getChunk(index)
    return {
      count: chunk.rowCount,
      entity: columnOf(chunk.getColumnVector(0), Int32Array, chunk.rowCount),
      skill: columnOf(chunk.getColumnVector(1), Int32Array, chunk.rowCount),
      values: columns.map((_, column) =>
        columnOf(chunk.getColumnVector(column + 2), Float64Array, chunk.rowCount),
      ),
    }
  })
  const start = new Int32Array(ids.length + 1)
  const rows = countRuns(chunks, start)
  const fill = start.slice(0, ids.length)
  const out: ProfileRuns = {
    start,
    skill: new Int32Array(rows),
    values: columns.map(() => new Float64Array(rows)),
  }
  for (const chunk of chunks) {
    for (let row = 0; row < chunk.count; row++) {
      const entity = chunk.entity[row] as number
      const at = fill[entity] as number
      fill[entity] = at + 1
      out.skill[at] = chunk.skill[row] as number
      for (let column = 0; column < columns.length; column++)
        (out.values[column] as Float64Array)[at] = (chunk.values[column] as Float64Array)[row] as number
    }
  }
  return out
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
  options: { held?: boolean } = {},
): Promise<ProfileColumns> {
  // A row's strength and level are h (or e) and the level of scoring-model.ts, section 1: 1 for a
  // validated skill, else the profile's score; the stated level, else 1 + ⌊5 × proficiency_float⌋,
  // else 0 (unknown). A row's skill, level (0–5) and critical flag come in one integer
  // (skill · 16 + level · 2 + critical), since each column of a result costs a copy. The rows come
  // in any order: a counting sort by entity here costs less than DuckDB's sort.
  const sql = profileRowsSql(
    source,
    numbering,
    `(CASE WHEN p.validation_state = 'validated' THEN 1.0 ELSE p.score END)::DOUBLE AS strength,
       (sk.s * 16
        + (CASE WHEN coalesce(p.governed_proficiency_level, p.proficiency_level) BETWEEN 1 AND 5
                  THEN coalesce(p.governed_proficiency_level, p.proficiency_level)
                WHEN p.proficiency_float IS NOT NULL THEN least(5, 1 + floor(p.proficiency_float * 5))
                ELSE 0 END)::UTINYINT * 2
        + coalesce(p.governed_critical, p.inferred_critical, false)::UTINYINT)::INTEGER AS code`,
  )
  const result = await database.connection.run(sql, { type: ENTITY_TYPE[source], vendor })
  const chunks = Array.from({ length: result.chunkCount }, (_, index) => result.getChunk(index))
  const columns = chunks.map((chunk) => ({
    count: chunk.rowCount,
    entity: columnOf(chunk.getColumnVector(0), Int32Array, chunk.rowCount),
    strength: columnOf(chunk.getColumnVector(1), Float64Array, chunk.rowCount),
    code: columnOf(chunk.getColumnVector(2), Int32Array, chunk.rowCount),
  }))
  // Entity runs by a counting sort; within a run, rows stay in the order they came.
  const start = sharedInt32(ids.length + 1)
  const rows = countRuns(columns, start)
  const fill = Int32Array.from(start.subarray(0, ids.length))
  const out: ProfileColumns = {
    count: ids.length,
    start,
    skill: sharedInt32(rows),
    strength: sharedFloat64(rows),
    level: sharedUint8(rows),
    critical: sharedUint8(rows),
  }
  for (const column of columns) {
    for (let row = 0; row < column.count; row++) {
      const entity = column.entity[row] as number
      const at = fill[entity] as number
      fill[entity] = at + 1
      const code = column.code[row] as number
      out.skill[at] = code >>> 4
      out.strength[at] = column.strength[row] as number
      out.level[at] = (code >>> 1) & 7
      out.critical[at] = code & 1
    }
  }
  if (options.held) out.held = interleaved(out)
  return out
}

/** Profile rows as pairs (skill · 8 + level, strength), on shared memory: see `ProfileColumns.held`. */
export function interleaved(columns: ProfileColumns): Float64Array {
  const rows = columns.skill.length
  const held = sharedFloat64(2 * rows)
  for (let row = 0; row < rows; row++) {
    held[2 * row] = (columns.skill[row] as number) * 8 + (columns.level[row] as number)
    held[2 * row + 1] = columns.strength[row] as number
  }
  return held
}

/**
 * One column of a chunk as a typed array of `type`. The query's columns are never NULL (they are
 * built with coalesce), so the vector's own typed array is used when the installed
 * @duckdb/node-api exposes it (a private field of its numeric vectors); otherwise it is read
 * value by value.
 */
export function columnOf<T extends Int32Array | Float64Array>(
  vector: { getItem(index: number): unknown },
  type: { new (length: number): T; prototype: T },
  count: number,
): T {
  const items = (vector as unknown as { items?: unknown }).items
  if (items instanceof type && items.length >= count) return items as T
  const out = new type(count)
  for (let row = 0; row < count; row++) out[row] = Number(vector.getItem(row))
  return out
}

/**
 * Per entity of `ids` (the result of `entityIds`), whether its profile (of the vendor) has low
 * data availability; entities are numbered in SQL by the same ORDER BY as `entityIds`.
 */
export async function lowDataFlags(
  database: TenantDatabase,
  source: EntitySource,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<Uint8Array> {
  const flags = sharedUint8(ids.length)
  await forEachRow(
    database,
    `WITH ids AS (SELECT external_id, (row_number() OVER (ORDER BY external_id) - 1)::INTEGER AS i FROM (${ENTITY_IDS[source]}))
     SELECT ids.i FROM skill_profiles p JOIN ids ON ids.external_id = p.entity_id
      WHERE p.entity_type = $1 AND p.external_vendor = $2 AND p.low_data`,
    [ENTITY_TYPE[source], vendor],
    1,
    (values) => {
      const position = values[0] as number
      if (position < ids.length) flags[position] = 1
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
