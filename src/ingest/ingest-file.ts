import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { basename } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import type { EventInput } from '../profiles/evidence.js'
import { strictCheck } from '../profiles/strict-check.js'
import type { PropertyType, TenantSettings } from '../schemas/index.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { EntityKind } from './entity-kinds.js'
import { checkInParallel, PARALLEL_PARTS, useParallelCheck } from './parallel-ndjson.js'
import {
  type CsvDelimiter,
  csvDelimiterProblem,
  csvRecordLines,
  readSource,
  type SourceFormat,
  type SourceRow,
} from './read-source.js'
import { ReferenceIndex } from './reference-index.js'
import type { Problem, Reject } from './rejects.js'
import { checkRow, type RowCheckContext } from './row-check.js'
import { ingestInSql } from './sql-ingest.js'
import { stagingFor } from './staging.js'
import {
  encodingOf,
  type InvalidUtf8,
  notUtf8,
  type TextEncoding,
  transcodeToUtf8,
  Utf8Check,
} from './text-encoding.js'

export interface IngestFileOptions {
  database: TenantDatabase
  settings: TenantSettings
  path: string
  format: SourceFormat
  kind: EntityKind
  onProgress?: (rowsRead: number) => void
  /** 4.2's option: new events end the employee's active working histories. */
  endActiveWorkingHistory?: boolean
  /** 4.2's `strict`: a skill event from which no profile can be built is rejected. */
  strict?: boolean
  /** Try the SQL path first (sql-ingest.ts; default true): false checks every row in JavaScript. */
  sqlPath?: boolean
  /** The CSV field delimiter (default comma). */
  delimiter?: CsvDelimiter
  /** The text encoding (default: UTF-8, or UTF-16 when the file starts with its byte order mark). */
  encoding?: TextEncoding
  /** The file's facts when the caller has read them already. */
  facts?: Promise<FileFacts>
}

export interface IngestFileResult {
  file: string
  entity: string
  format: SourceFormat
  checksum: string
  rows_read: number
  rows_inserted: number
  rows_updated: number
  rows_unchanged: number
  /** Rows replaced by a later row of the same external_id in the file (the last one wins). */
  rows_superseded: number
  rows_rejected: number
  seconds: number
  /**
   * How the rows were checked: all at once in DuckDB (`sql`), row by row in JavaScript, or not at
   * all: the same content was ingested whole before (`unchanged`, the nightly run).
   */
  checked: 'sql' | 'rows' | 'unchanged'
  /** Why the SQL path left the file to the row-by-row check (when it was tried). */
  sql_declined?: string
  /** Seconds per phase: checksum, sql (the SQL path, taken or tried), read_and_check, merge (in the transaction), lines. */
  phases: Record<string, number>
  rejects: Reject[]
}

/** A row that passed the schema, waiting for the checks that need the whole file. */
export interface GoodRow {
  line: number | null
  row: number
  key: string
  record: Record<string, unknown>
}

/**
 * Ingests one file into one entity: every row checked by its zod schema, its custom properties
 * and its references; good rows upserted in one transaction; bad rows returned as rejects with
 * line, field path and reason. Skill events keep the spec's 409: the same external_id with other
 * content is rejected, the identical row again changes nothing.
 */
export async function ingestFile(options: IngestFileOptions): Promise<IngestFileResult> {
  const encoding = options.format === 'parquet' ? 'utf-8' : encodingOf(options.path, options.encoding)
  if (encoding === 'utf-8') return ingestUtf8File(options, options.path, encoding)
  // Text in another encoding is read from a UTF-8 copy; its checksum and name stay the file's own.
  const copy = await transcodeToUtf8(options.path, encoding)
  try {
    return await ingestUtf8File(options, copy.path, encoding)
  } finally {
    copy.done()
  }
}

