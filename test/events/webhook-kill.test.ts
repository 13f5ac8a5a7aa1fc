import { describe, expect, it } from 'vitest'
import { readOutbox } from '../../src/events/outbox.js'
import { serialAccess, UNRECORDED_LIMIT } from '../../src/events/webhook-delivery.js'
import { addSubscription } from '../../src/events/webhook-subscriptions.js'
import type { WebhookSubscription, WebhookSubscriptionList } from '../../src/schemas/index.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant } from '../helpers/temp-tenant.js'
import { call, eventually, tokenFor } from '../server/server-helpers.js'
import { startServe } from './serve-process.js'
import { type WebhookReceiver, webhookTestBed } from './webhook-receiver.js'

const EVENTS = 1000
const KILLS = 5

/** The server as the test runs it: short backoffs, and no attempt timing out while its event loop is busy. */
const serve = (dataDir: string) =>
  startServe(dataDir, [
    '--delivery-backoff',
    '20',
    '--delivery-backoff-cap',
    '500',
    '--delivery-timeout',
    '120000',
  ])

/** Distinct random whole numbers in [low, high), in increasing order. */
function randomPoints(count: number, low: number, high: number): number[] {
  const points = new Set<number>()
  while (points.size < count) points.add(low + Math.floor(Math.random() * (high - low)))
  return [...points].sort((a, b) => a - b)
}

describe('webhook delivery through kill -9 of the server', () => {
  const { dataDir, receiver } = webhookTestBed()

  it(`delivers every event of a burst of ${EVENTS} at least once through ${KILLS} kills, duplicates only of events in flight at a kill`, async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    // One consumer answers at once, one after a few milliseconds: kills catch requests in flight.
    const fast = await receiver()
    const slower = await receiver(() => ({ status: 200, afterMs: Math.floor(Math.random() * 5) }))
    const consumers: WebhookReceiver[] = [fast, slower]
    const subscriptions: WebhookSubscription[] = []
    for (const consumer of consumers) {
      subscriptions.push(await addSubscription(serialAccess(tenant), { url: consumer.url }))
    }
    tenant.database.close()
    const token = await tokenFor(dataDir, 'acme')

    // Where each kill falls, in events acknowledged; and, per consumer, how many requests it had
    // received when the kill was sent.
    const killAt = randomPoints(KILLS, 50, EVENTS - 50)
    const killMarks: number[][] = consumers.map(() => [])
    let server = await serve(dataDir)
    let restarted: Promise<void> = Promise.resolve()
    let killing = false
    const kill = async () => {
      killing = true
      for (const [index, consumer] of consumers.entries()) killMarks[index]?.push(consumer.requests.length)
      server.process.kill('SIGKILL')
      const ended = await server.process
      expect(ended.signal).toBe('SIGKILL')
      server = await serve(dataDir)
      killing = false
    }

    // Four senders create taxonomy domains, one event each, until all are acknowledged.
    let next = 0
    let acknowledged = 0
    const sender = async () => {
      for (let n = next++; n < EVENTS; n = next++) {
        for (;;) {
          await restarted
          const answer = await call(`${server.url}/acme/eu/taxonomy/domains`, {
            method: 'POST',
            token,
            body: { external_id: `dom-${n}`, domain_name: `Domain ${n}` },
          }).catch(() => undefined)
          // No answer: the server was killed; 409: it had stored the domain before it died.
          if (answer === undefined || answer.status === 503) continue
          expect([204, 409], answer.text).toContain(answer.status)
          break
        }
        acknowledged++
        if (
          !killing &&
          killMarks[0]?.length !== KILLS &&
          acknowledged >= (killAt[killMarks[0]?.length ?? 0] ?? EVENTS)
        ) {
          restarted = kill()
        }
      }
    }
    await Promise.all(Array.from({ length: 4 }, sender))
    await restarted
    expect(killMarks[0]).toHaveLength(KILLS)

    // Delivery finishes on the last server.
    const base = `${server.url}/acme/eu`
    await eventually(async () => {
      const list = (await call(`${base}/webhooks`, { token })).json as WebhookSubscriptionList
      return list.records.every((record) => record.deliveries.pending === 0) ? true : undefined
    }, 180_000)
    server.process.kill('SIGTERM')
    expect((await server.process).exitCode).toBe(0)

    const reopened = await openTenant(dataDir, 'acme')
    try {
      const cursor = subscriptions[0]?.outbox_cursor ?? 0
      const ids = (await readOutbox(reopened.database, { sinceSeq: cursor })).map((entry) => entry.event.id)
      expect(ids.length).toBeGreaterThanOrEqual(EVENTS)
      const states = await reopened.database.all<{ state: string; n: number }>(
        'SELECT state, count(*)::INTEGER AS n FROM webhook_deliveries GROUP BY state',
      )
      expect(states).toEqual([{ state: 'delivered', n: ids.length * consumers.length }])

      const report: string[] = [`kills after ${killAt.join(', ')} acknowledged events; ${ids.length} events`]
      consumers.forEach((consumer, index) => {
        const received = consumer.events().map((request) => request.event.id)
        // Every event at least once, first receipts in outbox order.
        expect([...new Set(received)]).toEqual(ids)
        // A copy received again later was in flight at a kill: among the last requests before one.
        const marks = killMarks[index] ?? []
        const perKill = marks.map(() => 0)
        const last = new Map(received.map((id, position) => [id, position]))
        received.forEach((id, position) => {
          if (last.get(id) === position) return
          const kill = marks.findIndex(
            (mark) => position < mark + 1 && position >= mark - (UNRECORDED_LIMIT + 1),
          )
          expect(
            kill,
            `event ${id} received again, first at request ${position}, kills at ${marks}`,
          ).toBeGreaterThanOrEqual(0)
          perKill[kill] = (perKill[kill] ?? 0) + 1
        })
        const duplicates = received.length - ids.length
        expect(duplicates).toBeLessThanOrEqual(KILLS * (UNRECORDED_LIMIT + 1))
        report.push(
          `consumer ${index + 1}: ${received.length} requests, ${duplicates} duplicates (per kill: ${perKill.join(', ')})`,
        )
      })
      console.log(report.join('\n'))
    } finally {
      reopened.database.close()
    }
  }, 420_000)
})
