import { randomBytes, randomUUID } from 'node:crypto'
import type { DuckDBValue } from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import { parseBody, parseQuery } from '../schemas/input-issues.js'
import {
  HEALTH_CHECK_EVENT_TYPE,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  WebhookDeliveryQuery,
  type WebhookReplay,
  WebhookReplayRequest,
  type WebhookSubscription,
  WebhookSubscriptionRequest,
  webhookUrlOf,
} from '../schemas/webhooks.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'
import { queueEvents, stamp } from './delivery-log.js'
import { sinceValue, typedEventSource } from './outbox.js'
import { deliverySettings } from './retry-policy.js'
import type { TenantAccess } from './webhook-delivery.js'
import { postCloudEvent } from './webhook-post.js'

/**
 * Webhook subscriptions of a tenant: `webhook add|list|remove` and `/webhooks`. A consumer is
 * subscribed only after it answered the health check event (6.2, rule 4) with a 2XX, and it
 * receives the events appended to the outbox after that.
 */

export interface SubscribeOptions {
  /** How long the health check waits for the consumer's answer (ms); default 10 s. */
  timeoutMs?: number
  now?: () => Date
}

/** A subscription's id: `wh_` and 24 hex digits (an ExternalId). */
const newSubscriptionId = () => `wh_${randomBytes(12).toString('hex')}`

/** The `ai.vendor.health_check` event (6.2): source `/webhooks` of the tenant's base URL, an empty data object. */
export function healthCheckEvent(baseUrl: string, time = new Date()): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: randomUUID(),
    type: HEALTH_CHECK_EVENT_TYPE,
    source: typedEventSource(baseUrl, HEALTH_CHECK_EVENT_TYPE),
    time: time.toISOString(),
    datacontenttype: 'application/json',
    data: {},
  }
}

/**
 * Subscribes `input.url` (optionally to some `event_types` only): 400/422 for a request that is
 * not one, 409 when the URL is subscribed already, 422 naming the URL and its answer when the
 * consumer does not answer the health check with a 2XX. The health check is sent outside the
 * tenant's lock; the subscription starts at the end of the outbox as it is when it is stored.
 */
export async function addSubscription(
  access: TenantAccess,
  input: unknown,
  options: SubscribeOptions = {},
): Promise<WebhookSubscription> {
  const request = parseBody(WebhookSubscriptionRequest, input, 'a webhook subscription')
  const url = webhookUrlOf(request.url)
  const eventTypes = [...new Set(request.event_types)]
  const now = options.now ?? (() => new Date())
  const baseUrl = await access(async ({ database, baseUrl }) => {
    await refuseSubscribed(database, url)
    return baseUrl
  })
  const policy = request.retry_policy ?? {}
  const answer = await postCloudEvent(url, healthCheckEvent(baseUrl, now()), {
    timeoutMs: options.timeoutMs ?? policy.timeout_ms ?? deliverySettings().timeoutMs,
  })
  if (!answer.ok) {
    throw errors.unprocessable(
      `url: the consumer at ${url} did not answer the ${HEALTH_CHECK_EVENT_TYPE} event with a 2XX status (${answer.error}); it must, to be subscribed`,
    )
  }
  return access(async ({ database }) => {
    await refuseSubscribed(database, url)
    const id = newSubscriptionId()
    await database.run(
      `INSERT INTO webhook_subscriptions
         (id, url, event_types, status, cursor_seq, created_at, retry_window_ms, backoff_base_ms,
          backoff_cap_ms, timeout_ms)
       SELECT $1, $2, $3, 'active', coalesce(max(seq), 0), $4, $5::BIGINT, $6::BIGINT, $7::BIGINT, $8::BIGINT
         FROM outbox`,
      [
        id,
        url,
        listValue(eventTypes),
        stamp(now()),
        policy.window_ms ?? null,
        policy.backoff_base_ms ?? null,
        policy.backoff_cap_ms ?? null,
        policy.timeout_ms ?? null,
      ],
    )
    return getSubscription(database, id)
  })
}

