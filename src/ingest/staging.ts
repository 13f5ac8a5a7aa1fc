import { createHash } from 'node:crypto'
import { createWriteStream, rmSync, type WriteStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type DuckDBAppender, listValue } from '@duckdb/node-api'
import { endActiveWorkingHistory } from '../profiles/working-history.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { EntityKind } from './entity-kinds.js'
import type { GoodRow } from './ingest-file.js'
import type { Problem } from './rejects.js'

export interface MergeResult {
  inserted: number
  updated: number
  unchanged: number
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
): Promise<Staging & { adopt?: (file: string) => void }> {
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
  constructor(
    private readonly kind: EntityKind,
    private readonly database: TenantDatabase,
  ) {}

  async add(row: GoodRow) {
    this.byKey.delete(row.key)
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
 * Skill events stream into a temporary NDJSON file as they are checked (a file may hold
 * millions), which DuckDB's parallel reader then loads in one statement. Repeats within the
 * file and conflicts with stored events are found in SQL, by content hash.
 */
class SkillEventStaging implements Staging {
  private readonly file: string
  private readonly stream: WriteStream
  private buffer: string[] = []
  private size = 0

  constructor(
    private readonly database: TenantDatabase,
    private readonly endActive: boolean,
  ) {
    this.file = stagingFile('main')
    this.stream = createWriteStream(this.file)
  }

  private readonly adopted: string[] = []

  /** Takes over a staging file written elsewhere (by an ingest worker) with `skillEventStagingLine`. */
  adopt(file: string) {
    this.adopted.push(file)
  }

  async add(row: GoodRow) {
    this.buffer.push(skillEventStagingLine(row))
    this.size++
    if (this.size >= 4096) await this.flush()
  }

  private async flush() {
    if (this.buffer.length === 0) return
    const ok = this.stream.write(`${this.buffer.join('\n')}\n`)
    this.buffer = []
    this.size = 0
    if (!ok) await new Promise<void>((resolve) => this.stream.once('drain', () => resolve()))
  }

  remove() {
    throw new Error('skill events are not removed from staging')
  }
  rows(): GoodRow[] {
    return []
  }

  async merge(): Promise<MergeResult> {
    await this.flush()
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject)
      this.stream.end(() => resolve())
    })
    const stage = `stage_skill_events_${stagingCounter}`
    const files = { files: listValue([this.file, ...this.adopted]) }
    const columns = `columns = {line: 'INTEGER', row: 'INTEGER', external_id: 'VARCHAR', employee_id: 'VARCHAR',
         event_type: 'VARCHAR', timestamp: 'VARCHAR', content: 'JSON', source: 'VARCHAR'}`
    // The content hash is DuckDB's 64-bit hash: an identity check between versions of one event,
    // not a defence against forgery, and several times cheaper than md5 over millions of rows.
    await this.database.run(
      `CREATE TEMP TABLE ${stage} AS
       SELECT *, hash(employee_id, event_type, timestamp, source, content::VARCHAR)::VARCHAR AS content_hash, 1 AS occurrence
       FROM read_ndjson($files, ${columns})`,
      files,
    )
    // Numbering repeats of an external_id costs a sort of the whole file: only when there are repeats.
    const repeats = await this.database.one<{ repeats: boolean }>(
      `SELECT count(*) <> count(DISTINCT external_id) AS repeats FROM ${stage}`,
    )
    if (repeats?.repeats) {
      await this.database.run(
        `CREATE OR REPLACE TEMP TABLE ${stage} AS
         SELECT * EXCLUDE (occurrence), row_number() OVER (PARTITION BY external_id ORDER BY row) AS occurrence FROM ${stage}`,
      )
    }
    const record = `json_object('employee_id', s.employee_id, 'external_id', s.external_id, 'event_type', s.event_type,
                                'timestamp', s.timestamp, 'content', s.content, 'source', s.source)::VARCHAR AS record`
    // The spec's 409: a repeat with other content conflicts, whether the first copy is earlier
    // in this file or already stored; an identical repeat changes nothing.
    const repeated = await this.database.all<ConflictRow>(
      `SELECT s.line, s.row, s.external_id, ${record}
       FROM ${stage} s JOIN ${stage} f ON f.external_id = s.external_id AND f.occurrence = 1
       WHERE s.occurrence > 1 AND s.content_hash <> f.content_hash`,
    )
    const stored = await this.database.all<ConflictRow>(
      `SELECT s.line, s.row, s.external_id, ${record}
       FROM ${stage} s JOIN skill_events e ON e.external_id = s.external_id
       WHERE s.occurrence = 1 AND e.content_hash <> s.content_hash`,
    )
    const counts = await this.database.one<{ inserted: number; unchanged: number }>(
      `SELECT count(*) FILTER (WHERE e.external_id IS NULL AND s.occurrence = 1) AS inserted,
              count(*) FILTER (WHERE (e.content_hash = s.content_hash) OR (s.occurrence > 1)) AS unchanged
       FROM ${stage} s LEFT JOIN skill_events e ON e.external_id = s.external_id`,
    )
    await this.database.run(
      `INSERT INTO skill_events (external_id, employee_id, event_type, timestamp, content, source, content_hash, received_at, change_seq)
       SELECT s.external_id, s.employee_id, s.event_type, s.timestamp::DATE, s.content, s.source, s.content_hash,
              now(), nextval('change_seq')
       FROM ${stage} s ANTI JOIN skill_events e ON e.external_id = s.external_id
       WHERE s.occurrence = 1`,
    )
    if (this.endActive) {
      // Each employee's new events end their earlier active working histories, on the newest event's date.
      const ends = await this.database.all<{ employee_id: string; end_date: string; except: string[] }>(
        `SELECT employee_id, strftime(max(timestamp::DATE), '%Y-%m-%d') AS end_date, list(external_id) AS except
         FROM ${stage} WHERE occurrence = 1 GROUP BY employee_id`,
      )
      await endActiveWorkingHistory(this.database, ends)
    }
    await this.database.run(`DROP TABLE ${stage}`)
    const conflict = (row: ConflictRow, where: string) => ({
      row: { line: row.line, row: row.row, key: row.external_id, record: JSON.parse(row.record) },
      problem: {
        field: 'external_id',
        reason: `skill event '${row.external_id}' already exists ${where} with different content (409 Conflict); a skill event cannot be changed, send a new one with its own external_id`,
      },
    })
    return {
      inserted: counts?.inserted ?? 0,
      updated: 0,
      unchanged: (counts?.unchanged ?? 0) - repeated.length,
      conflicts: [
        ...repeated.map((row) => conflict(row, 'earlier in this file')),
        ...stored.map((row) => conflict(row, 'in the database')),
      ],
    }
  }

  async drop() {
    if (!this.stream.closed) this.stream.destroy()
    for (const file of [this.file, ...this.adopted]) rmSync(file, { force: true })
  }
}

