import type { EntityKind, ReferenceTarget } from '../records/entity-kinds.js'
import { REFERENCE_SOURCES } from '../records/reference-index.js'
import { LIMITS } from '../schemas/limits.js'
import { MODERN_EVENT_TYPES } from '../schemas/skill-events.js'
import { supportsModernEvents, type TenantSettings } from '../schemas/tenant-settings.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { FileFacts, IngestPath } from './ingest-types.js'
import { type CsvDelimiter, csvReaderOptions, type SourceFormat } from './read-source.js'
import { type JsonNode, jsonNode, objectKeys, rowProofCondition, stringText } from './sql-proof.js'

/**
 * Ingest's SQL path for a file of skill events: DuckDB reads the file (its JSON and CSV readers,
 * both cores), proves every row valid with the condition compiled from the row schema
 * (sql-proof.ts) and checks the references, and inserts the rows in one statement, without a row
 * crossing into JavaScript. It takes the file only when it can settle all of it: every row
 * proven, none of its external_ids stored already or repeated in the file (DuckDB's key refuses
 * the statement otherwise). Any other file, or any error of the readers, rolls the attempt back
 * and the file goes the JavaScript way (row by row, rejects with lines, 409s, repeats), which
 * decides the same rows the same way: the SQL path only proves what JavaScript would store
 * unchanged, and stores it as JavaScript would (same text, same content hash).
 */

/** The row fields of a skill event file, as its readers read them. */
const FIELDS = ['employee_id', 'external_id', 'event_type', 'timestamp', 'content', 'source'] as const

/** Where a skill event refers to other records (entity-kinds.ts lists the same for JavaScript). */
export const SKILL_EVENT_REFERENCES: readonly {
  path: string[]
  target: Exclude<ReferenceTarget, 'jobs_or_job_families'>
}[] = [
  { path: ['employee_id'], target: 'employees' },
  { path: ['content', 'job_id'], target: 'jobs' },
  { path: ['content', 'course_id'], target: 'courses' },
  { path: ['content', 'skill_id'], target: 'skills' },
]

/** The content hash as the merge of staging.ts computes it, from the same values. */
export const SKILL_EVENT_HASH = (
  employee: string,
  type: string,
  timestamp: string,
  source: string,
  content: string,
) => `hash(${employee}, ${type}, ${timestamp}, ${source}, ${content}::VARCHAR)::VARCHAR`

export interface SqlIngestResult {
  rowsRead: number
  inserted: number
}

/** Why the SQL path left a file to JavaScript (for the summary's phases and the tests). */
export type SqlDeclined = { declined: string }

/**
 * What the SQL path asks of a skill event file's rows, compiled once: the condition (row fields
 * as the readers give them, JSON text; the content as json() writes it, matched by one pattern),
 * the reference lookups, the projection that computes the content's text once a row, and the
 * row fields' values for the insert.
 */
export interface CompiledRows {
  /** The condition that proves a row valid (sql-proof.ts). */
  proof: string
  /** A SELECT over a read (its row fields as columns) adding `content_text`. */
  prepared: (source: string) => string
  /** The SQL value of each row field for the insert. */
  values: Record<(typeof FIELDS)[number], string>
  references: string[]
}

let compiled: { schema: unknown; rows: CompiledRows | null } | undefined

