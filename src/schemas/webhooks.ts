import { Timestamp } from './common.js'
import { z } from './zod.js'

/**
 * Webhook subscriptions and their delivery log. Section 6 says how events look and that delivery
 * is at least once; how consumers subscribe, the retry policy and timeouts are "not shown", so
 * these are skillhouse's (README, "Webhooks").
 */

/** The event types of section 6.2 a subscription can filter on; the health check goes to every consumer. */
export const WEBHOOK_EVENT_TYPES = [
  'ai.vendor.employee.skill_profile.updated.v1',
  'ai.vendor.employee.skill_profile.suggested_updated.v1',
  'ai.vendor.job_architecture.job.skill_profile.updated.v1',
  'ai.vendor.job_architecture.job.skill_profile.suggested_updated.v1',
  'ai.vendor.course.skill_profile.updated.v1',
  'ai.vendor.taxonomy.skill.created.v1',
  'ai.vendor.taxonomy.skill.updated.v1',
  'ai.vendor.taxonomy.skill.deleted.v1',
  'ai.vendor.taxonomy.updated.v1',
] as const

/** The event sent to a consumer when it subscribes (6.2, rule 4); it answers 2XX or is not subscribed. */
export const HEALTH_CHECK_EVENT_TYPE = 'ai.vendor.health_check'

/** Longest webhook URL accepted (the de facto limit of browsers and proxies). */
export const WEBHOOK_URL_MAX_LENGTH = 2048

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'dead'] as const
export const WEBHOOK_STATUSES = ['active', 'removed'] as const

export const WebhookEventType = z
  .enum(WEBHOOK_EVENT_TYPES, { error: `must be one of: ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  .describe('An event type of section 6.2.')

/**
 * An absolute http(s) URL without credentials (fetch refuses those). A refinement, not a
 * transform, so that the OpenAPI document can show it as the string it is; the library stores
 * the URL as the URL parser normalises it (`webhookUrlOf`).
 */
export const WebhookUrl = z
  .string()
  .max(WEBHOOK_URL_MAX_LENGTH, `must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`)
  .superRefine((value, context) => {
    let url: URL
    try {
      url = new URL(value.trim())
    } catch {
      context.addIssue({
        code: 'custom',
        message: `'${value}' is not an absolute URL such as https://example.com/hooks`,
      })
      return
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      context.addIssue({
        code: 'custom',
        message: `must be an http or https URL; got the scheme ${url.protocol}`,
      })
    } else if (url.username || url.password) {
      context.addIssue({
        code: 'custom',
        message:
          'must not hold credentials (user:password@); the consumer authenticates the events by its own means',
      })
    }
  })
  .describe(
    `The consumer's endpoint: an absolute http or https URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters, without credentials.`,
  )

/** Longest retry window a subscription may ask for: 30 days. */
export const MAX_RETRY_WINDOW_MS = 30 * 24 * 3_600_000
/** Longest wait for one answer: 5 minutes. */
export const MAX_DELIVERY_TIMEOUT_MS = 300_000

const milliseconds = (what: string, min: number, max: number) =>
  z
    .number()
    .int('must be a whole number of milliseconds')
    .min(min, `must be at least ${min} milliseconds`)
    .max(max, `must be at most ${max} milliseconds`)
    .nullable()
    .optional()
    .describe(what)

/**
 * A subscription's own retry policy: each field left out (or null) takes the server's value
 * (`serve --delivery-*`, `events deliver` flags).
 */
export const WebhookRetryPolicy = z
  .strictObject({
    window_ms: milliseconds(
      'How long an event is retried after it was queued (or replayed) before it is dead.',
      0,
      MAX_RETRY_WINDOW_MS,
    ),
    backoff_base_ms: milliseconds(
      'The nominal wait before the first retry; each further retry waits twice as long, up to the cap.',
      1,
      MAX_RETRY_WINDOW_MS,
    ),
    backoff_cap_ms: milliseconds('The longest nominal wait between two attempts.', 1, MAX_RETRY_WINDOW_MS),
    timeout_ms: milliseconds('How long one attempt waits for an answer.', 1, MAX_DELIVERY_TIMEOUT_MS),
  })
  .describe("A subscription's retry policy; a field left out or null takes the server's value.")
export type WebhookRetryPolicy = z.input<typeof WebhookRetryPolicy>

