import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream, rmSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { DuckDBValue } from '@duckdb/node-api'
import { parseString } from 'fast-csv'
import type { z } from 'zod'
import { errors } from '../errors/skillhouse-error.js'
import { csvCellsToRecord } from '../records/csv-record.js'
import type { PropertyType } from '../schemas/custom-properties.js'
import { LIMITS } from '../schemas/limits.js'
import { createDuckDBInstance } from '../store/duckdb-instance.js'
import { LineSplitter, tooLongReason, withoutByteOrderMark } from './line-splitter.js'

export type SourceFormat = 'csv' | 'ndjson' | 'json' | 'parquet'

/** One input row: where it stands in the file, and its record or why it could not be read. */
export interface SourceRow {
  /** 1-based physical line (text formats); the header of a CSV is line 1. */
  line: number | null
  /** 1-based position among the file's rows. */
  row: number
  record?: Record<string, unknown>
  problem?: { field: string; message: string }
}

export interface ReadOptions {
  schema: z.ZodType
  /** The CSV field delimiter (default comma). */
  delimiter?: CsvDelimiter
  customPropertyTypes?: ReadonlyMap<string, PropertyType>
}

export function formatOf(path: string): SourceFormat | undefined {
  const lower = path.toLowerCase()
  if (lower.endsWith('.csv')) return 'csv'
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson'
  if (lower.endsWith('.json')) return 'json'
  if (lower.endsWith('.parquet')) return 'parquet'
  return undefined
}

/** Reads a file as batches of rows, whatever its format. */
export function readSource(
  path: string,
  format: SourceFormat,
  options: ReadOptions,
): AsyncIterable<SourceRow[]> {
  switch (format) {
    case 'csv':
      return readCsv(path, options)
    case 'ndjson':
      return readNdjson(path)
    case 'json':
      return readJsonArray(path)
    case 'parquet':
      return readParquet(path)
  }
}

const BATCH = 4096

/**
 * NDJSON: exact line numbers (a row's `row` is its line too, as in the parallel check); a blank
 * line is skipped, a malformed one is a row problem.
 */
async function* readNdjson(path: string): AsyncIterable<SourceRow[]> {
  let line = 0
  let batch: SourceRow[] = []
  const take = (text: string) => {
    line++
    if (text.trim() === '') return
    const row = line
    try {
      const value = JSON.parse(line === 1 ? withoutByteOrderMark(text) : text)
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        batch.push({ line, row, problem: { field: '', message: 'line is not a JSON object' } })
      } else batch.push({ line, row, record: value })
    } catch (error) {
      batch.push({
        line,
        row,
        problem: { field: '', message: `line is not valid JSON: ${(error as Error).message}` },
      })
    }
  }
  const lines = new LineSplitter(take, (length) => {
    line++
    batch.push({ line, row: line, problem: { field: '', message: tooLongReason(length) } })
  })
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 22 })) {
    lines.push(chunk as string)
    if (batch.length >= BATCH) {
      yield batch
      batch = []
    }
  }
  lines.end()
  if (batch.length) yield batch
}

/** JSON: one array of objects; rows are numbered by their position and the line they start on. */
async function* readJsonArray(path: string): AsyncIterable<SourceRow[]> {
  const text = withoutByteOrderMark(await readFile(path, 'utf8'))
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw errors.badRequest(`${path} is not valid JSON: ${(error as Error).message}`)
  }
  if (!Array.isArray(value)) throw errors.badRequest(`${path} must hold a JSON array of objects`)
  const lines = arrayElementLines(text)
  for (let start = 0; start < value.length; start += BATCH) {
    yield value.slice(start, start + BATCH).map((item, index): SourceRow => {
      const row = start + index + 1
      const line = lines[row - 1] ?? null
      return typeof item === 'object' && item !== null && !Array.isArray(item)
        ? { line, row, record: item as Record<string, unknown> }
        : { line, row, problem: { field: '', message: 'element is not a JSON object' } }
    })
  }
}