export function compiledRows(kind: EntityKind): CompiledRows | null {
  if (compiled?.schema === kind.schema) return compiled.rows
  // The content as json() writes it, once a row: matched by the compiled pattern, hashed and stored.
  const content: JsonNode = { ...jsonNode('r.content_text'), text: 'r.content_text' }
  const field = (key: string): JsonNode => (key === 'content' ? content : jsonNode(`r.${key}`))
  const proof = rowProofCondition(kind.schema, field)
  if (proof === null) {
    compiled = { schema: kind.schema, rows: null }
    return null
  }
  // The row's references: a field by its text; the content's (flat objects holding at most one
  // of the keys that refer, and ids without escapes) as `key:id`, found in the matched text by
  // one pattern and looked up in one list of `key:id` of every target.
  const top = SKILL_EVENT_REFERENCES.filter((reference) => reference.path.length === 1)
  const inContent = SKILL_EVENT_REFERENCES.filter((reference) => reference.path.length === 2)
  const referring = inContent.map((reference) => reference.path[1] as string)
  if (
    objectKeys(kind.schema, 'content').some(
      (keys) => keys.filter((key) => referring.includes(key)).length > 1,
    )
  ) {
    compiled = { schema: kind.schema, rows: null }
    return null
  }
  const found = `replace(replace(regexp_extract(r.content_text, '"(?:${referring.join('|')})":"[^"\\\\]*"', 0), '":"', ':'), '"', '')`
  // (One match a row, '' when there is none.)
  const targets = [
    ...inContent.map(
      ({ path, target }) => `SELECT '${path[1]}:' || external_id FROM (${REFERENCE_SOURCES[target]})`,
    ),
  ].join(' UNION ALL ')
  // Each as `v IS NULL OR v IN (…)` with a v that may be NULL (nullif), which DuckDB keeps a
  // mark join, hashing the list: as a semi join (what it makes of a plain IN) it hashed the
  // file's side, which the JSON reader estimates at a few dozen rows, and ran out of memory.
  const lookup = (value: string, list: string) =>
    `(nullif(${value}, '') IS NULL OR nullif(${value}, '') IN (${list}))`
  const references = [
    ...top.map(({ path, target }) => lookup(stringText(field(path[0] as string)), REFERENCE_SOURCES[target])),
    lookup(found, targets),
  ]
  const rows: CompiledRows = {
    proof,
    references,
    values: {
      employee_id: stringText(field('employee_id')),
      external_id: stringText(field('external_id')),
      event_type: stringText(field('event_type')),
      timestamp: stringText(field('timestamp')),
      source: stringText(field('source')),
      content: 'r.content_text::JSON',
    },
    // json() once a row: a subquery's column would be computed again at every use (DuckDB
    // inlines it into the filter and the projection), an UNNEST's output is not.
    prepared: (source) => `SELECT r.*, unnest([json(r.content)::VARCHAR]) AS content_text FROM ${source} r`,
  }
  compiled = { schema: kind.schema, rows }
  return rows
}

/** The SQL path as one of `ingestFile`'s ways (see ingest-types.ts): its phase is `sql`. */
export const sqlIngestPath: IngestPath = {
  name: 'sql',
  async ingest(file, timer) {
    const { options } = file
    const sql = await timer.time('sql', () =>
      ingestInSql({
        database: options.database,
        settings: options.settings,
        path: options.path,
        format: options.format,
        kind: options.kind,
        delimiter: file.delimiter,
        facts: file.facts,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      }),
    )
    if (!('inserted' in sql)) return sql
    options.onProgress?.(sql.rowsRead)
    return {
      checked: 'sql',
      checksum: (await file.facts).checksum,
      rowsRead: sql.rowsRead,
      inserted: sql.inserted,
      updated: 0,
      unchanged: 0,
      superseded: 0,
      rejects: [],
    }
  },
}

/**
 * Tries the SQL path on one file inside the caller's transaction-free moment: opens its own
 * transaction, inserts, records the file in `ingested_files` and commits; or rolls back and
 * says why it declined.
 */
export async function ingestInSql(options: {
  database: TenantDatabase
  settings: TenantSettings
  path: string
  format: SourceFormat
  kind: EntityKind
  /** The CSV field delimiter (default comma). */
  delimiter?: CsvDelimiter
  /** The file's checksum and what else its read tells (computed meanwhile). */
  facts: Promise<FileFacts>
  /** Rows done so far, as DuckDB's progress of the insert estimates them (a few times a second). */
  onProgress?: (rows: number) => void
}): Promise<SqlIngestResult | SqlDeclined> {
  const { database, kind, path } = options
  if (kind.storage !== 'skill_events') return { declined: 'not skill events' }
  if (options.format !== 'ndjson' && options.format !== 'csv') return { declined: `format ${options.format}` }
  const rows = compiledRows(kind)
  if (rows === null) return { declined: 'schema not compiled' }
  const source =
    options.format === 'ndjson'
      ? rows.prepared(ndjsonSource())
      : await csvSource(database, path, options.delimiter ?? ',')
  if (source === null) return { declined: 'columns other than the row fields' }
  // NDJSON: the rows are counted (and their keys and commas looked at) by a second read of the
  // file on a connection of its own, beside the insert (which leaves a share of both cores idle):
  // the insert filters on the condition, and must then have inserted them all. CSV: a row the
  // condition does not prove stops the insert (error()).
  const counting = options.format === 'ndjson' ? countRows(database, path) : undefined
  let rowsExpected = 0
  void counting?.then((counted) => {
    if (counted) rowsExpected = counted.rows
  })
  const insert = insertStatement(rows, source, counting !== undefined, options.settings)
  try {
    const inserted = await database.transaction(async () => {
      const result = await withProgress(
        database,
        (share) => options.onProgress?.(Math.round(share * rowsExpected)),
        () => database.one<{ Count: number }>(insert, { path }),
      )
      const count = Number(result?.Count ?? 0)
      if (counting !== undefined) allCounted(await counting, count)
      await recordFile(database, options, count)
      return count
    })
    return { rowsRead: inserted, inserted }
  } catch (error) {
    return declinedBy(error)
  } finally {
    // Nothing of the file's reads outlives the attempt.
    await counting
  }
}

