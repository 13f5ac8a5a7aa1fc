import { randomUUID } from 'node:crypto'
import type { DuckDBValue } from '@duckdb/node-api'
import { CloudEvent, ValidationError } from 'cloudevents'
import { errors } from '../errors/skillhouse-error.js'
import { CLOUD_EVENT_TYPES, type CloudEventType, type OutboxCloudEvent } from '../schemas/events.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { AtomicWriteStream } from '../util/atomic-file.js'
import { DuckDBTimestampValue } from '../vendor/duckdb.js'

/** An event to append: its type (section 6.2), its source URL and its data object. */
export interface OutboxEventInput {
  type: string
  source: string
  data: Record<string, unknown>
  subject?: string
}

/** An event of the outbox with its position, the cursor of readers such as delivery. */
export interface OutboxEntry {
  seq: number
  event: OutboxCloudEvent
}

export interface ReadEventsOptions {
  /** Only events after this sequence number (exclusive): the cursor of a reader. */
  sinceSeq?: number
  /** Only events at or after this ISO 8601 time; inclusive, because delivery is at least once (6 rule 1). */
  since?: string
  limit?: number
}

/**
 * The `source` of an event: the resource's address built on the tenant's base URL (6.1), e.g.
 * `eventSource(baseUrl, '/taxonomy/skills/py')`.
 */
export function eventSource(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/**
 * The `source` of an event of `type`: the endpoint its CLOUD_EVENT_TYPES entry names, below the
 * tenant's base URL, with `id` in place of the path's parameter (when it has one).
 */
export function typedEventSource(baseUrl: string, type: CloudEventType, id?: string): string {
  const path = CLOUD_EVENT_TYPES[type].source.replace(/\{[^}]+\}/, (parameter) => {
    if (id === undefined) throw errors.internal(`the source of ${type} needs ${parameter}`)
    return encodeURIComponent(id)
  })
  return eventSource(baseUrl, path)
}

/**
 * Appends events to the outbox, each built and validated as a CloudEvent 1.0 by the SDK, with a
 * new UUID, the current time and the next `outbox_seq`. It opens no transaction: call it inside
 * the caller's, so that the events commit together with the change they announce, or not at all.
 */
export async function appendEvents(
  database: TenantDatabase,
  events: readonly OutboxEventInput[],
): Promise<OutboxCloudEvent[]> {
  if (events.length === 0) return []
  const time = new Date()
  const iso = time.toISOString()
  const built = events.map((input) => toCloudEvent(input, iso))
  // One query reserves the sequence numbers, so the rows can go through the appender (fast for
  // the thousands of events a vocabulary import sends) and still keep their order.
  const reserved = await database.all<{ seq: number }>(
    `SELECT nextval('outbox_seq') AS seq FROM range($1::BIGINT) ORDER BY seq`,
    [events.length],
  )
  const appender = await database.appender('outbox')
  const timestamp = new DuckDBTimestampValue(BigInt(time.getTime()) * 1000n)
  built.forEach((event, index) => {
    appender.appendBigInt(BigInt((reserved[index] as { seq: number }).seq))
    appender.appendVarchar(event.id)
    appender.appendVarchar(event.type)
    appender.appendVarchar(event.source)
    if (event.subject === undefined) appender.appendNull()
    else appender.appendVarchar(event.subject)
    appender.appendTimestamp(timestamp)
    appender.appendVarchar(JSON.stringify(event.data))
    appender.endRow()
  })
  appender.closeSync()
  return built
}

function toCloudEvent(input: OutboxEventInput, time: string): OutboxCloudEvent {
  const properties = {
    specversion: '1.0',
    id: randomUUID(),
    type: input.type,
    source: input.source,
    time,
    datacontenttype: 'application/json',
    ...(input.subject === undefined ? {} : { subject: input.subject }),
    data: input.data,
  }
  try {
    // The SDK checks the envelope (URI-reference source, RFC 3339 time, required attributes).
    new CloudEvent(properties)
  } catch (error) {
    const detail =
      error instanceof ValidationError ? JSON.stringify(error.errors ?? error.message) : String(error)
    throw errors.internal(`event ${input.type} from ${input.source} is not a valid CloudEvent: ${detail}`)
  }
  return properties as OutboxCloudEvent
}