/** One checked skill event as a line of a staging file. */
export function skillEventStagingLine(row: GoodRow): string {
  const record = row.record
  return JSON.stringify({
    line: row.line,
    row: row.row,
    external_id: row.key,
    employee_id: record.employee_id,
    event_type: record.event_type,
    timestamp: record.timestamp,
    content: record.content,
    source: record.source,
  })
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

/** Custom property definitions: a definition's type cannot change once made. */
class DefinitionStaging implements Staging {
  private readonly byKey = new Map<string, GoodRow>()
  constructor(private readonly database: TenantDatabase) {}
  async add(row: GoodRow) {
    this.byKey.set(row.key, row)
  }
  remove(key: string) {
    this.byKey.delete(key)
  }
  rows() {
    return [...this.byKey.values()]
  }
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
  async drop() {}
}

/** Match feedback: one answer per employee and vacancy, the latest wins. */
class MatchFeedbackStaging implements Staging {
  private readonly byKey = new Map<string, GoodRow>()
  constructor(private readonly database: TenantDatabase) {}
  async add(row: GoodRow) {
    this.byKey.set(row.key, row)
  }
  remove(key: string) {
    this.byKey.delete(key)
  }
  rows() {
    return [...this.byKey.values()]
  }
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
  async drop() {}
}
