import { type EventsExport, eventLines, exportEvents } from '../events/outbox.js'
import { serialAccess } from '../events/webhook-delivery.js'
import {
  addSubscription,
  listSubscriptions,
  removeSubscription,
  replayDeliveries,
} from '../events/webhook-subscriptions.js'
import type { WebhookReplay, WebhookSubscription } from '../schemas/webhooks.js'
import { tenantOperation } from './tenant-operation.js'

/**
 * `skillhouse events export`: to the file `out` (absolute), or each event's NDJSON line streamed
 * as an item.
 */
export const exportOutbox = tenantOperation(
  'events.export',
  false,
  async (tenant, params: { since?: string; out?: string }, context): Promise<EventsExport | undefined> => {
    const since = params.since === undefined ? {} : { since: params.since }
    if (params.out !== undefined) return exportEvents(tenant.database, { ...since, out: params.out })
    for await (const line of eventLines(tenant.database, since)) await context.item(line)
    return undefined
  },
)

/** `skillhouse webhook list`. */
export const listWebhooks = tenantOperation('webhook.list', false, (tenant) =>
  listSubscriptions(tenant.database),
)

/** `skillhouse webhook add URL`: after the consumer answered the health check. */
export const addWebhook = tenantOperation(
  'webhook.add',
  true,
  (tenant, params: { request: unknown }): Promise<WebhookSubscription> =>
    addSubscription(serialAccess(tenant), params.request),
)

/** `skillhouse webhook remove ID`. */
export const removeWebhook = tenantOperation('webhook.remove', true, (tenant, params: { id: string }) =>
  removeSubscription(tenant.database, params.id),
)

/** `skillhouse webhook replay`. */
export const replayWebhook = tenantOperation(
  'webhook.replay',
  true,
  (tenant, params: { subscription: string; request: unknown }): Promise<WebhookReplay> =>
    replayDeliveries(tenant.database, params.subscription, params.request),
)