/** The line each element of a top-level JSON array starts on (the text is known to be valid JSON). */
export function arrayElementLines(text: string): number[] {
  const lines: number[] = []
  let line = 1
  let depth = 0
  let inString = false
  let expectValue = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 10) line++
    if (inString) {
      if (code === 92) index++
      else if (code === 34) inString = false
      continue
    }
    if (code === 32 || code === 9 || code === 13 || code === 10) continue
    if (depth === 1 && expectValue && code !== 93) {
      lines.push(line)
      expectValue = false
    }
    if (code === 34) inString = true
    else if (code === 91 || code === 123) {
      depth++
      if (depth === 1) expectValue = true
    } else if (code === 93 || code === 125) depth--
    else if (code === 44 && depth === 1) expectValue = true
  }
  return lines
}

/** An in-memory DuckDB for reading files, so that reading never contends with the tenant's writes. */
async function scratch() {
  const instance = await createDuckDBInstance(':memory:')
  return { instance, connection: await instance.connect() }
}

/** Field delimiters a CSV file may use (`ingest --delimiter`); comma unless told. */
export const CSV_DELIMITERS = [',', ';', 'tab', '|'] as const
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number]

/** The delimiter as a SQL literal: one of the constants above, never text from the user. */
const DELIMITER_SQL: Record<CsvDelimiter, string> = { ',': "','", ';': "';'", tab: "'\\t'", '|': "'|'" }

/**
 * DuckDB's CSV reader as ingest reads a file. A file with a line longer than the reader's default
 * limit (2 MB) fails whole; it is read again allowing lines of LIMITS.lineChars characters in
 * UTF-8 (a larger limit for every file doubles the time and memory of the read).
 */
export const csvReaderOptions = (delimiter: CsvDelimiter = ',') =>
  `all_varchar = true, header = true, delim = ${DELIMITER_SQL[delimiter]}, quote = '"', escape = '"'`

const csvSource = (delimiter: CsvDelimiter, longLines = false) =>
  `read_csv($path, ${csvReaderOptions(delimiter)}, store_rejects = true, rejects_scan = 'scan', rejects_table = 'errors'${longLines ? `, max_line_size = ${LIMITS.lineChars * 4}` : ''})`

const DELIMITER_CHARS: Record<CsvDelimiter, string> = { ',': ',', ';': ';', tab: '\t', '|': '|' }
const DELIMITER_NAMES: Record<CsvDelimiter, string> = { ',': ',', ';': ';', tab: 'tab', '|': '|' }

/**
 * Why a CSV file's header line does not fit the delimiter it is read with (it holds none of it
 * but another delimiter: a `;`-separated export read as comma-separated), or null.
 */
export async function csvDelimiterProblem(path: string, delimiter: CsvDelimiter): Promise<string | null> {
  const header = withoutByteOrderMark((await readPrefix(path, 0, 64 * 1024)).split('\n')[0] ?? '')
  const unquoted = header.replace(/"[^"]*"/g, '')
  if (unquoted.includes(DELIMITER_CHARS[delimiter])) return null
  const found = CSV_DELIMITERS.filter(
    (other) => other !== delimiter && unquoted.includes(DELIMITER_CHARS[other]),
  )
  const likely = found[0]
  if (likely === undefined) return null
  const shown = header.length > 120 ? `${header.slice(0, 120)}…` : header
  return `${path} looks ${likely === 'tab' ? 'tab' : `${likely}`}-separated, not ${DELIMITER_NAMES[delimiter]}-separated: its header line is "${shown.trim()}"; pass --delimiter '${DELIMITER_NAMES[likely]}' (valid: ${CSV_DELIMITERS.map((name) => `'${name}'`).join(', ')})`
}

/** The column names of a CSV file's header line, as a CSV parser splits it (quotes and all). */
export async function csvHeaderColumns(path: string, delimiter: CsvDelimiter): Promise<string[]> {
  const header = withoutByteOrderMark((await readPrefix(path, 0, 64 * 1024)).split('\n')[0] ?? '')
  return new Promise((resolve, reject) => {
    let columns: string[] = []
    parseString(header.replace(/\r$/, ''), { delimiter: DELIMITER_CHARS[delimiter], maxRows: 1 })
      .on('data', (row: string[]) => {
        columns = row.map((name) => name.trim())
      })
      .on('error', reject)
      .on('end', () => resolve(columns))
  })
}