async function refuseSubscribed(database: TenantDatabase, url: string): Promise<void> {
  const existing = await database.one<{ id: string }>(
    `SELECT id FROM webhook_subscriptions WHERE url = $1 AND status = 'active'`,
    [url],
  )
  if (existing) throw errors.urlSubscribedAlready(url, existing.id)
}

type SubscriptionRow = {
  id: string
  url: string
  event_types: string[]
  status: WebhookSubscription['status']
  created_at: Date
  cursor_seq: number
  pending: number
  delivered: number
  dead: number
  oldest_seq: number | null
  oldest_id: string | null
  oldest_time: Date | null
  next_attempt_at: Date | null
  last_error: string | null
  last_error_at: Date | null
  retry_window_ms: number | null
  backoff_base_ms: number | null
  backoff_cap_ms: number | null
  timeout_ms: number | null
}

/**
 * The active subscriptions (or one) with their delivery state. The backlog counts the pending
 * events of the log and the outbox events past the cursor that the filter takes and that no look
 * has queued yet (the CLI queues them only when it delivers).
 */
async function subscriptionRows(database: TenantDatabase, id?: string): Promise<SubscriptionRow[]> {
  const params: DuckDBValue[] = []
  let where = `status = 'active'`
  if (id !== undefined) {
    params.push(id)
    where += ' AND id = $1'
  }
  return database.all<SubscriptionRow>(
    `WITH subs AS (SELECT * FROM webhook_subscriptions WHERE ${where}),
     logged AS (
       SELECT d.subscription_id,
              count(*) FILTER (WHERE d.state = 'pending') AS pending,
              count(*) FILTER (WHERE d.state = 'delivered') AS delivered,
              count(*) FILTER (WHERE d.state = 'dead') AS dead,
              min(d.outbox_seq) FILTER (WHERE d.state = 'pending') AS oldest_seq,
              min(d.next_attempt_at) FILTER (WHERE d.state = 'pending') AS next_at
         FROM webhook_deliveries d JOIN subs ON subs.id = d.subscription_id
        GROUP BY d.subscription_id),
     unqueued AS (
       SELECT subs.id AS subscription_id, count(*) AS n, min(o.seq) AS first_seq
         FROM subs JOIN outbox o ON o.seq > subs.cursor_seq
        WHERE len(subs.event_types) = 0 OR list_contains(subs.event_types, o.type)
        GROUP BY subs.id)
     SELECT s.id, s.url, s.event_types, s.status, s.created_at, s.cursor_seq,
            coalesce(l.pending, 0) + coalesce(u.n, 0) AS pending,
            coalesce(l.delivered, 0) AS delivered, coalesce(l.dead, 0) AS dead,
            o.seq AS oldest_seq, o.id AS oldest_id, o.time AS oldest_time,
            CASE WHEN l.next_at IS NOT NULL THEN greatest(l.next_at, coalesce(s.retry_at, l.next_at))
                 WHEN u.n > 0 THEN coalesce(s.retry_at, o.time) END AS next_attempt_at,
            s.last_error, s.last_error_at,
            s.retry_window_ms, s.backoff_base_ms, s.backoff_cap_ms, s.timeout_ms
       FROM subs s
       LEFT JOIN logged l ON l.subscription_id = s.id
       LEFT JOIN unqueued u ON u.subscription_id = s.id
       LEFT JOIN outbox o ON o.seq = coalesce(l.oldest_seq, u.first_seq)
      ORDER BY s.created_at, s.id`,
    params,
  )
}

const nullableNumber = (value: number | null) => (value === null ? null : Number(value))

