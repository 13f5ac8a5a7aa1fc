import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DuckDBAppender } from '@duckdb/node-api'
import { endActiveWorkingHistory } from '../profiles/working-history.js'
import type { EntityKind } from '../records/entity-kinds.js'
import type { Problem } from '../records/row-check.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { DuckDBDataChunk, INTEGER, VARCHAR } from '../vendor/duckdb.js'
import type { GoodRow, StagedColumns } from './ingest-types.js'
import { newStagedColumns, stageRow } from './staged-columns.js'

export interface MergeResult {
  inserted: number
  updated: number
  unchanged: number
  /** Rows replaced by a later row of the same external_id in the same file (entity records). */
  superseded?: number
  /** Rows the database refused on merge (skill events that exist with other content). */
  conflicts: { row: GoodRow; problem: Problem }[]
}

/** Where checked rows wait until the file's transaction merges them into the tenant's tables. */
export interface Staging {
  add(row: GoodRow): Promise<void>
  remove(key: string): void
  rows(): GoodRow[]
  merge(): Promise<MergeResult>
  drop(): Promise<void>
}

let stagingCounter = 0

export async function stagingFor(
  kind: EntityKind,
  database: TenantDatabase,
  options: { endActiveWorkingHistory?: boolean } = {},
): Promise<Staging & { prepareParts?: SkillEventStaging['prepareParts'] }> {
  switch (kind.storage) {
    case 'skill_events':
      return new SkillEventStaging(database, options.endActiveWorkingHistory === true)
    case 'definitions':
      return new DefinitionStaging(database)
    case 'match_feedback':
      return new MatchFeedbackStaging(database)
    case 'doc':
      return new DocStaging(kind, database)
  }
}

/** Entity records (thousands, not millions): kept in memory, last occurrence of a key wins. */
class DocStaging implements Staging {
  private readonly byKey = new Map<string, GoodRow>()
  private superseded = 0
  constructor(
    private readonly kind: EntityKind,
    private readonly database: TenantDatabase,
  ) {}

  async add(row: GoodRow) {
    if (this.byKey.delete(row.key)) this.superseded++
    this.byKey.set(row.key, row)
  }
  remove(key: string) {
    this.byKey.delete(key)
  }
  rows() {
    return [...this.byKey.values()]
  }

  async merge(): Promise<MergeResult> {
    const table = this.kind.table
    const columns = this.kind.columns ?? []
    const stage = `stage_${table}_${++stagingCounter}`
    await this.database.run(
      `CREATE TEMP TABLE ${stage} (external_id VARCHAR, ${columns.map((column) => `${column} VARCHAR, `).join('')}doc VARCHAR, doc_hash VARCHAR)`,
    )
    const appender = await this.database.appender(stage)
    for (const row of this.byKey.values()) {
      const json = JSON.stringify(row.record)
      appender.appendVarchar(row.key)
      for (const column of columns) appendNullable(appender, row.record[column])
      appender.appendVarchar(json)
      appender.appendVarchar(createHash('sha1').update(json).digest('base64url'))
      appender.endRow()
    }
    appender.flushSync()
    appender.closeSync()
    const counts = await this.database.one<{ inserted: number; updated: number; unchanged: number }>(
      `SELECT count(*) FILTER (WHERE t.external_id IS NULL) AS inserted,
              count(*) FILTER (WHERE t.doc_hash <> s.doc_hash) AS updated,
              count(*) FILTER (WHERE t.doc_hash = s.doc_hash) AS unchanged
       FROM ${stage} s LEFT JOIN ${table} t ON t.external_id = s.external_id`,
    )
    const list = columns.map((column) => `${column}, `).join('')
    await this.database.run(
      `INSERT INTO ${table} (external_id, ${list}doc, doc_hash, updated_at, change_seq)
       SELECT s.external_id, ${columns.map((column) => `s.${column}, `).join('')}s.doc::JSON, s.doc_hash, now(), nextval('change_seq')
       FROM ${stage} s LEFT JOIN ${table} t ON t.external_id = s.external_id
       WHERE t.external_id IS NULL OR t.doc_hash <> s.doc_hash
       ON CONFLICT (external_id) DO UPDATE SET ${columns.map((column) => `${column} = excluded.${column}, `).join('')}
         doc = excluded.doc, doc_hash = excluded.doc_hash, updated_at = excluded.updated_at, change_seq = excluded.change_seq`,
    )
    await this.database.run(`DROP TABLE ${stage}`)
    return {
      inserted: counts?.inserted ?? 0,
      updated: counts?.updated ?? 0,
      unchanged: counts?.unchanged ?? 0,
      superseded: this.superseded,
      conflicts: [],
    }
  }

