import type { WebhookDeliverySettings } from '../schemas/webhooks.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { DuckDBTimestampValue, listValue } from '../vendor/duckdb.js'
import type { OutboxRow } from './outbox.js'
import { effectivePolicy, type OwnPolicy } from './retry-policy.js'

/**
 * The delivery log (`webhook_deliveries`) and the delivery state of subscriptions: the whole
 * state of webhook delivery, so that a process that stops (a crash, a shutdown) resumes from it.
 * Each function is one short piece of bookkeeping; none sends a request.
 */

export const stamp = (time: Date) => new DuckDBTimestampValue(BigInt(time.getTime()) * 1000n)
const isoOf = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : null)

/**
 * Queues for every active subscription the outbox events past its cursor that its filter takes,
 * and moves its cursor to the end of the outbox, in one transaction. Returns the number of active
 * subscriptions and of the events queued.
 *
 * On the server this runs beside a derivation, which appends to the outbox in its own
 * transaction: the end seen here is the end of what is committed, and the derivation's events
 * (whose sequence numbers are all higher, since nothing else appends meanwhile) are queued by the
 * look after its commit.
 */
export async function enqueueNewEvents(
  database: TenantDatabase,
  now: Date,
  /** The last event that may be queued (see WebhookTenant.outboxHorizon); all when undefined. */
  horizon?: number,
): Promise<{ subscriptions: number; queued: number }> {
  const position = await database.one<{ last: number | null; lowest: number | null; active: number }>(
    `SELECT (SELECT max(seq) FROM outbox) AS last, min(cursor_seq) AS lowest, count(*) AS active
       FROM webhook_subscriptions WHERE status = 'active'`,
  )
  const subscriptions = Number(position?.active ?? 0)
  const last = Math.min(Number(position?.last ?? 0), horizon ?? Number.POSITIVE_INFINITY)
  if (subscriptions === 0 || Number(position?.lowest ?? last) >= last) return { subscriptions, queued: 0 }
  const queued = await database.transaction(async () => {
    const inserted = await queueEvents(database, now, { toSeq: last })
    await database.run(
      `UPDATE webhook_subscriptions SET cursor_seq = $1 WHERE status = 'active' AND cursor_seq < $1`,
      [last],
    )
    return inserted.length
  })
  return { subscriptions, queued }
}

/**
 * Queues outbox events up to `toSeq` that a subscription's event types take, as pending and due
 * `now`: past its cursor for every active subscription, or from `fromSeq` on for one (a replay).
 * An event queued already is left as it is. Returns the sequence numbers queued.
 */
export async function queueEvents(
  database: TenantDatabase,
  now: Date,
  scope: { toSeq: number } | { toSeq: number; subscriptionId: string; fromSeq: number },
): Promise<number[]> {
  const replay = 'subscriptionId' in scope
  const rows = await database.all<{ outbox_seq: number }>(
    `INSERT INTO webhook_deliveries
       (subscription_id, outbox_seq, event_id, event_type, state, attempts, next_attempt_at, created_at,
        updated_at, queued_at)
     SELECT s.id, o.seq, o.id, o.type, 'pending', 0, $1, $1, $1, $1
       FROM webhook_subscriptions s
       JOIN outbox o ON o.seq <= $2 AND ${replay ? 'o.seq >= $4' : 'o.seq > s.cursor_seq'}
      WHERE ${replay ? 's.id = $3' : "s.status = 'active'"}
        AND (len(s.event_types) = 0 OR list_contains(s.event_types, o.type))
     ON CONFLICT DO NOTHING
     RETURNING outbox_seq`,
    replay ? [stamp(now), scope.toSeq, scope.subscriptionId, scope.fromSeq] : [stamp(now), scope.toSeq],
  )
  return rows.map((row) => Number(row.outbox_seq))
}

/** A subscription with pending events, and when the first of them is due. */
export interface WaitingSubscription {
  id: string
  dueAt: Date
}

/**
 * The active subscriptions with pending events. A subscription whose consumer is down
 * (`retry_at`) is due when its retry is, whatever its events' own times.
 */
export async function waitingSubscriptions(database: TenantDatabase): Promise<WaitingSubscription[]> {
  const rows = await database.all<{ id: string; due_at: Date }>(
    `SELECT s.id, greatest(min(d.next_attempt_at), coalesce(s.retry_at, min(d.next_attempt_at))) AS due_at
       FROM webhook_subscriptions s
       JOIN webhook_deliveries d ON d.subscription_id = s.id AND d.state = 'pending'
      WHERE s.status = 'active'
      GROUP BY s.id, s.retry_at`,
  )
  return rows.map((row) => ({ id: row.id, dueAt: row.due_at }))
}

/** A queued delivery that is due, with its event. */
export interface DueDelivery {
  seq: number
  /** Attempts made before this one (since the event was queued or replayed). */
  attempts: number
  /** When the event was queued or replayed: its retry window starts here. */
  queuedAt: Date
  /** The outbox row of its event (`outboxEventOf` makes the envelope `events export` writes). */
  row: OutboxRow
}