const subscriptionOf = (row: SubscriptionRow): WebhookSubscription => ({
  id: row.id,
  url: row.url,
  event_types: [...row.event_types] as WebhookSubscription['event_types'],
  status: row.status,
  created_at: row.created_at.toISOString(),
  outbox_cursor: Number(row.cursor_seq),
  deliveries: { pending: Number(row.pending), delivered: Number(row.delivered), dead: Number(row.dead) },
  oldest_pending:
    row.oldest_seq === null || row.oldest_id === null || row.oldest_time === null
      ? null
      : { event_id: row.oldest_id, outbox_seq: Number(row.oldest_seq), time: row.oldest_time.toISOString() },
  next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
  last_error: row.last_error,
  last_error_at: row.last_error_at?.toISOString() ?? null,
  retry_policy: {
    window_ms: nullableNumber(row.retry_window_ms),
    backoff_base_ms: nullableNumber(row.backoff_base_ms),
    backoff_cap_ms: nullableNumber(row.backoff_cap_ms),
    timeout_ms: nullableNumber(row.timeout_ms),
  },
})

const unknownSubscription = (id: string) =>
  errors.notFound(
    'webhook subscription',
    id,
    'list the subscriptions with GET /webhooks (skillhouse webhook list); a removed one is gone',
  )

/** The active subscriptions, oldest first, each with its delivery counts. */
export async function listSubscriptions(database: TenantDatabase): Promise<WebhookSubscription[]> {
  return (await subscriptionRows(database)).map(subscriptionOf)
}

/** One active subscription with its delivery counts; 404 when there is none by that id. */
export async function getSubscription(database: TenantDatabase, id: string): Promise<WebhookSubscription> {
  const row = (await subscriptionRows(database, id))[0]
  if (!row) throw unknownSubscription(id)
  return subscriptionOf(row)
}

/**
 * Removes a subscription: nothing more is sent to it, its pending events included. Its row and
 * delivery log stay in the database as a record. 404 when no active subscription has that id.
 */
export async function removeSubscription(
  database: TenantDatabase,
  id: string,
  now: Date = new Date(),
): Promise<void> {
  const existing = await database.one<{ id: string }>(
    `SELECT id FROM webhook_subscriptions WHERE id = $1 AND status = 'active'`,
    [id],
  )
  if (!existing) throw unknownSubscription(id)
  await database.run(`UPDATE webhook_subscriptions SET status = 'removed', removed_at = $2 WHERE id = $1`, [
    id,
    stamp(now),
  ])
}

/**
 * A page of a subscription's delivery log in outbox order: `state` filters, `starting_after` (an
 * outbox sequence number) and `limit` (1 to 1000, default 100) page, as query parameters do.
 */
export async function listDeliveries(
  database: TenantDatabase,
  id: string,
  query: Record<string, unknown> = {},
): Promise<WebhookDeliveryPage> {
  const page = parseQuery(WebhookDeliveryQuery, query)
  await getSubscription(database, id)
  const rows = await database.all<{
    subscription_id: string
    outbox_seq: number
    event_id: string
    event_type: string
    state: WebhookDelivery['state']
    attempts: number
    last_status: number | null
    last_error: string | null
    next_attempt_at: Date | null
    created_at: Date
    updated_at: Date
    delivered_at: Date | null
  }>(
    // An event waits at least for its subscription's retry when its consumer is down.
    `SELECT d.subscription_id, d.outbox_seq, d.event_id, d.event_type, d.state, d.attempts, d.last_status,
            d.last_error, greatest(d.next_attempt_at, coalesce(s.retry_at, d.next_attempt_at)) AS next_attempt_at,
            d.created_at, d.updated_at, d.delivered_at
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.subscription_id = $1 AND d.outbox_seq > $2 AND ($3::VARCHAR IS NULL OR d.state = $3)
      ORDER BY d.outbox_seq LIMIT $4`,
    [id, page.starting_after ?? 0, page.state ?? null, page.limit + 1],
  )
  const records = rows.slice(0, page.limit).map(
    (row): WebhookDelivery => ({
      subscription_id: row.subscription_id,
      outbox_seq: Number(row.outbox_seq),
      event_id: row.event_id,
      event_type: row.event_type,
      state: row.state,
      attempts: Number(row.attempts),
      last_status: row.last_status === null ? null : Number(row.last_status),
      last_error: row.last_error,
      next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      delivered_at: row.delivered_at?.toISOString() ?? null,
    }),
  )
  const has_next = rows.length > page.limit
  return {
    records,
    has_next,
    next_starting_after: has_next ? (records.at(-1)?.outbox_seq ?? null) : null,
  }
}