  async drop() {}
}

function appendNullable(appender: DuckDBAppender, value: unknown) {
  if (value === undefined || value === null) appender.appendNull()
  else appender.appendVarchar(String(value))
}

/**
 * Skill events go, column by column, into temporary tables as they are checked (a file may hold
 * millions): one table per part of the file, in the file's order (the rows checked on this thread,
 * then each worker's range), filled through DuckDB's appender a vector at a time. Repeats within
 * the file and conflicts with stored events are then found in SQL by content hash, and the new
 * events inserted part by part.
 */
class SkillEventStaging implements Staging {
  private readonly id = ++stagingCounter
  private readonly parts: { table: string; appender: DuckDBAppender }[] = []
  private readonly pending = newStagedColumns()

  constructor(
    private readonly database: TenantDatabase,
    private readonly endActive: boolean,
  ) {}

  private async part(index: number) {
    while (this.parts.length <= index) {
      const table = `stage_skill_events_${this.id}_${this.parts.length}`
      await this.database.run(
        `CREATE OR REPLACE TEMP TABLE ${table} (line INTEGER, row INTEGER, external_id VARCHAR, employee_id VARCHAR,
           event_type VARCHAR, timestamp VARCHAR, content VARCHAR, source VARCHAR)`,
      )
      this.parts.push({ table, appender: await this.database.appender(table) })
    }
    return this.parts[index] as { table: string; appender: DuckDBAppender }
  }

  /** Parts the rows of worker threads go to, after part 0 (the rows added on this thread). */
  async prepareParts(count: number): Promise<(part: number, columns: StagedColumns) => void> {
    await this.part(count)
    return (part, columns) =>
      appendColumns((this.parts[part + 1] as { appender: DuckDBAppender }).appender, columns)
  }

  async add(row: GoodRow) {
    stageRow(this.pending, row)
    if (this.pending.row.length >= VECTOR) await this.flush()
  }

  private async flush() {
    if (this.pending.row.length === 0) return
    appendColumns((await this.part(0)).appender, this.pending)
    for (const column of Object.values(this.pending)) column.length = 0
  }

  remove() {
    throw new Error('skill events are not removed from staging')
  }
  rows(): GoodRow[] {
    return []
  }

  async merge(): Promise<MergeResult> {
    await this.closeParts()
    const stage = `stage_skill_events_${this.id}`
    const union = this.parts.map((part) => `SELECT * FROM ${part.table}`).join(' UNION ALL ')
    await this.database.run(`CREATE OR REPLACE TEMP VIEW ${stage} AS ${union}`)
    const { occurrences, stored } = await this.findRepeatsAndStored(stage)
    const record = `json_object('employee_id', s.employee_id, 'external_id', s.external_id, 'event_type', s.event_type,
                                'timestamp', s.timestamp, 'content', json(s.content), 'source', s.source)::VARCHAR AS record`
    // The spec's 409: a repeat with other content conflicts, whether the first copy is earlier
    // in this file or already stored; an identical repeat changes nothing.
    const repeated = await this.database.all<ConflictRow>(
      `SELECT s.line, s.row, s.external_id, ${record}
       FROM ${stage} s JOIN ${occurrences} o ON o.row = s.row
       JOIN ${occurrences} f ON f.external_id = o.external_id AND f.occurrence = 1
       WHERE o.occurrence > 1 AND o.content_hash <> f.content_hash`,
    )
    const conflicting = await this.database.all<ConflictRow>(
      `SELECT s.line, s.row, s.external_id, ${record}
       FROM ${stage} s JOIN ${stored} x ON x.row = s.row WHERE NOT x.same`,
    )
    const counts = await this.database.one<{ unchanged: number; skipped: number }>(
      `SELECT (SELECT count(*) FROM ${stored} WHERE same) + (SELECT count(*) FROM ${occurrences} WHERE occurrence > 1) AS unchanged,
              (SELECT count(*) FROM ${stored}) + (SELECT count(*) FROM ${occurrences} WHERE occurrence > 1) AS skipped`,
    )
    // Only when some rows are not new does the insert need the list of rows to leave out (a join
    // of the whole file otherwise).
    const inserted = await this.insertNew(
      counts?.skipped
        ? `WHERE s.row NOT IN (SELECT row FROM ${stored} UNION ALL SELECT row FROM ${occurrences} WHERE occurrence > 1)`
        : '',
    )
    if (this.endActive) await this.endActiveWorkingHistories(stage, occurrences)
    await this.dropTables()
    return {
      inserted,
      updated: 0,
      unchanged: (counts?.unchanged ?? 0) - repeated.length,
      conflicts: [
        ...repeated.map((row) => conflictOf(row, 'earlier in this file')),
        ...conflicting.map((row) => conflictOf(row, 'in the database')),
      ],
    }
  }

