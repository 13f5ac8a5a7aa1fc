import type { EntityKind, ReferenceTarget } from '../records/entity-kinds.js'
import type { PropertyType } from '../schemas/custom-properties.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { PhaseTimer } from '../util/phase-timer.js'
import type { CsvDelimiter, SourceFormat } from './read-source.js'
import type { Reject } from './rejects.js'
import type { InvalidUtf8, TextEncoding } from './text-encoding.js'

/**
 * The types the parts of ingest hand each other: what a file is ingested with and what comes of
 * it, the two ways a file is ingested (`IngestPath`), a checked row, the facts of one read of a
 * file, and what the check workers and the main thread send each other.
 */

/** How a large file of skill events is checked on worker threads (parallel-ndjson.ts). */
export interface ParallelCheckThreads {
  /** The worker script (ndjson-check-worker.js); default: the compiled one beside this module. */
  script?: URL | undefined
  /** The smallest file checked on threads; default SKILLHOUSE_PARALLEL_MIN_BYTES, else 16 MiB. */
  minBytes?: number | undefined
}

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
  checkThreads?: ParallelCheckThreads
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

/** A UTF-8 file to ingest, as `ingestFile` hands it to an ingest path. */
export interface FileToIngest {
  options: IngestFileOptions
  /** Where the rows are read: the file itself, or its UTF-8 copy when it is in another encoding. */
  readPath: string
  encoding: TextEncoding
  delimiter: CsvDelimiter
  /** The file's checksum and what else its read tells, read beside the path's work. */
  facts: Promise<FileFacts>
}

/** What an ingest path made of a file that it took. */
export interface IngestOutcome {
  checked: 'sql' | 'rows'
  checksum: string
  rowsRead: number
  inserted: number
  updated: number
  unchanged: number
  superseded: number
  rejects: Reject[]
}

/**
 * One way of ingesting a file: the SQL path (sql-ingest.ts), which takes a file only when it can
 * settle all of it and otherwise declines saying why, or the row-by-row path (row-ingest.ts),
 * which takes every file. `ingestFile` chooses which to try, in order; each times its phases on
 * the file's timer.
 */
export interface IngestPath {
  readonly name: 'sql' | 'rows'
  ingest(file: FileToIngest, timer: PhaseTimer): Promise<IngestOutcome | { declined: string }>
}

/** A row that passed the schema, waiting for the checks that need the whole file. */
export interface GoodRow {
  line: number | null
  row: number
  key: string
  record: Record<string, unknown>
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

/** Checked skill events column by column, in the order of the staging tables' columns. */
export interface StagedColumns {
  line: (number | null)[]
  row: number[]
  external_id: string[]
  employee_id: string[]
  event_type: string[]
  timestamp: string[]
  content: string[]
  source: string[]
}

/**
 * What the main thread hands a check worker: one byte range of an NDJSON file of skill events, or
 * of the cells of a CSV file as DuckDB read them (one JSON object of column → text per line).
 */
export interface NdjsonCheckTask {
  path: string
  file: string
  /** `ndjson`: the rows themselves; `csv-cells`: CSV rows, one per line, so a row's line is its position. */
  format: 'ndjson' | 'csv-cells'
  start: number
  /** Exclusive end; the range starts and ends at line boundaries. */
  end: number
  firstLine: number
  entity: string
  settings: TenantSettings
  definitions: [string, PropertyType][]
  referenceIds: Partial<Record<ReferenceTarget, string[]>>
}

/** What a check worker sends the main thread. */
export type NdjsonCheckMessage =
  | { type: 'progress'; rows: number }
  | { type: 'rows'; columns: StagedColumns }
  | { type: 'rejects'; rejects: Reject[] }
  | { type: 'done'; rows: number; rejects: Reject[] }