/** A CSV file as it is read: the path DuckDB reads, the row it could not take, and the cleanup. */
interface CsvRead<T> {
  value: T
  /** The file itself, or a copy without an unterminated last record. */
  readPath: string
  /** That last record, as a problem with its line. */
  tail: SourceRow | null
  done: () => void
}

/**
 * `run(source)` with the default reader, then once more allowing long lines if that failed. A
 * file that ends inside a quoted field (a truncated export) fails DuckDB's reader whole: the
 * records before it are read from a copy without it, and it becomes a problem row naming the
 * line its quote opened on. A 400 naming the file if nothing helped.
 */
async function withCsvReader<T>(
  path: string,
  delimiter: CsvDelimiter,
  run: (source: string, readPath: string) => Promise<T>,
): Promise<CsvRead<T>> {
  const attempt = async (readPath: string): Promise<T> => {
    try {
      return await run(csvSource(delimiter), readPath)
    } catch {
      return await run(csvSource(delimiter, true), readPath)
    }
  }
  try {
    return { value: await attempt(path), readPath: path, tail: null, done: () => undefined }
  } catch (error) {
    const open = await unterminatedQuote(path)
    if (open) {
      const copy = join(tmpdir(), `skillhouse-csv-${process.pid}-${randomUUID()}.csv`)
      const done = () => rmSync(copy, { force: true })
      try {
        await copyPrefix(path, copy, open.byte)
        const value = await attempt(copy)
        return { value, readPath: copy, tail: unterminatedQuoteRow(open), done }
      } catch {
        done()
      }
    }
    throw errors.badRequest(`${path} cannot be read as CSV: ${(error as Error).message.split('\n')[0]}`)
  }
}

/**
 * The problem row of a record whose quote never closes: the line the record starts on, the line
 * its quote opened on, and the text the open quote swallowed (up to the end of the file).
 */
function unterminatedQuoteRow(open: UnterminatedQuote): SourceRow {
  return {
    line: open.line,
    row: 0,
    problem: {
      field: '',
      message: `unterminated quote: the quoted field opened on line ${open.quoteLine} is not closed before the end of the file (a truncated export?), so every line after it is part of that field; this row is not loaded, the rows before it are`,
    },
    record: { text: open.text },
  }
}

interface UnterminatedQuote {
  byte: number
  line: number
  quoteLine: number
  text: string
}

/**
 * Where a CSV file's last record starts when that record never closes its quote: its byte
 * offset, its line, the line of the opening quote and (the start of) its text; null when every
 * quote closes.
 */
export async function unterminatedQuote(path: string): Promise<UnterminatedQuote | null> {
  let quoted = false
  let line = 1
  let recordByte = 0
  let recordLine = 1
  let quoteLine = 1
  let offset = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    const bytes = chunk as Buffer
    for (let index = 0; index < bytes.length; index++) {
      const byte = bytes[index]
      if (byte === 34) {
        quoted = !quoted
        if (quoted) quoteLine = line
      } else if (byte === 10) {
        line++
        if (!quoted) {
          recordByte = offset + index + 1
          recordLine = line
        }
      }
    }
    offset += bytes.length
  }
  if (!quoted) return null
  const text = await readPrefix(path, recordByte, 1000)
  return { byte: recordByte, line: recordLine, quoteLine, text }
}

/** Up to `length` bytes of a file from `start`, as text. */
async function readPrefix(path: string, start: number, length: number): Promise<string> {
  const parts: Buffer[] = []
  for await (const chunk of createReadStream(path, { start, end: start + length - 1 }))
    parts.push(chunk as Buffer)
  return Buffer.concat(parts).toString('utf8')
}

/** Copies the first `bytes` bytes of `from` to `to`. */
async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  if (bytes === 0) {
    writeFileSync(to, '')
    return
  }
  await pipeline(createReadStream(from, { start: 0, end: bytes - 1 }), createWriteStream(to))
}

