import { describe, expect, it } from 'vitest'
import { readOutbox } from '../../src/events/outbox.js'
import type { WebhookSubscription } from '../../src/schemas/index.js'
import { createOpenTenant } from '../helpers/temp-tenant.js'
import { call, eventually, startTestServer, tokenFor } from '../server/server-helpers.js'
import { webhookTestBed } from './webhook-receiver.js'

const DOMAINS = 8

describe('webhook subscriptions delivered each on its own', () => {
  const { dataDir, receivers, receiver: start } = webhookTestBed()

  it('a healthy subscriber gets every event while another hangs, another answers 500 and another takes 2 s', async () => {
    const created = await createOpenTenant(dataDir, 'acme')
    created.database.close()
    const server = await startTestServer(dataDir, {
      deliveryIntervalMs: 50,
      // The hung consumer stays hung for the whole test; the failing one is retried often.
      webhookDelivery: { backoffBaseMs: 20, backoffCapMs: 200, timeoutMs: 120_000 },
    })
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${server.url}/acme/eu`
      // The first derivation of the tenant (it opened with the server) is out of the way.
      await server.app.worker.idle('acme')

      const hung = await start((_, index) => (index === 0 ? 200 : 'hang'))
      const failing = await start((_, index) => (index === 0 ? 200 : 500))
      const slow = await start((_, index) => (index === 0 ? 200 : { status: 200, afterMs: 2000 }))
      const healthy = await start(() => 200)
      const subscriptions: WebhookSubscription[] = []
      for (const receiver of [hung, failing, slow, healthy]) {
        const added = await call(`${base}/webhooks`, { method: 'POST', token, body: { url: receiver.url } })
        expect(added.status, added.text).toBe(201)
        subscriptions.push(added.json as WebhookSubscription)
      }

      // Events from a request each (taxonomy operations) and from derivations (new employees).
      const appendedAt = new Map<string, number>()
      for (let n = 0; n < DOMAINS; n++) {
        const answer = await call(`${base}/taxonomy/domains`, {
          method: 'POST',
          token,
          body: { external_id: `dom-${n}`, domain_name: `Domain ${n}` },
        })
        expect(answer.status, answer.text).toBe(204)
      }
      for (const id of ['emp-a', 'emp-b']) {
        expect(
          (await call(`${base}/employees`, { method: 'POST', token, body: { external_id: id } })).status,
        ).toBe(204)
      }
      await server.app.worker.idle('acme')
      const cursor = subscriptions[0]?.outbox_cursor ?? 0
      const outbox = await server.app.pool.useForReading('acme', (tenant) =>
        readOutbox(tenant.database, { sinceSeq: cursor }),
      )
      for (const entry of outbox) appendedAt.set(entry.event.id, Date.parse(entry.event.time))
      const ids = outbox.map((entry) => entry.event.id)
      expect(ids.length).toBeGreaterThanOrEqual(DOMAINS + 2)

      // The healthy subscriber gets everything, in outbox order, while the others are stuck.
      await eventually(
        async () => (healthy.acknowledgedIds().length >= ids.length ? true : undefined),
        30_000,
      )
      expect(healthy.events().map((request) => request.event.id)).toEqual(ids)
      // Meanwhile the hung consumer still holds the first event, unanswered, and got nothing else.
      expect(hung.events().map((request) => request.event.id)).toEqual([ids[0]])
      expect(hung.unanswered()).toBe(1)
      // The failing one has seen nothing but retries of its first event.
      expect(new Set(failing.events().map((request) => request.event.id))).toEqual(new Set([ids[0]]))
      expect(failing.acknowledgedIds()).toEqual([])
      // The slow one is still on its way.
      expect(slow.acknowledgedIds().length).toBeLessThan(ids.length)

      // How long each event took to reach the healthy subscriber after it was appended (reported).
      const latencies = healthy
        .events()
        .map((request) => request.receivedAt - (appendedAt.get(request.event.id) ?? request.receivedAt))
      console.log(
        `healthy subscriber: ${ids.length} events, from append to receipt max ${Math.max(...latencies)} ms, median ${latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)]} ms; slow subscriber had ${slow.acknowledgedIds().length}, hung 0, failing 0`,
      )

      // The slow one gets everything too, in order, one event after the other.
      await eventually(async () => (slow.acknowledgedIds().length >= ids.length ? true : undefined), 60_000)
      expect(slow.events().map((request) => request.event.id)).toEqual(ids)

      const state = async (id: string) =>
        (await call(`${base}/webhooks/${id}`, { token })).json as WebhookSubscription
      const failingState = await state(subscriptions[1]?.id as string)
      expect(failingState).toMatchObject({
        deliveries: { pending: ids.length, delivered: 0, dead: 0 },
        oldest_pending: { event_id: ids[0] },
        last_error: 'answered 500: refused with 500',
      })
      expect((await state(subscriptions[3]?.id as string)).deliveries).toEqual({
        pending: 0,
        delivered: ids.length,
        dead: 0,
      })
    } finally {
      // The hung request is dropped first: the server's shutdown waits for the requests in flight.
      await Promise.all(receivers.map((receiver) => receiver.close()))
      await server.close()
    }
  }, 150_000)
})