/**
 * The insert of the rows the condition proves: a filter when the rows are counted apart (NDJSON),
 * else a row it does not prove stops the statement.
 */
function insertStatement(
  rows: CompiledRows,
  source: string,
  counted: boolean,
  settings: TenantSettings,
): string {
  const modern = supportsModernEvents(settings.model_configuration)
    ? []
    : [`${rows.values.event_type} NOT IN (${MODERN_EVENT_TYPES.map((type) => `'${type}'`).join(', ')})`]
  const { values } = rows
  return `
INSERT INTO skill_events (external_id, employee_id, event_type, timestamp, content, source, content_hash, received_at, change_seq)
SELECT external_id, employee_id, event_type, timestamp::DATE, content, source,
       ${SKILL_EVENT_HASH('employee_id', 'event_type', 'timestamp', 'source', 'content')}, now(), nextval('change_seq')
FROM (SELECT ${FIELDS.map((name) => `${values[name]} AS ${name}`).join(', ')}
        FROM (${source}) r
       WHERE ${
         counted
           ? [rows.proof, ...rows.references, ...modern].join('\n         AND ')
           : `CASE WHEN ${[rows.proof, ...rows.references, ...modern].join('\n         AND ')} THEN true ELSE error('${NOT_PROVEN}') END`
       })`
}

/**
 * The typed read takes the row fields only: a row with other keys (or fewer) is JavaScript's.
 * DuckDB's JSON reader takes a comma before } or ], which JSON.parse refuses (looked for in the
 * raw lines, strings included: a string holding ",]" sends the file row by row too). Every row
 * counted must have been inserted.
 */
function allCounted(counted: { rows: number; other: number; commas: number } | undefined, inserted: number) {
  if (!counted) throw new Declined('the JSON reader refused the file')
  if (counted.other > 0)
    throw new Declined(`${counted.other} rows hold fields other than ${FIELDS.join(', ')}`)
  if (counted.commas > 0) throw new Declined(`${counted.commas} rows hold a comma before } or ]`)
  if (inserted !== counted.rows) throw new Error(NOT_PROVEN)
}

/**
 * Records the file in `ingested_files`, unless its read found what DuckDB's readers take and
 * JavaScript does not: white space JSON does not know, and lines longer than the row-by-row path
 * reads.
 */
async function recordFile(
  database: TenantDatabase,
  options: { path: string; format: SourceFormat; kind: EntityKind; facts: Promise<FileFacts> },
  count: number,
): Promise<void> {
  const facts = await options.facts
  if (facts.formFeedOrVerticalTab) throw new Declined('a form feed or vertical tab in the file')
  if (facts.invalidUtf8) throw new Declined('the file is not UTF-8')
  if (options.format === 'ndjson' && facts.longestLine > LIMITS.lineChars)
    throw new Declined(`a line of ${facts.longestLine} bytes (at most ${LIMITS.lineChars} characters)`)
  await database.run('INSERT INTO ingested_files VALUES ($1, $2, $3, $4, $5, 0, now())', [
    facts.checksum,
    options.path,
    options.kind.entity,
    count,
    count,
  ])
}

