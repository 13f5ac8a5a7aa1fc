import type { WebhookDeliverySettings } from '../schemas/webhooks.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import {
  type AttemptRecord,
  type DueDelivery,
  deliveryBacklog,
  enqueueNewEvents,
  type LaneWork,
  laneWork,
  waitingSubscriptions,
  writeAttempts,
} from './delivery-log.js'
import { outboxEventOf } from './outbox.js'
import { afterFailure, deliverySettings } from './retry-policy.js'
import { type PostOutcome, type PreparedEvent, prepareCloudEvent } from './webhook-post.js'
import { sameThreadSender, type WebhookSender, webhookSender } from './webhook-sender.js'

/**
 * At-least-once delivery of the outbox's CloudEvents to webhook subscriptions. Each active
 * subscription has a cursor over the outbox; new events past it are queued in the delivery log
 * (`webhook_deliveries`) and POSTed in structured mode, in outbox order, by the subscription's own
 * lane: one request in flight per subscription, every subscription independent of the others, so
 * that a slow, failing or hung consumer delays nobody but itself. A failed attempt is retried as
 * the retry policy says (retry-policy.ts) until its window ends. The event id is the outbox
 * event's, the same in every attempt, so that consumers can drop duplicates.
 *
 * The database is reached only through a `TenantAccess`, for short bookkeeping steps; every HTTP
 * request is sent outside it, and no DuckDB transaction spans a request.
 */

/** What delivery needs of a tenant: its database and the base URL its events' sources hang on. */
export interface WebhookTenant {
  database: TenantDatabase
  baseUrl: string
  /**
   * The last outbox event that may be sent now, when not the last one committed: while the
   * server runs a batch (a nightly run handed to it), the events of the state before it, so that a
   * consumer that reads the API on an event finds what the event says.
   */
  outboxHorizon?: number | undefined
}

/**
 * Runs a short piece of bookkeeping on the tenant: the server passes its delivery lane, the CLI
 * `serialAccess` over the database it holds.
 */
export type TenantAccess = <T>(work: (tenant: WebhookTenant) => Promise<T>) => Promise<T>

/** IO and randomness of delivery, passed in so that tests can use short backoffs and real receivers. */
export interface DeliveryDependencies {
  now?: () => Date
  /** A number in [0, 1]: the jitter of the backoff. */
  random?: () => number
  /** Who sends the requests; by default this thread. */
  sender?: WebhookSender
}

export interface DeliveryOptions extends DeliveryDependencies {
  settings?: Partial<WebhookDeliverySettings>
  /**
   * Asked before each run of requests, and by the default sender (this thread's) before each
   * request: true stops the lanes after the requests in flight. A sender of its own thread is told
   * by its `stopSending`.
   */
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
  /** Events given up on (dead letters): an attempt failed after their retry window ended. */
  dead: number
  /** Events still pending for the active subscriptions. */
  pending: number
  /** When the first of them is due; null when none is pending. */
  next_attempt_at: string | null
}

/** What a lane did. */
export interface LaneCounts {
  attempts: number
  delivered: number
  failed: number
  dead: number
}

/** Due events a lane reads at once. */
const LANE_BATCH = 500

/**
 * Serialised events kept for the other lanes of the tenant: subscriptions that follow the same
 * outbox send the same events at about the same time, and serialise each once.
 */
const PREPARED_KEPT = 4 * LANE_BATCH

/** Events a lane hands its sender at once: sent one after the other, recorded together. */
const RUN = 50

/**
 * Events a lane may have sent and not recorded (two runs): the most events of one subscription
 * that a crash can make go twice (with the one whose request is in flight).
 */
export const UNRECORDED_LIMIT = 2 * RUN

/** Longest an attempt waits for its commit while nobody waits for it (ms). */
const COMMIT_INTERVAL_MS = 100

/** Attempts that start a commit at once, however recent the last. */
const COMMIT_MAX = 2000

/**
 * Records attempts in the order they come, many to a commit: a commit costs DuckDB much the same
 * for 100 attempts as for 500. An attempt is committed by the time its lane needs it (the lane
 * says how soon: the time its next run of requests is likely to take), at the latest after
 * COMMIT_INTERVAL_MS, and at once when a lane waits for it (`urge`). So a lane alone gets its
 * records while it sends its next run, and many lanes share commits of hundreds of attempts.
 */
class AttemptLog {
  private queue: {
    record: AttemptRecord
    resolve: (died: number) => void
    reject: (error: unknown) => void
  }[] = []
  private writing = false
  /** When the next commit is due (performance.now()). */
  private dueAt = Number.POSITIVE_INFINITY
  /** How long the last commit took (ms): a commit due by a time starts that much before it. */
  private commitMs = 0
  private wakeWriter: (() => void) | undefined

