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

/** `POST /webhooks` and `webhook add URL`. */
export const WebhookSubscriptionRequest = z
  .strictObject({
    url: WebhookUrl,
    event_types: z
      .array(WebhookEventType)
      .max(50, 'must list at most 50 event types')
      .default([])
      .describe('The event types to receive; empty or absent: every event type.'),
  })
  .describe('A subscription of an endpoint to the CloudEvents of the tenant (section 6).')
export type WebhookSubscriptionRequest = z.input<typeof WebhookSubscriptionRequest>

/** A URL WebhookUrl accepted, as the URL parser writes it (so that one endpoint is one URL). */
export const webhookUrlOf = (url: string) => new URL(url.trim()).href

export const WebhookDeliveryCounts = z
  .object({
    pending: z.number().int().min(0).describe('Events waiting for their first or next attempt.'),
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
      .describe('`pending` until a 2XX (`delivered`) or the last attempt failed (`dead`).'),
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
      'When the next attempt is due; null once delivered or dead.',
    ),
    created_at: Timestamp.describe('When the event was queued for this subscription.'),
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

/** Retry policy and timeout of delivery (`serve` and `events deliver` flags). */
export const WebhookDeliverySettings = z.strictObject({
  maxAttempts: z.number().int().min(1).max(100).default(8).describe('Attempts before an event is dead.'),
  backoffBaseMs: z
    .number()
    .int()
    .min(0)
    .default(1000)
    .describe('The first retry waits up to this long; each further one up to twice as long.'),
  backoffCapMs: z.number().int().min(0).default(600_000).describe('The longest wait between two attempts.'),
  timeoutMs: z.number().int().min(1).default(10_000).describe('How long one attempt waits for an answer.'),
})
export type WebhookDeliverySettings = z.output<typeof WebhookDeliverySettings>