/** Why the attempt declined the file, from what stopped it; an error of another kind is thrown on. */
function declinedBy(error: unknown): SqlDeclined {
  if (error instanceof Declined) return { declined: error.message }
  const message = error instanceof Error ? error.message : String(error)
  if (message.includes(NOT_PROVEN)) return { declined: 'some rows need the row-by-row check' }
  // The key refused a stored or repeated external_id, or a reader refused a row: JavaScript's to explain.
  // (Or DuckDB ran out of its memory: the row-by-row path holds less at a time.)
  if (
    /Constraint Error|Invalid Input Error|Conversion Error|duplicate key|Out of Memory|IO Error/i.test(
      message,
    )
  ) {
    return { declined: message.split('\n')[0] ?? message }
  }
  throw error
}

/**
 * Runs a statement while reporting DuckDB's estimate of how far it got (0–1), every 200 ms, so
 * that a long ingest shows its progress (and rows/s) as the row-by-row path does.
 */
async function withProgress<T>(
  database: TenantDatabase,
  report: (share: number) => void,
  work: () => Promise<T>,
): Promise<T> {
  await database.run('SET enable_progress_bar = true')
  await database.run('SET enable_progress_bar_print = false')
  report(0)
  const timer = setInterval(() => {
    const { percentage } = database.connection.progress
    if (percentage >= 0) report(Math.min(1, percentage / 100))
  }, 200)
  try {
    return await work()
  } finally {
    clearInterval(timer)
  }
}

class Declined extends Error {}

/** A comma before a closing bracket (JSON.parse refuses it; DuckDB's JSON functions do not). */
const TRAILING_COMMA = `',[ \\t\\r\\n]*[}\\]]'`

/** The error a row that is not proven valid raises in the insert. */
const NOT_PROVEN = 'skillhouse: a row the SQL path does not clear'

/** The NDJSON read: each row field as JSON (NULL when absent). */
export function ndjsonSource(): string {
  const columns = FIELDS.map((field) => `${field}: 'JSON'`).join(', ')
  return `read_ndjson($path, columns = {${columns}}, format = 'newline_delimited')`
}

/**
 * The CSV read as JSON-typed row fields and the content's text (what `prepared` makes of an
 * NDJSON read), when the header names exactly the row fields (a dotted or unknown column is the
 * JavaScript path's): cells are strings, an empty cell is absent (NULL here, which no row field
 * allows), and the content cell is JSON when it starts with `{` (read-source.ts's conventions).
 */
async function csvSource(
  database: TenantDatabase,
  path: string,
  delimiter: CsvDelimiter,
): Promise<string | null> {
  const header = await tryQuery(() =>
    database.all<{ column_name: string }>(
      `DESCRIBE SELECT * FROM read_csv($path, ${csvReaderOptions(delimiter)})`,
      { path },
    ),
  )
  if (!header) return null
  const names = header.map((column) => column.column_name)
  if (names.length !== FIELDS.length || !FIELDS.every((field) => names.includes(field))) return null
  // One UNNEST, so that each cell is converted once (see `prepared`); a content cell that is not
  // JSON stops json(), and the file goes row by row.
  const cells = FIELDS.map((field) =>
    field === 'content'
      ? `unnest([json(CASE WHEN starts_with(content, '{') AND NOT regexp_matches(content, ${TRAILING_COMMA}) THEN content END)::VARCHAR]) AS content_text`
      : `unnest([CASE WHEN ${field} <> '' THEN to_json(${field}) END]) AS ${field}`,
  )
  return `SELECT ${cells.join(', ')} FROM read_csv($path, ${csvReaderOptions(delimiter)})`
}

/** An NDJSON file's rows, those with keys other than the row fields, and those with a trailing comma. */
async function countRows(
  database: TenantDatabase,
  path: string,
): Promise<{ rows: number; other: number; commas: number } | undefined> {
  const reader = await tryQuery(() => database.sibling())
  if (!reader) return undefined
  try {
    return await tryQuery(() =>
      reader.one<{ rows: number; other: number; commas: number }>(
        `SELECT count(*)::BIGINT AS rows, count(*) FILTER (WHERE len(json_keys(json)) <> ${FIELDS.length})::BIGINT AS other,
                count(*) FILTER (WHERE regexp_matches(json, ${TRAILING_COMMA}))::BIGINT AS commas
           FROM read_ndjson_objects($path, format = 'newline_delimited')`,
        { path },
      ),
    )
  } finally {
    reader.close()
  }
}

async function tryQuery<T>(query: () => Promise<T>): Promise<T | undefined> {
  try {
    return await query()
  } catch {
    return undefined
  }
}
