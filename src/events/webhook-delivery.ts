import { DuckDBTimestampValue } from '@duckdb/node-api'
import { CloudEvent, HTTP } from 'cloudevents'
import type { OutboxCloudEvent } from '../schemas/index.js'
import { WebhookDeliverySettings } from '../schemas/webhooks.js'
import type { TenantDatabase } from '../store/tenant-database.js'

/**
 * At-least-once delivery of the outbox's CloudEvents to webhook subscriptions. Each active
 * subscription has a cursor over the outbox; new events past it are queued in the delivery log
 * (`webhook_deliveries`) and POSTed in structured mode, mostly in outbox order. A failed attempt is
 * retried after an exponential backoff with full jitter, until `maxAttempts` is reached and the
 * event is dead. The event id is the outbox event's, the same in every attempt, so that consumers
 * can drop duplicates.
 *
 * The database is reached only through a `TenantAccess`, for short bookkeeping steps; every HTTP
 * request is sent outside it, so the server's per-tenant lock is never held while a consumer
 * answers and no DuckDB transaction spans a request.
 */

/** What delivery needs of a tenant: its database and the base URL its events' sources hang on. */
export interface WebhookTenant {
  database: TenantDatabase
  baseUrl: string
}

/**
 * Runs a short piece of bookkeeping on the tenant: the server passes its per-tenant lock, the CLI
 * `serialAccess` over the database it holds.
 */
export type TenantAccess = <T>(work: (tenant: WebhookTenant) => Promise<T>) => Promise<T>

/** IO and randomness of delivery, passed in so that tests can use short backoffs and real receivers. */
export interface DeliveryDependencies {
  fetch?: typeof fetch
  now?: () => Date
  /** A number in [0, 1): the jitter of the backoff. */
  random?: () => number
}

export interface DeliveryOptions extends DeliveryDependencies {
  settings?: Partial<WebhookDeliverySettings>
  /** Subscriptions served at once; each one's events go one after the other. */
  concurrency?: number
  /** Asked before each request: true stops the run after the requests in flight. */
  shouldStop?: () => boolean
}

/** What one delivery run did, and what it left. */
export interface DeliveryRun {
  /** Active subscriptions of the tenant. */
  subscriptions: number
  /** HTTP requests made. */
  attempts: number
  /** Events acknowledged with a 2XX. */
  delivered: number
  /** Failed attempts that will be retried. */
  failed: number
  /** Events given up on (dead letters) after their last attempt. */
  dead: number
  /** Events still pending for the active subscriptions. */
  pending: number
  /** When the first of them is due; null when none is pending. */
  next_attempt_at: string | null
}

/** The answer of a consumer to one request. */
export interface PostOutcome {
  ok: boolean
  /** The HTTP status; null when no answer came (timeout, connection error). */
  status: number | null
  /** Why the attempt failed; null when it did not. */
  error: string | null
  /**
   * Whether the failure concerns the consumer rather than the event: anything but a refusal of
   * the payload (400, 409, 413, 415, 422), e.g. no answer, a redirect, 404, 429 or a 5XX. The
   * subscription's other events then wait for the same retry instead of hammering an endpoint
   * that is down or gone.
   */
  consumerDown: boolean
}

/** The settings with their defaults (8 attempts, 1 s base, 10 min cap, 10 s per attempt). */
export function deliverySettings(settings: Partial<WebhookDeliverySettings> = {}): WebhookDeliverySettings {
  const defined = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined))
  return WebhookDeliverySettings.parse(defined)
}

/**
 * The wait before the attempt after `attempts` failed ones: "full jitter", a uniform draw between
 * 0 and min(cap, base · 2^(attempts − 1)), so that consumers coming back are not hit by every
 * retry at the same moment.
 */
export function backoffDelay(
  attempts: number,
  settings: Pick<WebhookDeliverySettings, 'backoffBaseMs' | 'backoffCapMs'>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(settings.backoffCapMs, settings.backoffBaseMs * 2 ** Math.max(0, attempts - 1))
  return Math.floor(Math.min(0.999_999, Math.max(0, random())) * ceiling)
}

const ANSWER_EXCERPT = 200