/** What a subscription's lane sends next: its URL, its policy, its due events in outbox order. */
export interface LaneWork {
  url: string
  policy: WebhookDeliverySettings
  deliveries: DueDelivery[]
  /** The subscription waited for a retry of its consumer: its next acknowledgement ends the wait. */
  waited: boolean
}

/**
 * The next due events of one subscription, oldest first; null when it is not active or waits for
 * its consumer's retry.
 */
export async function laneWork(
  database: TenantDatabase,
  subscriptionId: string,
  now: Date,
  server: WebhookDeliverySettings,
  limit: number,
): Promise<LaneWork | null> {
  const subscription = await database.one<OwnPolicy & { url: string; status: string; retry_at: Date | null }>(
    `SELECT url, status, retry_at, retry_window_ms AS window_ms, backoff_base_ms, backoff_cap_ms, timeout_ms
       FROM webhook_subscriptions WHERE id = $1`,
    [subscriptionId],
  )
  if (subscription?.status !== 'active') return null
  if (subscription.retry_at && subscription.retry_at.getTime() > now.getTime()) return null
  // The due deliveries first, then their events: joined the other way round, every pending
  // event's data is read before the first `limit` are kept.
  const rows = await database.all<OutboxRow & { outbox_seq: number; attempts: number; queued_at: Date }>(
    `SELECT d.outbox_seq, d.attempts, d.queued_at, o.id, o.type, o.source, o.subject, o.time,
            o.data::VARCHAR AS data
       FROM (SELECT outbox_seq, attempts, queued_at FROM webhook_deliveries
              WHERE subscription_id = $1 AND state = 'pending' AND next_attempt_at <= $2
              ORDER BY outbox_seq
              LIMIT $3) d
       JOIN outbox o ON o.seq = d.outbox_seq
      ORDER BY d.outbox_seq`,
    [subscriptionId, stamp(now), limit],
  )
  return {
    url: subscription.url,
    policy: effectivePolicy(server, subscription),
    waited: subscription.retry_at !== null,
    deliveries: rows.map((row) => ({
      seq: Number(row.outbox_seq),
      attempts: Number(row.attempts),
      queuedAt: row.queued_at,
      row,
    })),
  }
}

/** The outcome of one attempt, to record. */
export type AttemptRecord =
  | {
      kind: 'delivered'
      subscriptionId: string
      seq: number
      attempts: number
      status: number
      at: Date
      /** The subscription waited for its consumer: this acknowledgement ends the wait. */
      endsWait: boolean
    }
  | {
      kind: 'failed'
      subscriptionId: string
      seq: number
      attempts: number
      status: number | null
      error: string
      at: Date
      /** When the event is tried again; null: it is dead. */
      retryAt: Date | null
      /** The consumer is down: the subscription waits for `retryAt` as a whole. */
      blocks: boolean
      /**
       * The event died while its consumer was down: the events queued behind it at or before
       * this time have seen their window end too, and die with it.
       */
      expireQueuedBefore: Date | null
    }

/**
 * Records attempts in one transaction: delivered events in one statement, failures one by one,
 * and per subscription its last error and whether it waits for its consumer. Returns, per
 * record, the number of events that died with it (unsent, behind it).
 */
export async function writeAttempts(
  database: TenantDatabase,
  records: readonly AttemptRecord[],
): Promise<number[]> {
  const diedWith = records.map(() => 0)
  if (records.length === 0) return diedWith
  await database.transaction(async () => {
    await markDelivered(
      database,
      records.filter((record) => record.kind === 'delivered'),
    )
    const subscriptions = new Map<string, SubscriptionOutcome>()
    for (const [index, record] of records.entries()) {
      const outcome = subscriptions.get(record.subscriptionId) ?? {}
      subscriptions.set(record.subscriptionId, outcome)
      if (record.kind === 'delivered') {
        if (record.endsWait) outcome.retryAt = null
        continue
      }
      await markFailed(database, record)
      outcome.error = { text: record.error, at: record.at }
      if (record.blocks) outcome.retryAt = record.retryAt
      if (record.expireQueuedBefore) {
        outcome.retryAt = null
        diedWith[index] = await expireQueuedBehind(database, record, record.expireQueuedBefore)
      }
    }
    const acknowledged: string[] = []
    for (const [id, outcome] of subscriptions) {
      if (outcome.error) await recordSubscriptionOutcome(database, id, outcome)
      else if (outcome.retryAt === null) acknowledged.push(id)
    }
    await clearRetries(database, acknowledged)
  })
  return diedWith
}

type DeliveredRecord = Extract<AttemptRecord, { kind: 'delivered' }>
type FailedRecord = Extract<AttemptRecord, { kind: 'failed' }>

/** What a subscription's attempts leave: its retry time (undefined: unchanged; null: none), its last error. */
interface SubscriptionOutcome {
  retryAt?: Date | null
  error?: { text: string; at: Date }
}