  constructor(private readonly access: TenantAccess) {}

  /**
   * Resolves once the attempt is committed, with the number of events that died with it; the
   * attempt is committed within about `withinMs` unless a lane urges it sooner.
   */
  add(record: AttemptRecord, withinMs = 0): Promise<number> {
    const committed = new Promise<number>((resolve, reject) => this.queue.push({ record, resolve, reject }))
    const wait = Math.min(COMMIT_INTERVAL_MS, Math.max(0, withinMs - this.commitMs))
    const dueBefore = this.dueAt
    this.dueAt = Math.min(this.dueAt, performance.now() + wait)
    if (!this.writing) {
      this.writing = true
      void this.writeAll()
    } else if (this.dueAt < dueBefore || this.queue.length >= COMMIT_MAX) this.wakeWriter?.()
    return committed
  }

  /** A lane waits for what it recorded: the attempts queued are committed now. */
  urge(): void {
    if (this.queue.length === 0) return
    this.dueAt = 0
    this.wakeWriter?.()
  }

  private async writeAll(): Promise<void> {
    // The attempts answered in this turn of the event loop share the first commit.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.queue.length > 0) {
      await this.due()
      this.dueAt = Number.POSITIVE_INFINITY
      const batch = this.queue.splice(0)
      const started = performance.now()
      try {
        const died = await this.access(({ database }) =>
          writeAttempts(
            database,
            batch.map((entry) => entry.record),
          ),
        )
        for (const [index, entry] of batch.entries()) entry.resolve(died[index] ?? 0)
      } catch (error) {
        for (const entry of batch) entry.reject(error)
      }
      this.commitMs = performance.now() - started
    }
    this.writing = false
  }

  /** Resolves when the next commit is due (looked at again whenever woken: urged, due sooner, many queued). */
  private async due(): Promise<void> {
    for (;;) {
      const wait = this.dueAt - performance.now()
      if (wait <= 0 || this.queue.length >= COMMIT_MAX) return
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer)
          this.wakeWriter = undefined
          resolve()
        }
        const timer = setTimeout(done, wait)
        this.wakeWriter = done
      })
    }
  }
}

export interface TenantDeliveryOptions extends DeliveryOptions {
  /** Called with the time a retry is due, to look again then. */
  wake?: (at: Date) => void
  /** Called when a lane ends, with what it did. */
  laneDone?: (subscriptionId: string, counts: LaneCounts) => void
  /** Called when a lane fails (its database closed, an unexpected error). */
  laneFailed?: (subscriptionId: string, error: unknown) => void
}

/**
 * The delivery of one tenant's events: a look (`scan`) queues the new outbox events and starts a
 * lane for each subscription with due events; a lane sends its subscription's due events one
 * after the other, reading more until none is due, and stops when its consumer is down (a look
 * after the retry time starts it again).
 */
export class TenantDelivery {
  readonly counts: LaneCounts = { attempts: 0, delivered: 0, failed: 0, dead: 0 }
  private readonly lanes = new Map<string, Promise<void>>()
  /** Subscriptions a look found due while their lane ran: the lane reads once more before it ends. */
  private readonly more = new Set<string>()
  private readonly log: AttemptLog
  /** Events serialised lately, by outbox sequence number, oldest first. */
  private readonly prepared = new Map<number, PreparedEvent>()
  private readonly settings: WebhookDeliverySettings
  private readonly now: () => Date
  private readonly random: () => number
  private readonly stop: () => boolean
  private readonly sender: WebhookSender

  constructor(
    private readonly access: TenantAccess,
    private readonly options: TenantDeliveryOptions = {},
  ) {
    this.log = new AttemptLog(access)
    this.settings = deliverySettings(options.settings)
    this.now = options.now ?? (() => new Date())
    this.random = options.random ?? Math.random
    this.stop = options.shouldStop ?? (() => false)
    this.sender = options.sender ?? sameThreadSender(this.stop)
  }

  /**
   * Queues the new outbox events and starts the lanes of the subscriptions with due events.
   * Returns the number of active subscriptions and when the next subscription not due yet is.
   */
  async scan(): Promise<{ subscriptions: number; next: Date | null }> {
    const now = this.now()
    const found = await this.access(async ({ database, outboxHorizon }) => {
      const queued = await enqueueNewEvents(database, now, outboxHorizon)
      if (queued.subscriptions === 0) return { subscriptions: 0, waiting: [] }
      return { subscriptions: queued.subscriptions, waiting: await waitingSubscriptions(database) }
    })
    let next: Date | null = null
    for (const { id, dueAt } of found.waiting) {
      if (dueAt.getTime() <= now.getTime()) this.startLane(id)
      else if (!next || dueAt < next) next = dueAt
    }
    return { subscriptions: found.subscriptions, next }
  }

