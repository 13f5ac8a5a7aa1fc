import { describe, expect, it } from 'vitest'
import { readOutbox } from '../../src/events/outbox.js'
import { retrySchedule } from '../../src/events/retry-policy.js'
import { WebhookDeliveryPage, type WebhookSubscription } from '../../src/schemas/index.js'
import { createOpenTenant } from '../helpers/temp-tenant.js'
import { call, eventually, startTestServer, tokenFor } from '../server/server-helpers.js'
import { webhookTestBed } from './webhook-receiver.js'

/**
 * The policy on a time base a thousand times shorter than the default (1 ms for 1 s): a 24-hour
 * window becomes 86.4 s, a 1-hour cap 3.6 s.
 */
const SCALED = { backoffBaseMs: 1, backoffCapMs: 3600, windowMs: 86_400, timeoutMs: 5000 }
/** The policy this replaced: 8 attempts, 1 s base (here 1 ms), full jitter: at most 127 base units. */
const OLD_WINDOW_MS = 127 * SCALED.backoffBaseMs

describe('a webhook consumer down for longer than the old retry window', () => {
  const { dataDir, receiver } = webhookTestBed()

  it('gets every event once it is back, in outbox order, none dead', async () => {
    const created = await createOpenTenant(dataDir, 'acme')
    created.database.close()
    const server = await startTestServer(dataDir, { deliveryIntervalMs: 50, webhookDelivery: SCALED })
    const consumer = await receiver()
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${server.url}/acme/eu`
      await server.app.worker.idle('acme')
      const added = await call(`${base}/webhooks`, { method: 'POST', token, body: { url: consumer.url } })
      expect(added.status, added.text).toBe(201)
      const subscription = added.json as WebhookSubscription

      const domain = async (id: string) => {
        const answer = await call(`${base}/taxonomy/domains`, {
          method: 'POST',
          token,
          body: { external_id: id, domain_name: id },
        })
        expect(answer.status, answer.text).toBe(204)
      }
      await domain('dom-before')
      await eventually(async () => (consumer.acknowledgedIds().length === 1 ? true : undefined))

      // Down: connections refused. Events keep coming during the outage.
      await consumer.stop()
      const downAt = Date.now()
      for (let n = 0; n < 20; n++) await domain(`dom-during-${n}`)
      // The head event is retried for longer than the old policy's whole window, many times over.
      const head = await eventually(async () => {
        const log = WebhookDeliveryPage.parse(
          (await call(`${base}/webhooks/${subscription.id}/deliveries?state=pending&limit=1`, { token }))
            .json,
        )
        const first = log.records[0]
        return first && first.attempts > 8 && Date.now() - downAt > 20 * OLD_WINDOW_MS ? first : undefined
      }, 60_000)
      expect(head.last_error).toBe('no answer: ECONNREFUSED')
      const during = (await call(`${base}/webhooks/${subscription.id}`, { token }))
        .json as WebhookSubscription
      expect(during.deliveries).toMatchObject({ pending: 20, dead: 0 })
      expect(during.oldest_pending?.event_id).toBe(head.event_id)
      expect(during.last_error).toBe('no answer: ECONNREFUSED')
      const downFor = Date.now() - downAt
      await consumer.resume()

      const outbox = await server.app.pool.useForReading('acme', (tenant) =>
        readOutbox(tenant.database, { sinceSeq: subscription.outbox_cursor }),
      )
      const ids = outbox.map((entry) => entry.event.id)
      expect(ids).toHaveLength(21)
      await eventually(
        async () => (consumer.acknowledgedIds().length >= ids.length ? true : undefined),
        60_000,
      )
      // In outbox order: the events of the outage waited behind the head and followed it.
      expect(consumer.acknowledgedIds()).toEqual(ids)
      const after = await eventually(async () => {
        const current = (await call(`${base}/webhooks/${subscription.id}`, { token }))
          .json as WebhookSubscription
        return current.deliveries.delivered === ids.length ? current : undefined
      })
      expect(after.deliveries).toEqual({ pending: 0, delivered: ids.length, dead: 0 })
      const schedule = retrySchedule(SCALED)
      console.log(
        `consumer down ${downFor} ms (${Math.round(downFor / OLD_WINDOW_MS)}x the old window of ${OLD_WINDOW_MS} ms); head retried ${head.attempts}+ times; ${ids.length} events delivered, 0 dead; the scaled schedule has ${schedule.length} attempts over ${SCALED.windowMs} ms`,
      )
    } finally {
      await server.close()
    }
  }, 150_000)
})