/**
 * Queues events of a subscription again, to be sent in outbox order before its later events,
 * each with a new retry window (its attempts counted from 0): with neither `since` nor
 * `event_id`, its dead letters; with `since`, every outbox event at or after that time that its
 * event types take; with `event_id`, that outbox event and every later one it takes. Events it
 * was never sent (appended before it was made) are queued too; pending ones stay as they are.
 * A subscription waiting for its consumer is tried at once. 404 for an unknown subscription or
 * event, 400/422 naming the field for a request that is not one.
 */
export async function replayDeliveries(
  database: TenantDatabase,
  id: string,
  input: unknown,
  now: Date = new Date(),
): Promise<WebhookReplay> {
  const request = parseBody(WebhookReplayRequest, input ?? {}, 'a webhook replay')
  const subscription = await getSubscription(database, id)
  let fromSeq: number | undefined
  if (request.event_id !== undefined) {
    const event = await database.one<{ seq: number }>('SELECT seq FROM outbox WHERE id = $1', [
      request.event_id,
    ])
    if (!event) {
      throw errors.notFound(
        'event',
        request.event_id,
        'give the id of a CloudEvent of the outbox (skillhouse events export lists them)',
      )
    }
    fromSeq = Number(event.seq)
  } else if (request.since !== undefined) {
    const first = await database.one<{ seq: number | null }>(
      'SELECT min(seq) AS seq FROM outbox WHERE time >= $1::TIMESTAMP',
      [sinceValue(request.since)],
    )
    // Nothing at or after that time: nothing to replay.
    fromSeq = first?.seq === null || first?.seq === undefined ? Number.POSITIVE_INFINITY : Number(first.seq)
  }
  return database.transaction(async () => {
    const replayed: number[] = []
    const at = stamp(now)
    if (fromSeq === undefined) {
      const rows = await database.all<{ outbox_seq: number }>(
        `UPDATE webhook_deliveries
            SET state = 'pending', attempts = 0, last_status = NULL, last_error = NULL, next_attempt_at = $2,
                queued_at = $2, updated_at = $2, delivered_at = NULL
          WHERE subscription_id = $1 AND state = 'dead'
         RETURNING outbox_seq`,
        [id, at],
      )
      replayed.push(...rows.map((row) => Number(row.outbox_seq)))
    } else if (Number.isFinite(fromSeq)) {
      // Up to the cursor: the events after it are queued by delivery as new ones.
      const range = [id, fromSeq, subscription.outbox_cursor, at] as const
      const updated = await database.all<{ outbox_seq: number }>(
        `UPDATE webhook_deliveries
            SET state = 'pending', attempts = 0, last_status = NULL, last_error = NULL, next_attempt_at = $4,
                queued_at = $4, updated_at = $4, delivered_at = NULL
          WHERE subscription_id = $1 AND outbox_seq >= $2 AND outbox_seq <= $3 AND state <> 'pending'
         RETURNING outbox_seq`,
        [...range],
      )
      const inserted = await queueEvents(database, now, {
        subscriptionId: id,
        fromSeq,
        toSeq: subscription.outbox_cursor,
      })
      replayed.push(...updated.map((row) => Number(row.outbox_seq)))
      replayed.push(...inserted)
    }
    if (replayed.length > 0) {
      await database.run('UPDATE webhook_subscriptions SET retry_at = NULL WHERE id = $1', [id])
    }
    return {
      subscription_id: id,
      replayed: replayed.length,
      first_outbox_seq: replayed.length > 0 ? replayed.reduce((low, seq) => Math.min(low, seq)) : null,
    }
  })
}