  /** Resolves once no lane runs. */
  async idle(): Promise<void> {
    while (this.lanes.size > 0) await Promise.all(this.lanes.values())
  }

  private startLane(id: string): void {
    if (this.lanes.has(id)) {
      this.more.add(id)
      return
    }
    const counts: LaneCounts = { attempts: 0, delivered: 0, failed: 0, dead: 0 }
    const lane = this.runLane(id, counts)
      .catch((error: unknown) => this.options.laneFailed?.(id, error))
      .finally(() => {
        this.lanes.delete(id)
        if (counts.attempts > 0) this.options.laneDone?.(id, counts)
        // A look that found the subscription due as the lane was ending: it runs again.
        if (this.more.delete(id) && !this.stop()) this.startLane(id)
      })
    this.lanes.set(id, lane)
  }

  /** The outbox event `seq` serialised, once for every lane that sends it lately. */
  private prepare({ seq, row }: DueDelivery): PreparedEvent {
    let prepared = this.prepared.get(seq)
    if (!prepared) {
      // The envelope `events export` writes for the same outbox row.
      prepared = prepareCloudEvent(outboxEventOf(row))
      this.prepared.set(seq, prepared)
      if (this.prepared.size > PREPARED_KEPT)
        this.prepared.delete(this.prepared.keys().next().value as number)
    }
    return prepared
  }

  private count(counts: LaneCounts, key: keyof LaneCounts, by = 1): void {
    counts[key] += by
    this.counts[key] += by
  }

  private async runLane(id: string, counts: LaneCounts): Promise<void> {
    for (;;) {
      if (this.stop()) return
      this.more.delete(id)
      const work = await this.access(({ database }) =>
        laneWork(database, id, this.now(), this.settings, LANE_BATCH),
      )
      if (!work || work.deliveries.length === 0) {
        if (work && this.more.has(id)) continue
        return
      }
      const lane: LaneState = { id, work, counts, waited: work.waited, runMs: 0 }
      let recorded: Promise<unknown> = Promise.resolve()
      for (let start = 0; start < work.deliveries.length && !this.stop(); start += RUN) {
        const run = work.deliveries.slice(start, start + RUN)
        const sending = performance.now()
        const outcomes = await this.sender.send(
          work.url,
          run.map((delivery) => this.prepare(delivery)),
          { timeoutMs: work.policy.timeoutMs },
        )
        // The next run is likely to take as long: this one's records are needed by its end.
        lane.runMs = performance.now() - sending
        // The run before is recorded before this one is: at most two runs are sent and not recorded.
        await this.committed(recorded)
        const { last, down } = this.record(lane, run, outcomes)
        // Awaited at the next run; a failed commit must not count as an unhandled rejection meanwhile.
        last.catch(() => undefined)
        recorded = last
        if (down) {
          this.count(counts, 'dead', await this.committed(last))
          // Down: the subscription waits for the retry. Dead: the events behind it whose window
          // ended too died with it; the next are read again.
          if (!down.dead) return
          break
        }
      }
      await this.committed(recorded)
    }
  }

  /** `record` once committed: the lane waits for it, so it is committed now. */
  private committed<T>(record: Promise<T>): Promise<T> {
    this.log.urge()
    return record
  }

  /**
   * Records the outcomes of a run (the events sent, in order) and counts them. Returns the record
   * of the last one, and whether the run ended at a failure of its consumer (which the lane
   * stops at, and whether its event died).
   */
  private record(
    lane: LaneState,
    run: readonly DueDelivery[],
    outcomes: readonly PostOutcome[],
  ): { last: Promise<number>; down: { dead: boolean } | undefined } {
    const at = this.now()
    let last: Promise<number> = Promise.resolve(0)
    let down: { dead: boolean } | undefined
    for (const [index, outcome] of outcomes.entries()) {
      const delivery = run[index] as DueDelivery
      const attempts = delivery.attempts + 1
      this.count(lane.counts, 'attempts')
      if (outcome.ok) {
        this.count(lane.counts, 'delivered')
        last = this.log.add(
          {
            kind: 'delivered',
            subscriptionId: lane.id,
            seq: delivery.seq,
            attempts,
            status: outcome.status as number,
            at,
            endsWait: lane.waited,
          },
          lane.runMs,
        )
        lane.waited = false
        continue
      }
      const policy = lane.work.policy
      const next = afterFailure(
        { queuedAt: delivery.queuedAt, failed: attempts, now: at },
        policy,
        this.random,
      )
      this.count(lane.counts, next.dead ? 'dead' : 'failed')
      last = this.log.add({
        kind: 'failed',
        subscriptionId: lane.id,
        seq: delivery.seq,
        attempts,
        at,
        status: outcome.status,
        error: outcome.error ?? 'failed',
        retryAt: next.dead ? null : next.retryAt,
        blocks: outcome.consumerDown && !next.dead,
        expireQueuedBefore:
          outcome.consumerDown && next.dead ? new Date(at.getTime() - policy.windowMs) : null,
      })
      if (!next.dead) this.options.wake?.(next.retryAt)
      if (outcome.consumerDown) down = { dead: next.dead }
    }
    return { last, down }
  }
}