/**
 * The rows DuckDB's reader could not parse (left in its reject table), one problem row each with
 * its physical line and its text. DuckDB's own `line` counts records, not lines, so it drifts
 * after a quoted field that spans lines; the line is found from the row's byte position instead
 * (1-based, as DuckDB gives it; in a CRLF file it points at the line feed ending the line before).
 * DuckDB rejects a row short of several columns once per missing column: those are one row.
 */
async function csvProblems(
  connection: Awaited<ReturnType<typeof scratch>>['connection'],
  path: string,
): Promise<SourceRow[]> {
  const rejected = await connection.runAndReadAll(
    'SELECT line_byte_position, column_name, error_type, error_message, csv_line FROM errors ORDER BY line_byte_position, column_idx',
  )
  let rows = rejected.getRowObjectsJS()
  // DuckDB's parallel reader (larger files) reports a quote that never closes as one reject
  // without the swallowed text, where its single-threaded read fails whole: both become the
  // same problem row.
  const openQuote = rows.some((reject) => /unterminated quote/i.test(String(reject.error_message)))
    ? await unterminatedQuote(path)
    : null
  if (openQuote) {
    const tail = Math.max(0, openQuote.byte)
    rows = rows.filter((reject) => Number(reject.line_byte_position) - 1 < tail)
  }
  const byRow = new Map<number, typeof rows>()
  for (const reject of rows) {
    const at = Number(reject.line_byte_position)
    byRow.set(at, [...(byRow.get(at) ?? []), reject])
  }
  const groups = [...byRow.values()]
  const texts = groups.map((group) => String(group[0]?.csv_line ?? ''))
  const lines = await linesAtBytes(
    path,
    groups.map((group, index) => {
      const leadingNewlines = /^[\r\n]*/.exec(texts[index] as string)?.[0].length ?? 0
      return Math.max(0, Number(group[0]?.line_byte_position) - 1 + leadingNewlines)
    }),
  )
  const problems = groups.map((group, index): SourceRow => {
    const first = group[0] as (typeof rows)[number]
    const missing =
      group.length > 1 ? `; missing ${group.map((reject) => reject.column_name).join(', ')}` : ''
    return {
      line: lines[index] ?? null,
      row: 0,
      problem: {
        field: first.column_name ? String(first.column_name) : '',
        message: `CSV row cannot be read (${String(first.error_type).toLowerCase()}): ${first.error_message}${missing}`,
      },
      record: { text: (texts[index] as string).replace(/^[\r\n]+/, '').replace(/\r$/, '') },
    }
  })
  return openQuote ? [...problems, unterminatedQuoteRow(openQuote)] : problems
}

/** The 1-based line holding each 0-based byte offset of a file; offsets in ascending order. */
export async function linesAtBytes(path: string, offsets: readonly number[]): Promise<number[]> {
  const lines: number[] = []
  if (offsets.length === 0) return lines
  let line = 1
  let base = 0
  let next = 0
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 22 })) {
    const bytes = chunk as Buffer
    const end = base + bytes.length
    for (let index = 0; index < bytes.length && next < offsets.length; index++) {
      while (next < offsets.length && (offsets[next] as number) <= base + index) lines[next++] = line
      if (bytes[index] === 10) line++
    }
    base = end
    if (next === offsets.length) break
  }
  while (next < offsets.length) lines[next++] = line
  return lines
}

/**
 * The cells of a CSV file as DuckDB's parallel reader reads them (the same reader as `readSource`),
 * written to `out` as one JSON object of column → text per row, in the file's order, so that
 * worker threads can check the rows; returns the rows the reader could not parse.
 */