async function ingestUtf8File(
  options: IngestFileOptions,
  readPath: string,
  encoding: TextEncoding,
): Promise<IngestFileResult> {
  const started = performance.now()
  const { database, kind, path } = options
  const file = basename(path)
  const delimiter = options.delimiter ?? ','
  if (options.format === 'csv') {
    const problem = await csvDelimiterProblem(readPath, delimiter)
    if (problem) throw errors.badRequest(problem.replace(readPath, path))
  }
  const phases: Record<string, number> = {}
  let mark = performance.now()
  const phase = (name: string) => {
    const now = performance.now()
    phases[name] = Math.round(now - mark) / 1000
    mark = now
  }
  // The checksum is read beside the SQL path's work (which runs in DuckDB's threads).
  const factsRead = options.facts ?? readFileFacts(path)
  const checksumRead = factsRead.then((facts) => facts.checksum)
  let sqlDeclined: string | undefined
  if (options.sqlPath !== false && !options.strict && !options.endActiveWorkingHistory && readPath === path) {
    const sql = await ingestInSql({
      database,
      settings: options.settings,
      path,
      format: options.format,
      kind,
      delimiter,
      facts: factsRead,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    })
    phase('sql')
    if ('inserted' in sql) {
      options.onProgress?.(sql.rowsRead)
      return {
        file: path,
        entity: kind.entity,
        format: options.format,
        checksum: await checksumRead,
        rows_read: sql.rowsRead,
        rows_inserted: sql.inserted,
        rows_updated: 0,
        rows_unchanged: 0,
        rows_superseded: 0,
        rows_rejected: 0,
        seconds: (performance.now() - started) / 1000,
        checked: 'sql',
        phases,
        rejects: [],
      }
    }
    if (kind.storage === 'skill_events') sqlDeclined = sql.declined
  }
  const checksum = await checksumRead
  const facts = await factsRead
  if (options.format !== 'parquet' && encoding === 'utf-8' && facts.invalidUtf8)
    throw notUtf8(path, facts.invalidUtf8)
  phase('checksum')
  const definitions = await loadDefinitions(database, kind)
  const references = new ReferenceIndex(database)
  const staging = await stagingFor(kind, database, {
    endActiveWorkingHistory: options.endActiveWorkingHistory === true,
  })
  const rejects: Reject[] = []
  const reject = (source: SourceRow, problems: Problem[], record?: unknown) => {
    const first = problems[0] ?? { field: '', reason: 'rejected' }
    rejects.push({
      file,
      line: source.line,
      row: source.row,
      field: first.field,
      reason: first.reason,
      problems,
      record,
    })
  }
  let rowsRead = 0
  await references.load(kind.referenceTargets)
  const context: RowCheckContext = { kind, settings: options.settings, definitions, references }

  const strict = options.strict && kind.storage === 'skill_events' ? await strictCheck(database) : undefined
  if (!strict && useParallelCheck(kind, options.format, readPath) && staging.prepareParts) {
    const checked = await checkInParallel({
      path: readPath,
      format: options.format as 'ndjson' | 'csv',
      kind,
      settings: options.settings,
      definitions,
      referenceIds: references.ids(),
      delimiter,
      onRows: await staging.prepareParts(PARALLEL_PARTS),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    })
    rowsRead = checked.rowsRead
    rejects.push(...checked.rejects)
  } else {
    for await (const batch of readSource(readPath, options.format, {
      schema: kind.schema,
      delimiter,
      ...(definitions ? { customPropertyTypes: definitions } : {}),
    })) {
      for (const source of batch) {
        rowsRead++
        if (source.problem) {
          reject(source, [{ field: source.problem.field, reason: source.problem.message }], source.record)
          continue
        }
        const checked = checkRow(source.record, context)
        if (checked.problems) {
          reject(source, checked.problems, source.record)
          continue
        }
        const record = checked.record
        if (strict && !strict({ ...(record as unknown as EventInput), language: null, ended_on: null })) {
          reject(
            source,
            [
              {
                field: 'content',
                reason:
                  'strict: no skill profile can be built from this event (no skill of the vocabulary in its content); send it without strict to store it with an empty profile',
              },
            ],
            source.record,
          )
          continue
        }
        await staging.add({ line: source.line, row: source.row, key: kind.key(record), record })
      }
      options.onProgress?.(rowsRead)
    }
  }

  // Checks that need the whole file: parents of organisational units (any order in the file) and cycles.
  if (kind.entity === 'organisational_units') {
    for (const problem of await organisationalUnitProblems(staging.rows(), database)) {
      reject(problem.row, [problem.problem], problem.row.record)
      staging.remove(problem.row.key)
    }
  }

  phase('read_and_check')
  const counts = await database.transaction(async () => {
    const merged = await staging.merge()
    for (const conflict of merged.conflicts) {
      reject(conflict.row, [conflict.problem], conflict.row.record)
    }
    await database.run('INSERT INTO ingested_files VALUES ($1, $2, $3, $4, $5, $6, now())', [
      checksum,
      path,
      kind.entity,
      rowsRead,
      merged.inserted + merged.updated,
      rejects.length,
    ])
    return merged
  })
  await staging.drop()
  phase('merge')

  if (options.format === 'csv' && rejects.some((entry) => entry.line === null)) {
    await assignCsvLines(readPath, rejects)
  }
  return {
    file: path,
    entity: kind.entity,
    format: options.format,
    checksum,
    rows_read: rowsRead,
    rows_inserted: counts.inserted,
    rows_updated: counts.updated,
    rows_unchanged: counts.unchanged,
    rows_superseded: counts.superseded ?? 0,
    rows_rejected: rejects.length,
    seconds: (performance.now() - started) / 1000,
    checked: 'rows',
    ...(sqlDeclined !== undefined ? { sql_declined: sqlDeclined } : {}),
    phases,
    rejects,
  }
}

/**
 * The result of a file whose content (its sha256) was ingested into the same entity before with
 * no row rejected, without reading its rows again (the nightly run), or null when it was not.
 */
