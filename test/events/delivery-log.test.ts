import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { enqueueNewEvents, writeAttempts } from '../../src/events/delivery-log.js'
import { appendEvents, eventSource } from '../../src/events/outbox.js'
import { serialAccess } from '../../src/events/webhook-delivery.js'
import { addSubscription, getSubscription, listDeliveries } from '../../src/events/webhook-subscriptions.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { WebhookReceiver } from './webhook-receiver.js'

const PROFILE_UPDATED = 'ai.vendor.employee.skill_profile.updated.v1'

describe('the delivery log records a batch of attempts', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  let consumer: WebhookReceiver

  let subscriptions = 0
  const deliveries = async (id: string) => (await listDeliveries(tenant.database, id)).records
  /** A new subscription with `count` new events queued for it at `queuedAt`; their sequence numbers. */
  const subscribed = async (count: number, queuedAt: Date) => {
    const url = `${consumer.url}/${++subscriptions}`
    const { id } = await addSubscription(serialAccess(tenant), { url })
    await appendEvents(
      tenant.database,
      Array.from({ length: count }, (_, index) => ({
        type: PROFILE_UPDATED,
        source: eventSource(tenant.baseUrl, `/employees/e-${index}/skill_profile`),
        data: { tenant_name: 'acme', external_id: `e-${index}` },
      })),
    )
    await enqueueNewEvents(tenant.database, queuedAt)
    return { id, seqs: (await deliveries(id)).map((record) => record.outbox_seq) }
  }

  beforeAll(async () => {
    tenant = await createOpenTenant(temp.dir, 'acme')
    consumer = await WebhookReceiver.start()
  })
  afterAll(async () => {
    await consumer.close()
    tenant.database.close()
    temp.cleanup()
  })

  it('marks deliveries delivered and failures pending again or dead, and the events queued behind a dead one die with it', async () => {
    const queuedAt = new Date('2026-11-20T10:00:00Z')
    const at = new Date('2026-11-21T10:00:01Z')
    const { id, seqs } = await subscribed(4, queuedAt)
    const [first, second, third, fourth] = seqs as [number, number, number, number]
    const died = await writeAttempts(tenant.database, [
      { kind: 'delivered', subscriptionId: id, seq: first, attempts: 1, status: 204, at, endsWait: false },
      {
        kind: 'failed',
        subscriptionId: id,
        seq: second,
        attempts: 7,
        status: 503,
        error: 'answered 503',
        at,
        retryAt: null,
        blocks: true,
        expireQueuedBefore: queuedAt,
      },
    ])
    expect(died).toEqual([0, 2])
    const records = await deliveries(id)
    expect(
      records.map((record) => [record.outbox_seq, record.state, record.attempts, record.last_status]),
    ).toEqual([
      [first, 'delivered', 1, 204],
      [second, 'dead', 7, 503],
      [third, 'dead', 0, null],
      [fourth, 'dead', 0, null],
    ])
    expect(records[0]?.delivered_at).toBe(at.toISOString())
    expect(records[2]?.last_error).toBe(
      'not sent: its retry window ended while the consumer was down (answered 503)',
    )
    const subscription = await getSubscription(tenant.database, id)
    expect(subscription.last_error).toBe('answered 503')
    expect(subscription.deliveries).toEqual({ pending: 0, delivered: 1, dead: 3 })
  })

  it('makes a subscription wait for its consumer after a blocking failure, unless a later attempt of the batch got through', async () => {
    const at = new Date()
    const retryAt = new Date(at.getTime() + 3_600_000)
    const failure = (subscriptionId: string, seq: number) => ({
      kind: 'failed' as const,
      subscriptionId,
      seq,
      attempts: 1,
      status: null,
      error: 'no answer: ECONNREFUSED',
      at,
      retryAt,
      blocks: true,
      expireQueuedBefore: null,
    })
    const waiting = await subscribed(2, at)
    const recovered = await subscribed(3, at)
    const died = await writeAttempts(tenant.database, [
      failure(waiting.id, waiting.seqs[0] as number),
      failure(recovered.id, recovered.seqs[0] as number),
      {
        kind: 'delivered',
        subscriptionId: recovered.id,
        seq: recovered.seqs[1] as number,
        attempts: 1,
        status: 200,
        at,
        endsWait: true,
      },
    ])
    expect(died).toEqual([0, 0, 0])
    const failed = (await deliveries(waiting.id))[0]
    expect(failed).toMatchObject({ state: 'pending', attempts: 1, last_error: 'no answer: ECONNREFUSED' })
    // A waiting subscription's events are due when its consumer's retry is, whatever their own times.
    expect((await deliveries(waiting.id))[1]?.next_attempt_at).toBe(retryAt.toISOString())
    expect((await getSubscription(tenant.database, waiting.id)).next_attempt_at).toBe(retryAt.toISOString())
    // The delivery after the failure clears the wait: its next event is due at its own time.
    expect((await deliveries(recovered.id))[2]).toMatchObject({
      state: 'pending',
      next_attempt_at: at.toISOString(),
    })
    expect((await getSubscription(tenant.database, recovered.id)).last_error).toBe('no answer: ECONNREFUSED')

    // Once the waiting subscription's consumer acknowledges its retry, it waits no more.
    await writeAttempts(tenant.database, [
      {
        kind: 'delivered',
        subscriptionId: waiting.id,
        seq: waiting.seqs[0] as number,
        attempts: 2,
        status: 204,
        at: retryAt,
        endsWait: true,
      },
    ])
    expect((await deliveries(waiting.id))[1]?.next_attempt_at).toBe(at.toISOString())
    expect((await getSubscription(tenant.database, waiting.id)).next_attempt_at).toBe(at.toISOString())
  })

  it('writes nothing for an empty batch', async () => {
    expect(await writeAttempts(tenant.database, [])).toEqual([])
  })
})