/** A lane's run of due events, and what it has counted and still owes its subscription. */
interface LaneState {
  id: string
  work: LaneWork
  counts: LaneCounts
  /** The subscription waited for its consumer: the next acknowledgement ends the wait. */
  waited: boolean
  /** How long the lane's last run of requests took (ms): its records are needed within that. */
  runMs: number
}

/**
 * Delivers every event that is due now to the active subscriptions of the tenant: queues the new
 * outbox events, then runs a lane per subscription with due events until none is due (an event
 * retried within the run, after a backoff shorter than the run, is sent again in it).
 */
export async function deliverDue(access: TenantAccess, options: DeliveryOptions = {}): Promise<DeliveryRun> {
  const delivery = new TenantDelivery(access, options)
  const { subscriptions } = await delivery.scan()
  if (subscriptions === 0) {
    return {
      subscriptions: 0,
      attempts: 0,
      delivered: 0,
      failed: 0,
      dead: 0,
      pending: 0,
      next_attempt_at: null,
    }
  }
  await delivery.idle()
  const left = await access(({ database }) => deliveryBacklog(database))
  return { ...left, ...delivery.counts }
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
 * time, since the statements of concurrent lanes share one connection.
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

/** What the background loop logs. */
export interface DeliveryLogEntry {
  msg: 'webhook delivery' | 'webhook delivery failed'
  tenant: string
  subscription?: string
  run?: LaneCounts
  error?: string
}

export interface DeliveryLoopOptions extends DeliveryDependencies {
  /** The tenants to look at periodically: the server's open ones. */
  tenants: () => string[]
  /** The tenant's delivery lane (the server's), which opens it when it is not open. */
  access: (tenant: string) => TenantAccess
  /**
   * The tenants to look at once when the loop starts, open or not, and how to tell whether one
   * has events to deliver without keeping it open: those that do are opened and delivered to at
   * once, not at their first request.
   */
  startup?: { tenants: () => string[]; hasBacklog: (tenant: string) => Promise<boolean> }
  settings?: Partial<WebhookDeliverySettings>
  /** How often every open tenant is looked at for due deliveries (ms); default 1000. */
  intervalMs?: number
  log?: (entry: DeliveryLogEntry) => void
}

/**
 * The server's background delivery: every `intervalMs`, when nudged after a change, and when a
 * retry is due, a look at the tenant (one at a time per tenant; a nudge during a look makes one
 * more after it), which starts the lanes of its due subscriptions. Nothing lives only in memory:
 * the delivery log is the state, so a restart resumes where the last recorded attempt left off
 * (an unrecorded one is sent again: at least once).
 */
export class WebhookDeliveryLoop {
  private timer: NodeJS.Timeout | undefined
  private readonly deliveries = new Map<string, TenantDelivery>()
  private readonly scanning = new Map<string, Promise<void>>()
  private readonly again = new Set<string>()
  /** Per tenant: the timer of its next due retry, and when it fires. */
  private readonly wakes = new Map<string, { at: number; timer: NodeJS.Timeout }>()
  /** Whether the tenant had subscriptions at its last look: nudges of one without wait for the next tick. */
  private readonly subscribed = new Map<string, boolean>()
  /** Tenants whose look at startup failed (held by another process): tried again at each tick. */
  private readonly unchecked = new Set<string>()
  private stopped = false
  /** The requests of every tenant's lanes go through one sender: a thread of their own. */
  private readonly sender: WebhookSender

  constructor(private readonly options: DeliveryLoopOptions) {
    this.sender = options.sender ?? webhookSender()
  }

  /** Starts the periodic look at every open tenant, and looks at every tenant of `startup`. */
  start(): void {
    if (this.timer || this.stopped) return
    this.timer = setInterval(() => {
      for (const tenant of this.options.tenants()) if (!this.scanning.has(tenant)) this.scan(tenant)
      for (const tenant of this.unchecked) void this.check(tenant)
    }, this.options.intervalMs ?? 1000)
    this.timer.unref()
    for (const tenant of this.options.startup?.tenants() ?? []) void this.check(tenant)
  }

  /**
   * Asks for a look at the tenant now: events may have been appended. A tenant that had no
   * subscription at its last look is left to the periodic look, so that a stream of writes to it
   * costs no query each.
   */
  nudge(tenant: string): void {
    if (this.stopped || this.subscribed.get(tenant) === false) return
    this.scan(tenant)
  }

  /** Resolves once no look and no lane is running for the tenant. */
  async idle(tenant: string): Promise<void> {
    for (;;) {
      const scanning = this.scanning.get(tenant)
      if (scanning) await scanning
      await this.deliveries.get(tenant)?.idle()
      if (!this.scanning.has(tenant)) return
    }
  }

  /**
   * Stops looking and waits for the lanes: each finishes the request it has in flight (bounded by
   * the attempt timeout) and records it, and sends no more.
   */
  async stop(): Promise<void> {
    this.stopped = true
    this.sender.stopSending()
    clearInterval(this.timer)
    this.timer = undefined
    for (const wake of this.wakes.values()) clearTimeout(wake.timer)
    this.wakes.clear()
    this.again.clear()
    await Promise.all([...this.scanning.values()])
    await Promise.all([...this.deliveries.values()].map((delivery) => delivery.idle()))
    if (!this.options.sender) await this.sender.close()
  }

  private async check(tenant: string): Promise<void> {
    const startup = this.options.startup
    if (!startup || this.stopped) return
    this.unchecked.delete(tenant)
    try {
      if (await startup.hasBacklog(tenant)) this.scan(tenant)
    } catch (error) {
      if (this.stopped) return
      this.unchecked.add(tenant)
      this.options.log?.({ msg: 'webhook delivery failed', tenant, error: messageOf(error) })
    }
  }

  private delivery(tenant: string): TenantDelivery {
    let delivery = this.deliveries.get(tenant)
    if (!delivery) {
      const { log } = this.options
      delivery = new TenantDelivery(this.options.access(tenant), {
        ...(this.options.settings ? { settings: this.options.settings } : {}),
        ...(this.options.now ? { now: this.options.now } : {}),
        ...(this.options.random ? { random: this.options.random } : {}),
        sender: this.sender,
        shouldStop: () => this.stopped,
        wake: (at) => this.wake(tenant, at),
        laneDone: (subscription, run) => log?.({ msg: 'webhook delivery', tenant, subscription, run }),
        laneFailed: (subscription, error) => {
          if (!this.stopped) {
            log?.({ msg: 'webhook delivery failed', tenant, subscription, error: messageOf(error) })
          }
        },
      })
      this.deliveries.set(tenant, delivery)
    }
    return delivery
  }

  /** Looks at the tenant when `at` comes, unless an earlier look is planned already. */
  private wake(tenant: string, at: Date): void {
    if (this.stopped) return
    const current = this.wakes.get(tenant)
    if (current && current.at <= at.getTime()) return
    if (current) clearTimeout(current.timer)
    const timer = setTimeout(
      () => {
        this.wakes.delete(tenant)
        this.scan(tenant)
      },
      // setTimeout takes at most 2^31 − 1 ms; the periodic look covers a later retry meanwhile.
      Math.min(MAX_WAKE_MS, Math.max(0, at.getTime() - Date.now())),
    )
    timer.unref()
    this.wakes.set(tenant, { at: at.getTime(), timer })
  }

  private scan(tenant: string): void {
    if (this.stopped) return
    if (this.scanning.has(tenant)) {
      this.again.add(tenant)
      return
    }
    const running = this.delivery(tenant)
      .scan()
      .then(({ subscriptions, next }) => {
        this.subscribed.set(tenant, subscriptions > 0)
        if (next) this.wake(tenant, next)
      })
      .catch((error: unknown) => {
        if (!this.stopped)
          this.options.log?.({ msg: 'webhook delivery failed', tenant, error: messageOf(error) })
      })
      .finally(() => {
        this.scanning.delete(tenant)
        if (this.again.delete(tenant)) this.scan(tenant)
      })
    this.scanning.set(tenant, running)
  }
}

const MAX_WAKE_MS = 24 * 3_600_000

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))