  /** Appends what waits and closes every part's appender. */
  private async closeParts() {
    await this.flush()
    await this.part(0)
    for (const part of this.parts) {
      part.appender.flushSync()
      part.appender.closeSync()
    }
    this.closed = true
  }

  /**
   * Numbers the repeats of an external_id within the file (only their rows), and finds the first
   * occurrences whose external_id is stored already (unchanged, or a 409): two tables.
   */
  private async findRepeatsAndStored(stage: string) {
    // The content as DuckDB's JSON reader writes it, and the content hash: DuckDB's 64-bit hash,
    // an identity check between versions of one event, not a defence against forgery.
    const hashed = (alias: string) =>
      `hash(${alias}.employee_id, ${alias}.event_type, ${alias}.timestamp, ${alias}.source, json(${alias}.content)::VARCHAR)::VARCHAR`
    const repeats = await this.database.one<{ repeats: boolean }>(
      `SELECT count(*) <> count(DISTINCT external_id) AS repeats FROM ${stage}`,
    )
    const occurrences = `${stage}_occurrences`
    await this.database.run(
      `CREATE OR REPLACE TEMP TABLE ${occurrences} AS
       SELECT row, external_id, ${hashed('s')} AS content_hash,
              row_number() OVER (PARTITION BY external_id ORDER BY row) AS occurrence
       FROM ${stage} s
       WHERE ${repeats?.repeats ? `external_id IN (SELECT external_id FROM ${stage} GROUP BY external_id HAVING count(*) > 1)` : 'false'}`,
    )
    const stored = `${stage}_stored`
    await this.database.run(
      `CREATE OR REPLACE TEMP TABLE ${stored} AS
       SELECT s.row, e.content_hash = ${hashed('s')} AS same
       FROM ${stage} s JOIN skill_events e ON e.external_id = s.external_id
       WHERE s.row NOT IN (SELECT row FROM ${occurrences} WHERE occurrence > 1)`,
    )
    return { occurrences, stored }
  }

  /** Inserts the new events, part by part in the file's order, leaving out the rows `skip` names. */
  private async insertNew(skip: string): Promise<number> {
    let inserted = 0
    for (const part of this.parts) {
      const result = await this.database.one<{ Count: number }>(
        `INSERT INTO skill_events (external_id, employee_id, event_type, timestamp, content, source, content_hash, received_at, change_seq)
         SELECT s.external_id, s.employee_id, s.event_type, s.timestamp::DATE, s.content, s.source,
                hash(s.employee_id, s.event_type, s.timestamp, s.source, s.content::VARCHAR)::VARCHAR, now(), nextval('change_seq')
         FROM (SELECT * REPLACE (json(content) AS content) FROM ${part.table}) s ${skip}`,
      )
      inserted += Number(result?.Count ?? 0)
    }
    return inserted
  }

  /** Each employee's new events end their earlier active working histories, on the newest event's date. */
  private async endActiveWorkingHistories(stage: string, occurrences: string) {
    const ends = await this.database.all<{ employee_id: string; end_date: string; except: string[] }>(
      `SELECT employee_id, strftime(max(timestamp::DATE), '%Y-%m-%d') AS end_date, list(external_id) AS except
       FROM ${stage} WHERE row NOT IN (SELECT row FROM ${occurrences} WHERE occurrence > 1) GROUP BY employee_id`,
    )
    await endActiveWorkingHistory(this.database, ends)
  }

  private closed = false

  private async dropTables() {
    const stage = `stage_skill_events_${this.id}`
    await this.database.run(`DROP VIEW IF EXISTS ${stage}`)
    await this.database.run(`DROP TABLE IF EXISTS ${stage}_occurrences`)
    await this.database.run(`DROP TABLE IF EXISTS ${stage}_stored`)
    for (const part of this.parts.splice(0)) await this.database.run(`DROP TABLE IF EXISTS ${part.table}`)
  }

  async drop() {
    if (!this.closed) for (const part of this.parts) part.appender.closeSync()
    this.closed = true
    await this.dropTables()
  }
}

/** Rows per DuckDB vector: the appender takes at most this many rows per data chunk. */
const VECTOR = 2048
const STAGE_TYPES = [INTEGER, INTEGER, VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR, VARCHAR]