/** Statuses that refuse one event's payload, not every event: the others go on meanwhile. */
const PAYLOAD_REFUSALS = new Set([400, 409, 413, 415, 422])

/**
 * POSTs one CloudEvent in structured mode (`application/cloudevents+json`, serialised by the
 * cloudevents SDK) and reports the consumer's answer. Redirects are not followed: a consumer
 * answers where it subscribed. Never throws for a consumer's failure.
 */
export async function postCloudEvent(
  url: string,
  event: Record<string, unknown>,
  options: { fetch?: typeof fetch; timeoutMs: number },
): Promise<PostOutcome> {
  const message = HTTP.structured(new CloudEvent(event, false))
  const send = options.fetch ?? fetch
  const signal = AbortSignal.timeout(options.timeoutMs)
  try {
    const response = await send(url, {
      method: 'POST',
      headers: { ...(message.headers as Record<string, string>), 'user-agent': 'skillhouse-webhooks' },
      body: message.body as string,
      redirect: 'manual',
      signal,
    })
    const status = response.status
    if (status >= 200 && status < 300) {
      await response.body?.cancel().catch(() => undefined)
      return { ok: true, status, error: null, consumerDown: false }
    }
    const excerpt = await answerExcerpt(response)
    return {
      ok: false,
      status,
      error: `answered ${status}${excerpt ? `: ${excerpt}` : ''}`,
      consumerDown: !PAYLOAD_REFUSALS.has(status),
    }
  } catch (error) {
    return { ok: false, status: null, error: failureOf(error, options.timeoutMs), consumerDown: true }
  }
}

/** The start of an error answer, for the delivery log; read in bounded memory. */
async function answerExcerpt(response: Response): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < ANSWER_EXCERPT * 4) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } catch {
    // The excerpt is a courtesy: an answer cut short still tells its status.
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim()
  return text.length > ANSWER_EXCERPT ? `${text.slice(0, ANSWER_EXCERPT)}…` : text
}

function failureOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`
  }
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
  return `no answer: ${detail}`
}

const stamp = (time: Date) => new DuckDBTimestampValue(BigInt(time.getTime()) * 1000n)
const isoOf = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : null)

/**
 * Queues for every active subscription the outbox events past its cursor that its filter takes,
 * and moves its cursor to the end of the outbox, in one transaction. Returns the number of active
 * subscriptions and of the events queued.
 */
export async function enqueueNewEvents(
  database: TenantDatabase,
  now: Date,
): Promise<{ subscriptions: number; queued: number }> {
  const position = await database.one<{ last: number | null; lowest: number | null; active: number }>(
    `SELECT (SELECT max(seq) FROM outbox) AS last, min(cursor_seq) AS lowest, count(*) AS active
       FROM webhook_subscriptions WHERE status = 'active'`,
  )
  const subscriptions = Number(position?.active ?? 0)
  const last = Number(position?.last ?? 0)
  if (subscriptions === 0 || Number(position?.lowest ?? last) >= last) return { subscriptions, queued: 0 }
  const queued = await database.transaction(async () => {
    const before = await countDeliveries(database)
    await database.run(
      `INSERT INTO webhook_deliveries
         (subscription_id, outbox_seq, event_id, event_type, state, attempts, next_attempt_at, created_at, updated_at)
       SELECT s.id, o.seq, o.id, o.type, 'pending', 0, $2, $2, $2
         FROM webhook_subscriptions s
         JOIN outbox o ON o.seq > s.cursor_seq AND o.seq <= $1
        WHERE s.status = 'active' AND (len(s.event_types) = 0 OR list_contains(s.event_types, o.type))
       ON CONFLICT DO NOTHING`,
      [last, stamp(now)],
    )
    await database.run(
      `UPDATE webhook_subscriptions SET cursor_seq = $1 WHERE status = 'active' AND cursor_seq < $1`,
      [last],
    )
    return (await countDeliveries(database)) - before
  })
  return { subscriptions, queued }
}

async function countDeliveries(database: TenantDatabase): Promise<number> {
  return Number((await database.one<{ n: number }>('SELECT count(*) AS n FROM webhook_deliveries'))?.n ?? 0)
}

/** A queued delivery that is due, with its event and its subscription's URL. */
interface DueDelivery {
  subscriptionId: string
  url: string
  seq: number
  /** Attempts made before this one. */
  attempts: number
  event: OutboxCloudEvent
}

const BATCH = 200

async function dueDeliveries(database: TenantDatabase, now: Date): Promise<DueDelivery[]> {
  const rows = await database.all<{
    subscription_id: string
    url: string
    outbox_seq: number
    attempts: number
    id: string
    type: string
    source: string
    subject: string | null
    time: Date
    data: string
  }>(
    `SELECT d.subscription_id, s.url, d.outbox_seq, d.attempts, o.id, o.type, o.source, o.subject, o.time,
            o.data::VARCHAR AS data
       FROM webhook_deliveries d
       JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
       JOIN outbox o ON o.seq = d.outbox_seq
      WHERE d.state = 'pending' AND d.next_attempt_at <= $1
      ORDER BY d.outbox_seq, d.subscription_id
      LIMIT $2`,
    [stamp(now), BATCH],
  )
  return rows.map((row) => ({
    subscriptionId: row.subscription_id,
    url: row.url,
    seq: Number(row.outbox_seq),
    attempts: Number(row.attempts),
    // The envelope `events export` writes for the same outbox row.
    event: {
      specversion: '1.0',
      id: row.id,
      type: row.type,
      source: row.source,
      time: row.time.toISOString(),
      datacontenttype: 'application/json',
      ...(row.subject === null ? {} : { subject: row.subject }),
      data: JSON.parse(row.data) as Record<string, unknown>,
    },
  }))
}

/** How an attempt was recorded: dead or not, when the next one is due, and whether to go on. */
interface Recorded {
  dead: boolean
  retryAt: Date
  active: boolean
}

async function recordOutcome(
  database: TenantDatabase,
  delivery: DueDelivery,
  outcome: PostOutcome,
  settings: WebhookDeliverySettings,
  now: Date,
  random: () => number,
): Promise<Recorded> {
  const key = [delivery.subscriptionId, delivery.seq] as const
  // One run at a time per tenant and one process per database: the count read with the due
  // delivery is still the count.
  const attempts = delivery.attempts + 1
  const retryAt = new Date(now.getTime() + backoffDelay(attempts, settings, random))
  const dead = !outcome.ok && attempts >= settings.maxAttempts
  if (outcome.ok) {
    await database.run(
      `UPDATE webhook_deliveries
          SET state = 'delivered', attempts = $3, last_status = $4, last_error = NULL,
              next_attempt_at = NULL, updated_at = $5, delivered_at = $5
        WHERE subscription_id = $1 AND outbox_seq = $2`,
      [...key, attempts, outcome.status, stamp(now)],
    )
  } else {
    await database.run(
      `UPDATE webhook_deliveries
          SET state = $3, attempts = $4, last_status = $5, last_error = $6, next_attempt_at = $7, updated_at = $8
        WHERE subscription_id = $1 AND outbox_seq = $2`,
      [
        ...key,
        dead ? 'dead' : 'pending',
        attempts,
        outcome.status,
        outcome.error,
        dead ? null : stamp(retryAt),
        stamp(now),
      ],
    )
    if (outcome.consumerDown) {
      // The consumer is down, not this event: its other events wait for the same retry.
      await database.run(
        `UPDATE webhook_deliveries SET next_attempt_at = $2, updated_at = $3
          WHERE subscription_id = $1 AND state = 'pending' AND next_attempt_at < $2`,
        [delivery.subscriptionId, stamp(retryAt), stamp(now)],
      )
    }
  }
  const subscription = await database.one<{ status: string }>(
    'SELECT status FROM webhook_subscriptions WHERE id = $1',
    [delivery.subscriptionId],
  )
  return { dead, retryAt, active: subscription?.status === 'active' }
}

/**
 * Delivers every event that is due now to the active subscriptions of the tenant: queues the new
 * outbox events, then sends the due ones batch by batch (one subscription's events in outbox
 * order, up to `concurrency` subscriptions at once), recording each attempt as soon as it is
 * answered. An event retried within the run (a backoff shorter than the run) is sent again in it.
 */
export async function deliverDue(access: TenantAccess, options: DeliveryOptions = {}): Promise<DeliveryRun> {
  const settings = deliverySettings(options.settings)
  const now = options.now ?? (() => new Date())
  const random = options.random ?? Math.random
  const stop = options.shouldStop ?? (() => false)
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const run = { attempts: 0, delivered: 0, failed: 0, dead: 0 }

  for (let first = true; !stop(); first = false) {
    const due = await access(async ({ database }) => {
      const queue = await enqueueNewEvents(database, now())
      return queue.subscriptions === 0 ? null : dueDeliveries(database, now())
    })
    // A tenant without subscriptions costs one query per look.
    if (due === null && first) return { ...run, subscriptions: 0, pending: 0, next_attempt_at: null }
    if (due === null || due.length === 0) break
    const groups = new Map<string, DueDelivery[]>()
    for (const delivery of due) {
      const group = groups.get(delivery.subscriptionId)
      if (group) group.push(delivery)
      else groups.set(delivery.subscriptionId, [delivery])
    }
    await eachLimited([...groups.values()], concurrency, async (group) => {
      for (const delivery of group) {
        if (stop()) return
        const outcome = await postCloudEvent(delivery.url, delivery.event, {
          timeoutMs: settings.timeoutMs,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        })
        run.attempts++
        const recorded = await access(({ database }) =>
          recordOutcome(database, delivery, outcome, settings, now(), random),
        )
        if (outcome.ok) run.delivered++
        else if (recorded.dead) run.dead++
        else run.failed++
        if (!recorded.active || (!outcome.ok && outcome.consumerDown)) return
      }
    })
  }
  const left = await access(({ database }) => deliveryBacklog(database))
  return { ...left, ...run }
}

/** How many subscriptions are active. */
async function activeSubscriptions(database: TenantDatabase): Promise<number> {
  const row = await database.one<{ n: number }>(
    "SELECT count(*)::INTEGER AS n FROM webhook_subscriptions WHERE status = 'active'",
  )
  return row?.n ?? 0
}

/** Active subscriptions, their pending events and the first one due. */
async function deliveryBacklog(
  database: TenantDatabase,
): Promise<Pick<DeliveryRun, 'subscriptions' | 'pending' | 'next_attempt_at'>> {
  const row = await database.one<{ subscriptions: number; pending: number; next_attempt_at: Date | null }>(
    `SELECT (SELECT count(*) FROM webhook_subscriptions WHERE status = 'active') AS subscriptions,
            count(d.outbox_seq) AS pending, min(d.next_attempt_at) AS next_attempt_at
       FROM webhook_deliveries d
       JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
      WHERE d.state = 'pending'`,
  )
  return {
    subscriptions: Number(row?.subscriptions ?? 0),
    pending: Number(row?.pending ?? 0),
    next_attempt_at: isoOf(row?.next_attempt_at),
  }
}

/**
 * Delivers until nothing is pending: every event is delivered or dead. Between runs it sleeps
 * until the first retry is due. For `events deliver --until-idle`.
 */
export async function deliverUntilIdle(
  access: TenantAccess,
  options: DeliveryOptions & { sleep?: (ms: number) => Promise<void> } = {},
): Promise<DeliveryRun> {
  const now = options.now ?? (() => new Date())
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const total = { attempts: 0, delivered: 0, failed: 0, dead: 0 }
  for (;;) {
    const run = await deliverDue(access, options)
    total.attempts += run.attempts
    total.delivered += run.delivered
    total.failed += run.failed
    total.dead += run.dead
    const result = { ...run, ...total }
    if (run.pending === 0 || run.next_attempt_at === null || options.shouldStop?.()) return result
    await sleep(Math.max(10, Date.parse(run.next_attempt_at) - now().getTime()))
  }
}

/**
 * A `TenantAccess` over a database this process holds alone (the CLI): one piece of work at a
 * time, since the statements of concurrent deliveries share one connection.
 */
export function serialAccess(tenant: WebhookTenant): TenantAccess {
  let tail: Promise<unknown> = Promise.resolve()
  return <T>(work: (open: WebhookTenant) => Promise<T>): Promise<T> => {
    const result = tail.then(
      () => work(tenant),
      () => work(tenant),
    )
    tail = result.catch(() => undefined)
    return result
  }
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T
      await work(item)
    }
  })
  await Promise.all(lanes)
}

/** What the background loop logs. */
export interface DeliveryLogEntry {
  msg: 'webhook delivery' | 'webhook delivery failed'
  tenant: string
  run?: DeliveryRun
  error?: string
}

export interface DeliveryLoopOptions extends DeliveryDependencies {
  /** The tenants to serve: the server's open ones. */
  tenants: () => string[]
  /** The tenant behind the server's per-tenant lock. */
  access: (tenant: string) => TenantAccess
  /**
   * The tenant read beside other reads (the server's read lane): a look that finds no active
   * subscription takes the tenant's lock not at all, so that it does not queue behind a long
   * derivation and hold up the requests queued after it.
   */
  read?: (tenant: string) => TenantAccess
  settings?: Partial<WebhookDeliverySettings>
  /** How often every tenant is looked at for due deliveries (ms); default 1000. */
  intervalMs?: number
  log?: (entry: DeliveryLogEntry) => void
}

/**
 * The server's background delivery: every `intervalMs`, and when nudged after a change, a run of
 * `deliverDue` per tenant, one run at a time per tenant (a nudge during a run makes one more
 * after it). Nothing lives only in memory: the delivery log is the state, so a restart resumes
 * where the last recorded attempt left off (an unrecorded one is sent again: at least once).
 */
export class WebhookDeliveryLoop {
  private timer: NodeJS.Timeout | undefined
  private readonly running = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  /** Whether the tenant had subscriptions at its last run: nudges of one without wait for the next look. */
  private readonly subscribed = new Map<string, boolean>()
  private stopped = false

  constructor(private readonly options: DeliveryLoopOptions) {}

  /** Starts the periodic look at every tenant. */
  start(): void {
    if (this.timer || this.stopped) return
    this.timer = setInterval(() => {
      for (const tenant of this.options.tenants()) if (!this.running.has(tenant)) this.run(tenant)
    }, this.options.intervalMs ?? 1000)
    this.timer.unref()
  }

  /**
   * Asks for a run on the tenant now: events may have been appended. A tenant that had no
   * subscription at its last run is left to the periodic look, so that a stream of writes to it
   * costs no query each.
   */
  nudge(tenant: string): void {
    if (this.stopped || this.subscribed.get(tenant) === false) return
    if (this.running.has(tenant)) this.again.add(tenant)
    else this.run(tenant)
  }

  /** Resolves once no run is going on for the tenant. */
  async idle(tenant: string): Promise<void> {
    for (let running = this.running.get(tenant); running; running = this.running.get(tenant)) await running
  }

  /**
   * Stops looking and waits for the runs in flight: each finishes the requests it has sent (each
   * bounded by the attempt timeout) and records them, and sends no more.
   */
  async stop(): Promise<void> {
    this.stopped = true
    clearInterval(this.timer)
    this.timer = undefined
    this.again.clear()
    await Promise.all([...this.running.values()])
  }

  private run(tenant: string): void {
    const { tenants: _tenants, access, read, log, intervalMs: _interval, ...delivery } = this.options
    const subscribed = read
      ? read(tenant)(({ database }) => activeSubscriptions(database)).then((count) => count > 0)
      : Promise.resolve(true)
    const running = subscribed
      .then((any) =>
        any
          ? deliverDue(access(tenant), { ...delivery, shouldStop: () => this.stopped })
          : {
              subscriptions: 0,
              pending: 0,
              next_attempt_at: null,
              attempts: 0,
              delivered: 0,
              failed: 0,
              dead: 0,
            },
      )
      .then((run) => {
        this.subscribed.set(tenant, run.subscriptions > 0)
        if (run.attempts > 0) log?.({ msg: 'webhook delivery', tenant, run })
      })
      .catch((error: unknown) => {
        if (!this.stopped) {
          log?.({
            msg: 'webhook delivery failed',
            tenant,
            error: error instanceof Error ? error.message : String(error),
          })
        }
      })
      .finally(() => {
        this.running.delete(tenant)
        if (this.again.delete(tenant) && !this.stopped) this.run(tenant)
      })
    this.running.set(tenant, running)
  }
}
