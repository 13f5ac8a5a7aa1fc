import { randomBytes, randomUUID } from 'node:crypto'
import { DuckDBTimestampValue, type DuckDBValue, listValue } from '@duckdb/node-api'
import { parseBody, parseQuery } from '../entities/input-issues.js'
import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import {
  HEALTH_CHECK_EVENT_TYPE,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  WebhookDeliveryQuery,
  type WebhookSubscription,
  WebhookSubscriptionRequest,
  webhookUrlOf,
} from '../schemas/webhooks.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { typedEventSource } from './outbox.js'
import { deliverySettings, postCloudEvent, type TenantAccess } from './webhook-delivery.js'

/**
 * Webhook subscriptions of a tenant: `webhook add|list|remove` and `/webhooks`. A consumer is
 * subscribed only after it answered the health check event (6.2, rule 4) with a 2XX, and it
 * receives the events appended to the outbox after that.
 */

export interface SubscribeOptions {
  fetch?: typeof fetch
  /** How long the health check waits for the consumer's answer (ms); default 10 s. */
  timeoutMs?: number
  now?: () => Date
}

const stamp = (time: Date) => new DuckDBTimestampValue(BigInt(time.getTime()) * 1000n)

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
  const answer = await postCloudEvent(url, healthCheckEvent(baseUrl, now()), {
    timeoutMs: options.timeoutMs ?? deliverySettings().timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
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
      `INSERT INTO webhook_subscriptions (id, url, event_types, status, cursor_seq, created_at)
       SELECT $1, $2, $3, 'active', coalesce(max(seq), 0), $4 FROM outbox`,
      [id, url, listValue(eventTypes), stamp(now())],
    )
    return getSubscription(database, id)
  })
}

async function refuseSubscribed(database: TenantDatabase, url: string): Promise<void> {
  const existing = await database.one<{ id: string }>(
    `SELECT id FROM webhook_subscriptions WHERE url = $1 AND status = 'active'`,
    [url],
  )
  if (existing) {
    throw new SkillhouseError(
      409,
      `url: ${url} is subscribed already as ${existing.id}; remove that subscription first to subscribe it again with other event types`,
    )
  }
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
}

async function subscriptionRows(database: TenantDatabase, id?: string): Promise<SubscriptionRow[]> {
  const params: DuckDBValue[] = []
  let where = `s.status = 'active'`
  if (id !== undefined) {
    params.push(id)
    where += ' AND s.id = $1'
  }
  return database.all<SubscriptionRow>(
    `SELECT s.id, s.url, s.event_types, s.status, s.created_at, s.cursor_seq,
            count(d.outbox_seq) FILTER (WHERE d.state = 'pending') AS pending,
            count(d.outbox_seq) FILTER (WHERE d.state = 'delivered') AS delivered,
            count(d.outbox_seq) FILTER (WHERE d.state = 'dead') AS dead
       FROM webhook_subscriptions s
       LEFT JOIN webhook_deliveries d ON d.subscription_id = s.id
      WHERE ${where}
      GROUP BY s.id, s.url, s.event_types, s.status, s.created_at, s.cursor_seq
      ORDER BY s.created_at, s.id`,
    params,
  )
}

const subscriptionOf = (row: SubscriptionRow): WebhookSubscription => ({
  id: row.id,
  url: row.url,
  event_types: [...row.event_types] as WebhookSubscription['event_types'],
  status: row.status,
  created_at: row.created_at.toISOString(),
  outbox_cursor: Number(row.cursor_seq),
  deliveries: { pending: Number(row.pending), delivered: Number(row.delivered), dead: Number(row.dead) },
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
    `SELECT subscription_id, outbox_seq, event_id, event_type, state, attempts, last_status, last_error,
            next_attempt_at, created_at, updated_at, delivered_at
       FROM webhook_deliveries
      WHERE subscription_id = $1 AND outbox_seq > $2 AND ($3::VARCHAR IS NULL OR state = $3)
      ORDER BY outbox_seq LIMIT $4`,
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