/** Appends staged columns a data chunk (one vector) at a time. */
function appendColumns(appender: DuckDBAppender, columns: StagedColumns): void {
  const all = [
    columns.line,
    columns.row,
    columns.external_id,
    columns.employee_id,
    columns.event_type,
    columns.timestamp,
    columns.content,
    columns.source,
  ]
  const total = columns.row.length
  for (let start = 0; start < total; start += VECTOR) {
    const count = Math.min(VECTOR, total - start)
    const chunk = DuckDBDataChunk.create(STAGE_TYPES, count)
    chunk.setColumns(
      start === 0 && count === total ? all : all.map((column) => column.slice(start, start + count)),
    )
    appender.appendDataChunk(chunk)
  }
}

/** Where a staging file for a skill events file goes. */
export const stagingFile = (label: string) =>
  join(tmpdir(), `skillhouse-stage-${process.pid}-${++stagingCounter}-${label}.ndjson`)

interface ConflictRow {
  line: number | null
  row: number
  external_id: string
  record: string
  [key: string]: unknown
}

/** A skill event the merge refused: its external_id exists `where` with other content. */
function conflictOf(row: ConflictRow, where: string): { row: GoodRow; problem: Problem } {
  return {
    row: { line: row.line, row: row.row, key: row.external_id, record: JSON.parse(row.record) },
    problem: {
      field: 'external_id',
      reason: `skill event '${row.external_id}' already exists ${where} with different content (409 Conflict); a skill event cannot be changed, send a new one with its own external_id`,
    },
  }
}

/**
 * Rows held in memory by their key (the last of a key wins), merged one by one: for the small
 * tables whose merge decides per row (a conflict, or an answer that replaces the last).
 */
abstract class KeyedStaging implements Staging {
  protected readonly byKey = new Map<string, GoodRow>()
  constructor(protected readonly database: TenantDatabase) {}
  async add(row: GoodRow) {
    this.byKey.set(row.key, row)
  }
  remove(key: string) {
    this.byKey.delete(key)
  }
  rows() {
    return [...this.byKey.values()]
  }
  abstract merge(): Promise<MergeResult>
  async drop() {}
}

/** Custom property definitions: a definition's type cannot change once made. */
class DefinitionStaging extends KeyedStaging {
  async merge(): Promise<MergeResult> {
    const result: MergeResult = { inserted: 0, updated: 0, unchanged: 0, conflicts: [] }
    for (const row of this.byKey.values()) {
      const { entity_type, property_name, property_type } = row.record as Record<string, string>
      const existing = await this.database.one<{ property_type: string }>(
        'SELECT property_type FROM custom_property_definitions WHERE entity_type = $1 AND property_name = $2',
        [entity_type as string, property_name as string],
      )
      if (!existing) {
        await this.database.run('INSERT INTO custom_property_definitions VALUES ($1, $2, $3, now())', [
          entity_type as string,
          property_name as string,
          property_type as string,
        ])
        result.inserted++
      } else if (existing.property_type === property_type) {
        result.unchanged++
      } else {
        result.conflicts.push({
          row,
          problem: {
            field: 'property_type',
            reason: `custom property '${property_name}' of ${entity_type} is already defined as ${existing.property_type} (409 Conflict); a definition's type cannot change`,
          },
        })
      }
    }
    return result
  }
}

/** Match feedback: one answer per employee and vacancy, the latest wins. */
class MatchFeedbackStaging extends KeyedStaging {
  async merge(): Promise<MergeResult> {
    const result: MergeResult = { inserted: 0, updated: 0, unchanged: 0, conflicts: [] }
    for (const row of this.byKey.values()) {
      const { employee_id, vacancy_id, feedback, timestamp } = row.record as Record<string, string>
      const existing = await this.database.one<{ feedback: string; timestamp: Date }>(
        'SELECT feedback, timestamp FROM match_feedback WHERE employee_id = $1 AND vacancy_id = $2',
        [employee_id as string, vacancy_id as string],
      )
      if (
        existing &&
        existing.feedback === feedback &&
        existing.timestamp.toISOString().slice(0, 10) === timestamp
      ) {
        result.unchanged++
        continue
      }
      await this.database.run(
        `INSERT INTO match_feedback VALUES ($1, $2, $3, $4::DATE, nextval('change_seq'))
         ON CONFLICT (employee_id, vacancy_id) DO UPDATE SET feedback = excluded.feedback, timestamp = excluded.timestamp, change_seq = excluded.change_seq`,
        [employee_id as string, vacancy_id as string, feedback as string, timestamp as string],
      )
      if (existing) result.updated++
      else result.inserted++
    }
    return result
  }
}