/** `POST /webhooks` and `webhook add URL`. */
export const WebhookSubscriptionRequest = z
  .strictObject({
    url: WebhookUrl,
    event_types: z
      .array(WebhookEventType)
      .max(50, 'must list at most 50 event types')
      .default([])
      .describe('The event types to receive; empty or absent: every event type.'),
    retry_policy: WebhookRetryPolicy.optional(),
  })
  .describe('A subscription of an endpoint to the CloudEvents of the tenant (section 6).')
export type WebhookSubscriptionRequest = z.input<typeof WebhookSubscriptionRequest>

/** A URL WebhookUrl accepted, as the URL parser writes it (so that one endpoint is one URL). */
export const webhookUrlOf = (url: string) => new URL(url.trim()).href

export const WebhookDeliveryCounts = z
  .object({
    pending: z
      .number()
      .int()
      .min(0)
      .describe(
        'The backlog: events waiting for their first or next attempt, those appended to the outbox and not queued yet included.',
      ),
    delivered: z.number().int().min(0).describe('Events the consumer acknowledged with a 2XX.'),
    dead: z.number().int().min(0).describe('Events given up on after the last attempt (the dead letters).'),
  })
  .describe('How many events of the subscription are in each delivery state.')
export type WebhookDeliveryCounts = z.infer<typeof WebhookDeliveryCounts>

export const WebhookSubscription = z
  .object({
    id: z.string().min(1).describe('The subscription id, `wh_` and 24 hex digits.'),
    url: z.string().describe('The endpoint the events are POSTed to.'),
    event_types: z.array(WebhookEventType).describe('The event types delivered; empty: every event type.'),
    status: z.enum(WEBHOOK_STATUSES).describe('`active` until the subscription is removed.'),
    created_at: Timestamp.describe('When the consumer answered the health check and was subscribed.'),
    outbox_cursor: z
      .number()
      .int()
      .min(0)
      .describe(
        'The last outbox sequence number considered for this subscription; it receives the events appended after it.',
      ),
    deliveries: WebhookDeliveryCounts,
    oldest_pending: z
      .object({
        event_id: z.string().describe("The CloudEvent's id."),
        outbox_seq: z.number().int().min(1).describe("The event's position in the tenant's outbox."),
        time: Timestamp.describe("The event's time (when it was appended to the outbox)."),
      })
      .nullable()
      .describe('The oldest event of the backlog, the next to go; null when nothing is pending.'),
    next_attempt_at: Timestamp.nullable().describe(
      'When the next attempt is due; null when nothing is pending. In the past: due now.',
    ),
    last_error: z
      .string()
      .nullable()
      .describe(
        'Why the last failed attempt failed, kept after the consumer recovered; null when none failed.',
      ),
    last_error_at: Timestamp.nullable().describe('When the last failed attempt was answered or timed out.'),
    retry_policy: z
      .object({
        window_ms: z.number().int().nullable(),
        backoff_base_ms: z.number().int().nullable(),
        backoff_cap_ms: z.number().int().nullable(),
        timeout_ms: z.number().int().nullable(),
      })
      .describe("The subscription's own retry policy; null fields take the server's value."),
  })
  .describe('A webhook subscription.')
export type WebhookSubscription = z.infer<typeof WebhookSubscription>

export const WebhookSubscriptionList = z
  .object({ records: z.array(WebhookSubscription) })
  .describe('The active subscriptions of the tenant, oldest first.')
export type WebhookSubscriptionList = z.infer<typeof WebhookSubscriptionList>

export const WebhookDelivery = z
  .object({
    subscription_id: z.string().describe('The subscription the event goes to.'),
    outbox_seq: z.number().int().min(1).describe("The event's position in the tenant's outbox."),
    event_id: z.string().describe("The CloudEvent's id, the same in every attempt."),
    event_type: z.string().describe("The CloudEvent's type."),
    state: z
      .enum(WEBHOOK_DELIVERY_STATES)
      .describe(
        '`pending` until a 2XX (`delivered`) or an attempt failed after the retry window ended (`dead`); a replay makes it `pending` again.',
      ),
    attempts: z.number().int().min(0).describe('HTTP requests made so far.'),
    last_status: z
      .number()
      .int()
      .nullable()
      .describe('The HTTP status of the last attempt; null before the first or when there was no answer.'),
    last_error: z
      .string()
      .nullable()
      .describe(
        'Why the last attempt failed (a non-2XX status, a timeout, a connection error); null otherwise.',
      ),
    next_attempt_at: Timestamp.nullable().describe(
      "When the next attempt is due; null once delivered or dead. An event waiting behind its subscription's head event goes when the head has gone.",
    ),
    created_at: Timestamp.describe(
      'When the event was first queued for this subscription (its retry window starts here, or at its last replay).',
    ),
    updated_at: Timestamp.describe('When this record last changed.'),
    delivered_at: Timestamp.nullable().describe('When the consumer acknowledged the event.'),
  })
  .describe('The delivery of one event to one subscription.')