export async function ingestedBefore(
  database: TenantDatabase,
  path: string,
  format: SourceFormat,
  kind: EntityKind,
  facts: Promise<FileFacts>,
): Promise<IngestFileResult | null> {
  const started = performance.now()
  const { checksum } = await facts
  const earlier = await database.one<{ rows_read: number }>(
    `SELECT rows_read FROM ingested_files WHERE checksum = $1 AND entity = $2 AND rows_rejected = 0
      ORDER BY finished_at DESC LIMIT 1`,
    [checksum, kind.entity],
  )
  if (!earlier) return null
  const rows = Number(earlier.rows_read)
  return {
    file: path,
    entity: kind.entity,
    format,
    checksum,
    rows_read: rows,
    rows_inserted: 0,
    rows_updated: 0,
    rows_unchanged: rows,
    rows_superseded: 0,
    rows_rejected: 0,
    seconds: (performance.now() - started) / 1000,
    checked: 'unchanged',
    phases: {},
    rejects: [],
  }
}

async function loadDefinitions(
  database: TenantDatabase,
  kind: EntityKind,
): Promise<Map<string, PropertyType> | undefined> {
  if (!kind.customPropertyType) return undefined
  const rows = await database.all<{ property_name: string; property_type: PropertyType }>(
    'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1',
    [kind.customPropertyType],
  )
  return new Map(rows.map((row) => [row.property_name, row.property_type]))
}

/** Unknown parents and parent chains that would make a cycle, in file order. */
async function organisationalUnitProblems(rows: GoodRow[], database: TenantDatabase) {
  const parents = new Map<string, string | null>()
  for (const row of await database.all<{ external_id: string; parent_id: string | null }>(
    'SELECT external_id, parent_id FROM organisational_units',
  )) {
    parents.set(row.external_id, row.parent_id)
  }
  const inFile = new Set(rows.map((row) => row.key))
  const problems: { row: GoodRow; problem: Problem }[] = []
  for (const row of rows) {
    const parent = (row.record.parent_id as string | null | undefined) ?? null
    if (parent !== null && !parents.has(parent) && !inFile.has(parent)) {
      problems.push({
        row,
        problem: {
          field: 'parent_id',
          reason: `organisational unit '${parent}' does not exist; ingest it first (404 Not Found)`,
        },
      })
      continue
    }
    // Walk up from the new parent: reaching the row itself means the edge closes a cycle.
    const seen = new Set<string>([row.key])
    let cursor = parent
    let cycle: string[] | null = null
    const chain = [row.key]
    while (cursor !== null) {
      chain.push(cursor)
      if (seen.has(cursor)) {
        cycle = chain
        break
      }
      seen.add(cursor)
      cursor = parents.get(cursor) ?? null
    }
    if (cycle) {
      problems.push({
        row,
        problem: {
          field: 'parent_id',
          reason: `parent chain makes a cycle: ${cycle.join(' → ')}; each unit has at most one parent and no unit may be its own ancestor`,
        },
      })
      continue
    }
    parents.set(row.key, parent)
  }
  return problems
}

async function assignCsvLines(path: string, rejects: Reject[]): Promise<void> {
  const rejectedLines = new Set(
    rejects.filter((entry) => entry.row === 0 && entry.line !== null).map((entry) => entry.line as number),
  )
  const lines = await csvRecordLines(path, rejectedLines)
  for (const entry of rejects) {
    if (entry.line === null && entry.row > 0) entry.line = lines[entry.row - 1] ?? null
  }
}

/**
 * What one read of a file tells: its checksum, the longest line in bytes, and whether it holds a
 * form feed or vertical tab byte (DuckDB's readers take them for white space, JSON.parse does
 * not: the SQL path leaves such a file row by row).
 */
export interface FileFacts {
  checksum: string
  longestLine: number
  formFeedOrVerticalTab: boolean
  /** Where the file stops being UTF-8, or null. */
  invalidUtf8: InvalidUtf8 | null
}

export async function readFileFacts(path: string): Promise<FileFacts> {
  const hash = createHash('sha256')
  let longestLine = 0
  let lineStart = 0
  let offset = 0
  let formFeedOrVerticalTab = false
  const utf8 = new Utf8Check()
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    const bytes = chunk as Buffer
    hash.update(bytes)
    utf8.push(bytes)
    if (!formFeedOrVerticalTab) formFeedOrVerticalTab = bytes.includes(0x0c) || bytes.includes(0x0b)
    for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) {
      longestLine = Math.max(longestLine, offset + at - lineStart)
      lineStart = offset + at + 1
    }
    offset += bytes.length
  }
  longestLine = Math.max(longestLine, offset - lineStart)
  return { checksum: hash.digest('hex'), longestLine, formFeedOrVerticalTab, invalidUtf8: utf8.end() }
}