/** Events of the outbox with their sequence numbers, oldest first. */
export async function readOutbox(
  database: TenantDatabase,
  options: ReadEventsOptions = {},
): Promise<OutboxEntry[]> {
  const conditions: string[] = []
  const params: DuckDBValue[] = []
  if (options.sinceSeq !== undefined) {
    params.push(options.sinceSeq)
    conditions.push(`seq > $${params.length}`)
  }
  if (options.since !== undefined) {
    params.push(sinceValue(options.since))
    conditions.push(`time >= $${params.length}::TIMESTAMP`)
  }
  let sql = 'SELECT seq, id, type, source, subject, time, data::VARCHAR AS data FROM outbox'
  if (conditions.length) sql += ` WHERE ${conditions.join(' AND ')}`
  sql += ' ORDER BY seq'
  if (options.limit !== undefined) {
    params.push(Math.max(0, Math.floor(options.limit)))
    sql += ` LIMIT $${params.length}`
  }
  const rows = await database.all<OutboxRow & { seq: number }>(sql, params)
  return rows.map((row) => ({ seq: Number(row.seq), event: outboxEventOf(row) }))
}

/** The columns of an outbox row that make its CloudEvent, `data` read as text. */
export type OutboxRow = {
  id: string
  type: string
  source: string
  subject: string | null
  time: Date
  data: string
}

/** An outbox row as the structured-mode CloudEvent every reader shows. */
export function outboxEventOf(row: OutboxRow): OutboxCloudEvent {
  return {
    specversion: '1.0',
    id: row.id,
    type: row.type,
    source: row.source,
    time: row.time.toISOString(),
    datacontenttype: 'application/json',
    ...(row.subject === null ? {} : { subject: row.subject }),
    data: JSON.parse(row.data) as Record<string, unknown>,
  }
}

/** Structured-mode CloudEvents 1.0 of the outbox, in sequence order. */
export async function readEvents(
  database: TenantDatabase,
  options: ReadEventsOptions = {},
): Promise<OutboxCloudEvent[]> {
  return (await readOutbox(database, options)).map((entry) => entry.event)
}

/** `since` as a UTC timestamp string DuckDB reads; 422 naming `since` when it is no time. */
export function sinceValue(since: string): string {
  const ms = Date.parse(since)
  if (Number.isNaN(ms)) {
    throw errors.unprocessable(
      `since: '${since}' is not an ISO 8601 date or date-time (e.g. 2026-11-21 or 2026-11-21T08:00:00Z)`,
    )
  }
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
}

const PAGE = 10_000

/**
 * The outbox as NDJSON lines (one structured-mode CloudEvent per line), read page by page so
 * that an outbox of any size streams in bounded memory.
 */
export async function* eventLines(
  database: TenantDatabase,
  options: { since?: string } = {},
): AsyncGenerator<string> {
  let cursor: number | undefined
  for (;;) {
    const page = await readOutbox(database, {
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(cursor === undefined ? {} : { sinceSeq: cursor }),
      limit: PAGE,
    })
    for (const entry of page) yield `${JSON.stringify(entry.event)}\n`
    if (page.length < PAGE) return
    cursor = (page.at(-1) as OutboxEntry).seq
  }
}

export interface EventsExport {
  path: string
  events: number
}

/**
 * Writes the outbox's events (at or after `since`) to `out` as NDJSON. The file appears whole or
 * not at all: it is written beside the target and renamed over it at the end.
 */
export async function exportEvents(
  database: TenantDatabase,
  options: { since?: string | undefined; out: string },
): Promise<EventsExport> {
  const stream = new AtomicWriteStream(options.out)
  let events = 0
  try {
    for await (const line of eventLines(
      database,
      options.since === undefined ? {} : { since: options.since },
    )) {
      stream.write(line)
      events++
    }
  } catch (error) {
    await stream.abort()
    throw error
  }
  await stream.commit()
  return { path: options.out, events }
}