/** Marks delivered events delivered, all in one statement. */
async function markDelivered(database: TenantDatabase, delivered: readonly DeliveredRecord[]): Promise<void> {
  if (delivered.length === 0) return
  await database.run(
    `UPDATE webhook_deliveries d
        SET state = 'delivered', attempts = v.attempts, last_status = v.status, last_error = NULL,
            next_attempt_at = NULL, updated_at = epoch_ms(v.at), delivered_at = epoch_ms(v.at)
       FROM (SELECT unnest($1::VARCHAR[]) AS subscription_id, unnest($2::BIGINT[]) AS seq,
                    unnest($3::INTEGER[]) AS attempts, unnest($4::INTEGER[]) AS status,
                    unnest($5::BIGINT[]) AS at) v
      WHERE d.subscription_id = v.subscription_id AND d.outbox_seq = v.seq`,
    [
      listValue(delivered.map((record) => record.subscriptionId)),
      listValue(delivered.map((record) => record.seq)),
      listValue(delivered.map((record) => record.attempts)),
      listValue(delivered.map((record) => record.status)),
      listValue(delivered.map((record) => record.at.getTime())),
    ],
  )
}

/** Records a failed attempt: the event pending again at its retry time, or dead when it has none. */
async function markFailed(database: TenantDatabase, record: FailedRecord): Promise<void> {
  await database.run(
    `UPDATE webhook_deliveries
        SET state = $3, attempts = $4, last_status = $5::INTEGER, last_error = $6,
            next_attempt_at = $7::TIMESTAMP, updated_at = $8
      WHERE subscription_id = $1 AND outbox_seq = $2`,
    [
      record.subscriptionId,
      record.seq,
      record.retryAt === null ? 'dead' : 'pending',
      record.attempts,
      record.status,
      record.error,
      record.retryAt === null ? null : stamp(record.retryAt),
      stamp(record.at),
    ],
  )
}

/**
 * The events queued behind a dead one, at or before `queuedBefore`, die with it (their window
 * ended while the consumer was down). Returns how many died.
 */
async function expireQueuedBehind(
  database: TenantDatabase,
  record: FailedRecord,
  queuedBefore: Date,
): Promise<number> {
  const died = await database.all(
    `UPDATE webhook_deliveries
        SET state = 'dead', next_attempt_at = NULL, updated_at = $4,
            last_error = 'not sent: its retry window ended while the consumer was down (' || $5::VARCHAR || ')'
      WHERE subscription_id = $1 AND state = 'pending' AND outbox_seq > $2 AND queued_at <= $3
     RETURNING outbox_seq`,
    [record.subscriptionId, record.seq, stamp(queuedBefore), stamp(record.at), record.error],
  )
  return died.length
}

/**
 * Subscriptions that waited for their consumer and whose consumer acknowledged an attempt wait no
 * more: one statement for all of them (a commit of a fast consumer's acknowledgements has nothing
 * to change on its subscription, and makes no statement).
 */
async function clearRetries(database: TenantDatabase, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return
  await database.run(
    `UPDATE webhook_subscriptions SET retry_at = NULL
      WHERE retry_at IS NOT NULL AND id IN (SELECT unnest($1::VARCHAR[]))`,
    [listValue([...ids])],
  )
}

/** Records on a subscription its last error and whether it waits for its consumer (`retry_at`). */
async function recordSubscriptionOutcome(
  database: TenantDatabase,
  id: string,
  outcome: SubscriptionOutcome,
): Promise<void> {
  await database.run(
    `UPDATE webhook_subscriptions
        SET retry_at = CASE WHEN $2::BOOLEAN THEN $3::TIMESTAMP ELSE retry_at END,
            last_error = coalesce($4::VARCHAR, last_error),
            last_error_at = coalesce($5::TIMESTAMP, last_error_at)
      WHERE id = $1`,
    [
      id,
      outcome.retryAt !== undefined,
      outcome.retryAt ? stamp(outcome.retryAt) : null,
      outcome.error?.text ?? null,
      outcome.error ? stamp(outcome.error.at) : null,
    ],
  )
}

/** The backlog of the active subscriptions: events pending, and when the first of them is due. */
export async function deliveryBacklog(
  database: TenantDatabase,
): Promise<{ subscriptions: number; pending: number; next_attempt_at: string | null }> {
  const row = await database.one<{ subscriptions: number; pending: number; next_attempt_at: Date | null }>(
    `SELECT (SELECT count(*) FROM webhook_subscriptions WHERE status = 'active') AS subscriptions,
            count(d.outbox_seq) AS pending,
            min(greatest(d.next_attempt_at, coalesce(s.retry_at, d.next_attempt_at))) AS next_attempt_at
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
 * Whether an active subscription has events to deliver: pending in the log, or appended to the
 * outbox past its cursor and of a type it takes.
 */
export async function hasBacklog(database: TenantDatabase): Promise<boolean> {
  const row = await database.one<{ waiting: boolean }>(
    `SELECT EXISTS (
              SELECT 1 FROM webhook_deliveries d
                JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.status = 'active'
               WHERE d.state = 'pending')
            OR EXISTS (
              SELECT 1 FROM webhook_subscriptions s
                JOIN outbox o ON o.seq > s.cursor_seq
               WHERE s.status = 'active' AND (len(s.event_types) = 0 OR list_contains(s.event_types, o.type)))
            AS waiting`,
  )
  return row?.waiting === true
}
