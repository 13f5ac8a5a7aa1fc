import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { errors } from '../errors/skillhouse-error.js'
import type { EntityKind } from '../records/entity-kinds.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { PhaseTimer } from '../util/phase-timer.js'
import { csvHeaderProblem } from './csv-header.js'
import type {
  FileFacts,
  FileToIngest,
  IngestFileOptions,
  IngestFileResult,
  IngestOutcome,
  IngestPath,
} from './ingest-types.js'
import { csvDelimiterProblem, csvHeaderColumns, type SourceFormat } from './read-source.js'
import { rowIngestPath } from './row-ingest.js'
import { sqlIngestPath } from './sql-ingest.js'
import { encodingOf, type TextEncoding, transcodeToUtf8, Utf8Check } from './text-encoding.js'

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

/**
 * The ways to try, in order: the SQL path first when it may take the file (not for `strict` or
 * `end_active_working_history`, whose checks are JavaScript's, nor for a transcoded copy), then
 * the row-by-row path, which takes every file.
 */
function ingestPathsFor(options: IngestFileOptions, readPath: string): IngestPath[] {
  const sqlMayTake =
    options.sqlPath !== false &&
    !options.strict &&
    !options.endActiveWorkingHistory &&
    readPath === options.path
  return sqlMayTake ? [sqlIngestPath, rowIngestPath] : [rowIngestPath]
}

async function ingestUtf8File(
  options: IngestFileOptions,
  readPath: string,
  encoding: TextEncoding,
): Promise<IngestFileResult> {
  const timer = new PhaseTimer()
  const delimiter = options.delimiter ?? ','
  if (options.format === 'csv') {
    const problem = await csvDelimiterProblem(readPath, delimiter)
    if (problem) throw errors.badRequest(problem.replace(readPath, options.path))
    const header = csvHeaderProblem(await csvHeaderColumns(readPath, delimiter), options.kind)
    if (header) throw errors.badRequest(`${options.path}: ${header}`)
  }
  // The checksum is read beside the paths' work (the SQL path's runs in DuckDB's threads).
  const file: FileToIngest = {
    options,
    readPath,
    encoding,
    delimiter,
    facts: options.facts ?? readFileFacts(options.path),
  }
  let sqlDeclined: string | undefined
  for (const path of ingestPathsFor(options, readPath)) {
    const outcome = await path.ingest(file, timer)
    if (!('declined' in outcome)) return resultOf(options, outcome, timer, sqlDeclined)
    if (options.kind.storage === 'skill_events') sqlDeclined = outcome.declined
  }
  throw errors.internal(`no way of ingesting ${options.path} took the file`)
}

/** The answer for a file an ingest path took. */
function resultOf(
  options: IngestFileOptions,
  outcome: IngestOutcome,
  timer: PhaseTimer,
  sqlDeclined: string | undefined,
): IngestFileResult {
  return {
    file: options.path,
    entity: options.kind.entity,
    format: options.format,
    checksum: outcome.checksum,
    rows_read: outcome.rowsRead,
    rows_inserted: outcome.inserted,
    rows_updated: outcome.updated,
    rows_unchanged: outcome.unchanged,
    rows_superseded: outcome.superseded,
    rows_rejected: outcome.rejects.length,
    seconds: timer.elapsed(),
    checked: outcome.checked,
    ...(sqlDeclined !== undefined ? { sql_declined: sqlDeclined } : {}),
    phases: timer.phases,
    rejects: outcome.rejects,
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