export type WebhookDelivery = z.infer<typeof WebhookDelivery>

export const WebhookDeliveryPage = z
  .object({
    records: z.array(WebhookDelivery),
    has_next: z.boolean(),
    next_starting_after: z
      .number()
      .int()
      .nullable()
      .describe('The `starting_after` (an outbox sequence number) of the next page; null on the last.'),
  })
  .describe('A page of the delivery log of a subscription, in outbox order.')
export type WebhookDeliveryPage = z.infer<typeof WebhookDeliveryPage>

/** Query of `GET /webhooks/{webhook_id}/deliveries`. */
export const WebhookDeliveryQuery = z.strictObject({
  state: z.enum(WEBHOOK_DELIVERY_STATES).optional().describe('Only the deliveries in this state.'),
  starting_after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Only deliveries of events after this outbox sequence number.'),
  limit: z.coerce.number().int().min(1).max(1000).default(100).describe('Deliveries per page, 1 to 1000.'),
})
export type WebhookDeliveryQuery = z.input<typeof WebhookDeliveryQuery>

/** The default retry window: 24 hours. */
export const DEFAULT_RETRY_WINDOW_MS = 24 * 3_600_000

/**
 * Retry policy and timeout of delivery (`serve --delivery-*`, `events deliver` flags, and a
 * subscription's `retry_policy` over them). The schedule it makes is in docs/webhooks.md.
 */
export const WebhookDeliverySettings = z.strictObject({
  windowMs: z
    .number()
    .int()
    .min(0)
    .max(MAX_RETRY_WINDOW_MS)
    .default(DEFAULT_RETRY_WINDOW_MS)
    .describe('How long an event is retried after it was queued before a failed attempt makes it dead.'),
  backoffBaseMs: z
    .number()
    .int()
    .min(1)
    .default(1000)
    .describe('The nominal wait before the first retry; each further one twice as long, up to the cap.'),
  backoffCapMs: z
    .number()
    .int()
    .min(1)
    .default(3_600_000)
    .describe('The longest nominal wait between two attempts.'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_DELIVERY_TIMEOUT_MS)
    .default(10_000)
    .describe('How long one attempt waits for an answer.'),
})
export type WebhookDeliverySettings = z.output<typeof WebhookDeliverySettings>

/** `POST /webhooks/{webhook_id}/replay` and `webhook replay`: what to send again. */
export const WebhookReplayRequest = z
  .strictObject({
    since: z
      .string()
      .max(40)
      .refine((value) => !Number.isNaN(Date.parse(value)), {
        message: 'must be an ISO 8601 date or date-time (e.g. 2026-11-21 or 2026-11-21T08:00:00Z)',
      })
      .optional()
      .describe(
        "Every event of the outbox at or after this time that the subscription's event types take, whether delivered, dead or never queued for it.",
      ),
    event_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('This event of the outbox and every later one the subscription takes.'),
  })
  .refine((request) => request.since === undefined || request.event_id === undefined, {
    message: 'give since or event_id, not both',
    path: ['event_id'],
  })
  .describe(
    'What to send again; an empty object: the dead letters of the subscription. The events go again in outbox order, each with a new retry window.',
  )
export type WebhookReplayRequest = z.input<typeof WebhookReplayRequest>

export const WebhookReplay = z
  .object({
    subscription_id: z.string().describe('The subscription the events go to again.'),
    replayed: z.number().int().min(0).describe('Events queued again (or for the first time).'),
    first_outbox_seq: z
      .number()
      .int()
      .nullable()
      .describe('The outbox sequence number of the first of them; null when there was none.'),
  })
  .describe('What a replay queued: the events go in outbox order, before the later ones.')
export type WebhookReplay = z.infer<typeof WebhookReplay>