export async function csvToCellLines(
  path: string,
  out: string,
  delimiter: CsvDelimiter = ',',
): Promise<SourceRow[]> {
  const { instance, connection } = await scratch()
  try {
    const read = await withCsvReader(path, delimiter, (source, readPath) =>
      connection.run(`COPY (SELECT * FROM ${source}) TO $out (FORMAT json)`, { path: readPath, out }),
    )
    try {
      const problems = await csvProblems(connection, read.readPath)
      return read.tail ? [...problems, read.tail] : problems
    } finally {
      read.done()
    }
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/**
 * CSV through DuckDB's parallel reader (faster than fast-csv, see the ingest benchmark). Rows it
 * cannot parse land in its reject table with their line; the line of every other row is found
 * afterwards, only when a row needs one, by a quote-aware scan.
 */
async function* readCsv(path: string, options: ReadOptions): AsyncIterable<SourceRow[]> {
  const { instance, connection } = await scratch()
  const read = await withCsvReader(path, options.delimiter ?? ',', (source, readPath) =>
    connection.stream(`SELECT * FROM ${source}`, { path: readPath }),
  ).catch((error) => {
    connection.closeSync()
    instance.closeSync()
    throw error
  })
  try {
    const result = read.value
    const names = result.columnNames()
    const pending: SourceRow[] = []
    let row = 0
    for (;;) {
      const chunk = await result.fetchChunk()
      if (!chunk || chunk.rowCount === 0) break
      const columns = chunk.getColumns() as (string | null)[][]
      for (let index = 0; index < chunk.rowCount; index++) {
        const cells: Record<string, string | null> = {}
        names.forEach((name, column) => {
          cells[name] = (columns[column] as (string | null)[])[index] ?? null
        })
        row++
        pending.push({
          line: null,
          row,
          record: csvCellsToRecord(cells, options.schema, options.customPropertyTypes),
        })
      }
      if (pending.length >= BATCH) yield pending.splice(0)
    }
    const problems = await csvProblems(connection, read.readPath)
    if (read.tail) problems.push(read.tail)
    if (pending.length) yield pending
    if (problems.length) yield problems
  } finally {
    read.done()
    connection.closeSync()
    instance.closeSync()
  }
}

/**
 * The start line of each CSV record DuckDB returns, in order: the header and blank lines are
 * skipped, and so are the lines DuckDB rejected.
 */
export async function csvRecordLines(path: string, rejectedLines: ReadonlySet<number>): Promise<number[]> {
  const lines: number[] = []
  let line = 1
  let quoted = false
  let recordStart = 1
  let recordEmpty = true
  let first = true
  const finish = () => {
    if (first) first = false
    else if (!recordEmpty && !rejectedLines.has(recordStart)) lines.push(recordStart)
  }
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 22 })) {
    const text = chunk as string
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index)
      if (code === 34) {
        quoted = !quoted
        recordEmpty = false
      } else if (code === 10) {
        if (!quoted) {
          finish()
          recordStart = line + 1
          recordEmpty = true
        }
        line++
      } else if (code !== 13) recordEmpty = false
    }
  }
  if (!recordEmpty) finish()
  return lines
}

/** Parquet through DuckDB; nested columns arrive as objects and lists. */
async function* readParquet(path: string): AsyncIterable<SourceRow[]> {
  const { instance, connection } = await scratch()
  try {
    let result: Awaited<ReturnType<typeof connection.stream>>
    try {
      result = await connection.stream('SELECT * FROM read_parquet($path)', { path })
    } catch (error) {
      throw errors.badRequest(`${path} cannot be read as Parquet: ${(error as Error).message.split('\n')[0]}`)
    }
    let row = 0
    for await (const objects of result.yieldRowObjectJs()) {
      yield objects.map(
        (object): SourceRow => ({
          line: null,
          row: ++row,
          record: toPlain(object) as Record<string, unknown>,
        }),
      )
    }
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/** DuckDB values as JSON-like data: nulls dropped, dates as ISO strings, integers as numbers. */
function toPlain(value: unknown): unknown {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'bigint') return Number(value)
  if (value instanceof Date) {
    const iso = value.toISOString()
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.replace('.000Z', 'Z')
  }
  if (Array.isArray(value)) return value.map(toPlain)
  if (typeof value === 'object') {
    const result: Record<string, unknown> = {}
    for (const [key, field] of Object.entries(value as Record<string, DuckDBValue>)) {
      const plain = toPlain(field)
      if (plain !== undefined) result[key] = plain
    }
    return result
  }
  return value
}
