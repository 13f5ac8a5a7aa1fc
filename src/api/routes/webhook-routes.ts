import type { TenantAccess } from '../../events/webhook-delivery.js'
import {
  addSubscription,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  removeSubscription,
  replayDeliveries,
} from '../../events/webhook-subscriptions.js'
import {
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookReplay,
  WebhookReplayRequest,
  WebhookSubscription,
  WebhookSubscriptionList,
  WebhookSubscriptionRequest,
} from '../../schemas/webhooks.js'
import { z } from '../../vendor/zod.js'
import type { ApiRoute, RouteContext } from '../api-route.js'
import { BASE_ERRORS, BODY_ERRORS, emptySuccess, errorsOf, jsonSuccess } from '../route-docs.js'
import { queryOf } from './route-answers.js'

/** The tenant behind the route's per-tenant lock, for the bookkeeping steps of a subscription. */
const accessOf =
  (context: RouteContext): TenantAccess =>
  (work) =>
    context.tenant(work)

const id = (context: RouteContext) => context.params.webhook_id ?? ''

/**
 * Webhook subscriptions below a tenant's base URL (docs/webhooks.md; the spec leaves subscribing
 * to the service): `POST /webhooks` answers 201 once the consumer answered the health check with
 * a 2XX (422 naming the URL and its answer otherwise), `GET /webhooks`, `GET` and
 * `DELETE /webhooks/{webhook_id}`, the delivery log `GET /webhooks/{webhook_id}/deliveries`, and
 * `POST /webhooks/{webhook_id}/replay`. `write` for the changes, `read` for the rest. The GETs
 * show delivery state, which changes in the background: their answers are never kept.
 */
export function webhookRoutes(): ApiRoute[] {
  return [
    subscribeRoute(),
    listSubscriptionsRoute(),
    getSubscriptionRoute(),
    unsubscribeRoute(),
    deliveriesRoute(),
    replayRoute(),
  ]
}

const webhookParams = () =>
  z.object({
    webhook_id: WebhookSubscription.shape.id.meta({ description: 'The subscription id' }),
  })

function subscribeRoute(): ApiRoute {
  return {
    method: 'POST',
    path: '/webhooks',
    doc: {
      operationId: 'createWebhook',
      summary: 'Subscribe an endpoint to the events',
      description:
        'Sends `ai.vendor.health_check` to the URL first (6, rule 4); the subscription is created once the consumer answers it with a 2XX, and 422 names the URL and its answer otherwise. The consumer then receives the events appended after this moment, at least once.',
      tag: 'Webhooks',
      body: {
        schema: WebhookSubscriptionRequest,
        required: true,
        description: 'The endpoint and the event types.',
      },
      success: {
        status: 201,
        schema: WebhookSubscription,
        description: 'The subscription.',
        headers: { Location: { description: 'The address of the subscription.', schema: z.string() } },
      },
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
    },
    handler: async (context) => {
      const body = await context.body()
      // The health check is sent between two short turns of the lock, never inside one.
      const subscription = await addSubscription(accessOf(context), body)
      const base = `/${context.params.tenant}/${context.params.region}`
      return {
        status: 201,
        json: JSON.stringify(subscription),
        headers: { Location: `${base}/webhooks/${subscription.id}` },
      }
    },
  }
}

function listSubscriptionsRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/webhooks',
    volatile: true,
    doc: {
      operationId: 'listWebhooks',
      summary: 'List the webhook subscriptions',
      description: 'The active subscriptions of the tenant, oldest first, each with its delivery counts.',
      tag: 'Webhooks',
      success: jsonSuccess(WebhookSubscriptionList, 'The active subscriptions, oldest first.'),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) => ({
      status: 200,
      json: JSON.stringify({
        records: await context.tenant((tenant) => listSubscriptions(tenant.database)),
      }),
    }),
  }
}

function getSubscriptionRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/webhooks/:webhook_id',
    volatile: true,
    doc: {
      operationId: 'getWebhook',
      summary: 'Get a webhook subscription',
      description:
        'One active subscription with its delivery counts; 404 when no active subscription has that id.',
      tag: 'Webhooks',
      params: webhookParams(),
      success: jsonSuccess(WebhookSubscription, 'The subscription with its delivery counts.'),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) => ({
      status: 200,
      json: JSON.stringify(await context.tenant((tenant) => getSubscription(tenant.database, id(context)))),
    }),
  }
}

function unsubscribeRoute(): ApiRoute {
  return {
    method: 'DELETE',
    path: '/webhooks/:webhook_id',
    doc: {
      operationId: 'deleteWebhook',
      summary: 'Remove a webhook subscription',
      description: 'Nothing more is sent to it, its pending events included.',
      tag: 'Webhooks',
      params: webhookParams(),
      success: emptySuccess('The subscription was removed.'),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) => {
      await context.tenant((tenant) => removeSubscription(tenant.database, id(context)))
      return { status: 204 }
    },
  }
}

function deliveriesRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/webhooks/:webhook_id/deliveries',
    volatile: true,
    doc: {
      operationId: 'listWebhookDeliveries',
      summary: 'Get the delivery log of a subscription',
      description:
        'The deliveries of events to the subscription in outbox order, with their state, attempts and last answer; `state` filters, `starting_after` (an outbox sequence number) and `limit` page.',
      tag: 'Webhooks',
      params: webhookParams(),
      query: WebhookDeliveryQuery,
      success: jsonSuccess(WebhookDeliveryPage, 'A page of deliveries in outbox order.'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) => {
      const query = queryOf(context, ['state', 'starting_after', 'limit'])
      return {
        status: 200,
        json: JSON.stringify(
          await context.tenant((tenant) => listDeliveries(tenant.database, id(context), query)),
        ),
      }
    },
  }
}

function replayRoute(): ApiRoute {
  return {
    method: 'POST',
    path: '/webhooks/:webhook_id/replay',
    doc: {
      operationId: 'replayWebhookDeliveries',
      summary: 'Send events to a subscription again',
      description:
        "skillhouse's extension (section 6 leaves subscriptions and retries to the service). Queues again, each with a new retry window: without a body (or `{}`) the subscription's dead letters; with `since`, every outbox event at or after that time that its event types take; with `event_id`, that outbox event and every later one. Events appended before the subscription was made are queued too. They go in outbox order, before the subscription's later events, from its next batch; a subscription waiting for its consumer to come back is tried at once. 404 for an unknown subscription or event id.",
      tag: 'Webhooks',
      params: webhookParams(),
      body: {
        schema: WebhookReplayRequest,
        required: false,
        description: 'What to send again; absent or empty: the dead letters.',
      },
      success: { status: 202, schema: WebhookReplay, description: 'The events are queued to go again.' },
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
    },
    handler: async (context) => {
      const body = await context.body({ optional: true })
      const replay = await context.tenant((tenant) => replayDeliveries(tenant.database, id(context), body))
      // The route is a write: the server's delivery looks at the tenant right after it.
      return { status: 202, json: JSON.stringify(replay) }
    },
  }
}
