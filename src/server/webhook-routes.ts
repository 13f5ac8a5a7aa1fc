import type { TenantAccess } from '../events/webhook-delivery.js'
import {
  addSubscription,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  removeSubscription,
  replayDeliveries,
} from '../events/webhook-subscriptions.js'
import type { ApiRoute, RouteContext } from './api-routes.js'

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
    {
      method: 'POST',
      path: '/webhooks',
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
    },
    {
      method: 'GET',
      path: '/webhooks',
      volatile: true,
      handler: async (context) => ({
        status: 200,
        json: JSON.stringify({
          records: await context.tenant((tenant) => listSubscriptions(tenant.database)),
        }),
      }),
    },
    {
      method: 'GET',
      path: '/webhooks/:webhook_id',
      volatile: true,
      handler: async (context) => ({
        status: 200,
        json: JSON.stringify(await context.tenant((tenant) => getSubscription(tenant.database, id(context)))),
      }),
    },
    {
      method: 'DELETE',
      path: '/webhooks/:webhook_id',
      handler: async (context) => {
        await context.tenant((tenant) => removeSubscription(tenant.database, id(context)))
        return { status: 204 }
      },
    },
    {
      method: 'GET',
      path: '/webhooks/:webhook_id/deliveries',
      volatile: true,
      handler: async (context) => {
        const query: Record<string, string> = {}
        for (const name of ['state', 'starting_after', 'limit']) {
          const value = context.query(name)
          if (value !== undefined) query[name] = value
        }
        return {
          status: 200,
          json: JSON.stringify(
            await context.tenant((tenant) => listDeliveries(tenant.database, id(context), query)),
          ),
        }
      },
    },
    {
      method: 'POST',
      path: '/webhooks/:webhook_id/replay',
      handler: async (context) => {
        const body = await context.body({ optional: true })
        const replay = await context.tenant((tenant) => replayDeliveries(tenant.database, id(context), body))
        // The route is a write: the server's delivery looks at the tenant right after it.
        return { status: 202, json: JSON.stringify(replay) }
      },
    },
  ]
}
