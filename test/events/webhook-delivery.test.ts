import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { appendEvents, eventSource, readOutbox } from '../../src/events/outbox.js'
import {
  backoffDelay,
  deliverDue,
  deliverUntilIdle,
  serialAccess,
  type TenantAccess,
} from '../../src/events/webhook-delivery.js'
import {
  addSubscription,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  removeSubscription,
} from '../../src/events/webhook-subscriptions.js'
import { WebhookDeliveryPage, WebhookSubscription } from '../../src/schemas/index.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { closedPortUrl, WebhookReceiver } from './webhook-receiver.js'

const PROFILE_UPDATED = 'ai.vendor.employee.skill_profile.updated.v1'
const SKILL_CREATED = 'ai.vendor.taxonomy.skill.created.v1'

/** Short waits so that retries happen within a test; real time, real HTTP. */
const FAST = { maxAttempts: 8, backoffBaseMs: 5, backoffCapMs: 40, timeoutMs: 5000 }

describe('webhook backoff', () => {
  it('draws a full-jitter wait below base times two to the attempts before, capped', () => {
    const settings = { backoffBaseMs: 1000, backoffCapMs: 600_000 }
    expect(backoffDelay(1, settings, () => 0)).toBe(0)
    expect(backoffDelay(1, settings, () => 0.5)).toBe(500)
    expect(backoffDelay(3, settings, () => 0.5)).toBe(2000)
    expect(backoffDelay(8, settings, () => 0.25)).toBe(32_000)
    // 2^29 seconds is far beyond the cap: the cap bounds the draw.
    expect(backoffDelay(30, settings, () => 0.5)).toBe(300_000)
    expect(backoffDelay(30, settings, () => 0.999_999_9)).toBeLessThan(600_000)
  })
})

describe('webhook subscriptions and delivery', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  let access: TenantAccess
  const receivers: WebhookReceiver[] = []

  const receiver = async (...args: Parameters<typeof WebhookReceiver.start>) => {
    const started = await WebhookReceiver.start(...args)
    receivers.push(started)
    return started
  }

  const append = (count: number, type = PROFILE_UPDATED, prefix = 'e') =>
    appendEvents(
      tenant.database,
      Array.from({ length: count }, (_, index) => ({
        type,
        source: eventSource(tenant.baseUrl, `/employees/${prefix}-${index}/skill_profile`),
        data: { tenant_name: 'acme', external_id: `${prefix}-${index}` },
      })),
    )

  /** Removes every subscription, so that each test starts with none. */
  const removeAll = async () => {
    for (const subscription of await listSubscriptions(tenant.database)) {
      await removeSubscription(tenant.database, subscription.id)
    }
  }

  beforeAll(async () => {
    tenant = await createOpenTenant(temp.dir, 'acme')
    access = serialAccess(tenant)
  })
  afterEach(async () => {
    await removeAll()
    await Promise.all(receivers.splice(0).map((started) => started.close()))
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('sends the health check as a structured CloudEvent before it subscribes a consumer', async () => {
    const consumer = await receiver()
    const subscription = await addSubscription(access, { url: consumer.url })
    expect(WebhookSubscription.parse(subscription)).toEqual(subscription)
    expect(subscription).toMatchObject({
      url: consumer.url,
      event_types: [],
      status: 'active',
      deliveries: { pending: 0, delivered: 0, dead: 0 },
    })
    expect(subscription.id).toMatch(/^wh_[0-9a-f]{24}$/)
    expect(consumer.requests).toHaveLength(1)
    const [check] = consumer.requests
    expect(check?.headers['content-type']).toMatch(/^application\/cloudevents\+json/)
    expect(check?.event.type).toBe('ai.vendor.health_check')
    expect(check?.event.specversion).toBe('1.0')
    expect(check?.event.source).toBe(`${tenant.baseUrl}/webhooks`)
    expect(check?.event.data).toEqual({})
    expect(await listSubscriptions(tenant.database)).toEqual([subscription])
  })

  it('does not subscribe a consumer that answers the health check with anything but a 2XX', async () => {
    const refusing = await receiver(() => 503)
    await expect(addSubscription(access, { url: refusing.url })).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(
        new RegExp(`^url: the consumer at ${refusing.url} .*answered 503: refused with 503`),
      ),
    })
    const nobody = await closedPortUrl()
    await expect(addSubscription(access, { url: nobody })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining(
        `${nobody} did not answer the ai.vendor.health_check event with a 2XX status (no answer: ECONNREFUSED)`,
      ),
    })
    const silent = await receiver(() => 'hang')
    await expect(addSubscription(access, { url: silent.url }, { timeoutMs: 300 })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('no answer within 300 ms'),
    })
    expect(await listSubscriptions(tenant.database)).toEqual([])
  })

  it('refuses URLs that are not http(s), too long or hold credentials, and unknown event types, naming the field', async () => {
    const refused = async (input: unknown) => {
      try {
        await addSubscription(access, input)
      } catch (error) {
        return error as { status: number; message: string }
      }
      throw new Error(`subscribed ${JSON.stringify(input)}`)
    }
    expect(await refused({ url: 'ftp://example.com/hooks' })).toMatchObject({
      status: 422,
      message: expect.stringMatching(/^url: must be an http or https URL; got the scheme ftp:/),
    })
    expect(await refused({ url: 'hooks.example.com' })).toMatchObject({
      status: 422,
      message: expect.stringMatching(/^url: 'hooks.example.com' is not an absolute URL/),
    })
    expect(await refused({ url: `http://example.com/${'a'.repeat(2048)}` })).toMatchObject({
      status: 422,
      message: 'url: must be at most 2048 characters',
    })
    expect(await refused({ url: 'https://user:secret@example.com/hooks' })).toMatchObject({
      status: 422,
      message: expect.stringMatching(/^url: must not hold credentials/),
    })
    expect(
      await refused({ url: 'http://example.com/', event_types: ['ai.vendor.unknown.v1'] }),
    ).toMatchObject({
      status: 422,
      message: expect.stringMatching(/^event_types\.0: must be one of: ai\.vendor\./),
    })
    expect(await refused({ url: 'http://example.com/', secret: 'x' })).toMatchObject({
      status: 400,
      message: 'secret: is not a field here; remove it',
    })
    expect(await refused({})).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^url: is required/),
    })
  })

  it('refuses a second subscription of the same URL, however written, with 409 naming the first', async () => {
    const consumer = await receiver()
    const first = await addSubscription(access, { url: consumer.url })
    await expect(addSubscription(access, { url: consumer.url })).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining(`subscribed already as ${first.id}`),
    })
    // One endpoint is one URL, however it is written.
    const shouting = consumer.url.replace('http://', 'HTTP://')
    await expect(addSubscription(access, { url: ` ${shouting}` })).rejects.toMatchObject({ status: 409 })
  })

  it('delivers only the events appended after the subscription, and only the types it asked for', async () => {
    await append(2, PROFILE_UPDATED, 'before')
    const consumer = await receiver()
    const subscription = await addSubscription(access, { url: consumer.url, event_types: [SKILL_CREATED] })
    const skills = await append(2, SKILL_CREATED, 'skill')
    await append(3, PROFILE_UPDATED, 'after')
    const run = await deliverDue(access, { settings: FAST })
    expect(run).toEqual({
      subscriptions: 1,
      attempts: 2,
      delivered: 2,
      failed: 0,
      dead: 0,
      pending: 0,
      next_attempt_at: null,
    })
    expect(consumer.acknowledgedIds()).toEqual(skills.map((event) => event.id))
    // Each delivery is the outbox's event, byte for byte the envelope `events export` writes.
    expect(consumer.events().map((request) => JSON.parse(request.body))).toEqual(
      skills.map((event) => ({ ...event })),
    )
    const current = await getSubscription(tenant.database, subscription.id)
    expect(current.deliveries).toEqual({ pending: 0, delivered: 2, dead: 0 })
    const outbox = await readOutbox(tenant.database)
    expect(current.outbox_cursor).toBe(outbox.at(-1)?.seq)
    // Nothing new: nothing sent.
    expect((await deliverDue(access, { settings: FAST })).attempts).toBe(0)
  })

  it('a webhook receiver that fails and then recovers receives every event', async () => {
    // Down for its first seven requests after the health check (refused, then timing out), then up.
    const consumer = await receiver((_, index) => {
      if (index === 0) return 200
      if (index <= 4) return 500
      if (index <= 7) return 'hang'
      return 200
    })
    const subscription = await addSubscription(access, { url: consumer.url })
    const appended = await append(12, PROFILE_UPDATED, 'recovering')
    const run = await deliverUntilIdle(access, { settings: { ...FAST, maxAttempts: 10, timeoutMs: 1500 } })
    expect(run).toMatchObject({ delivered: 12, dead: 0, pending: 0, failed: 7, attempts: 19 })

    const ids = appended.map((event) => event.id)
    // Every event arrived and was acknowledged; the failed attempts carried ids of the same events.
    expect([...consumer.acknowledgedIds()].sort()).toEqual([...ids].sort())
    const failedIds = consumer
      .events()
      .filter((request) => request.status !== 200)
      .map((request) => request.event.id)
    expect(failedIds).toHaveLength(7)
    for (const id of failedIds) expect(ids).toContain(id)
    // While the consumer was down, its other events waited: only the first event was retried.
    expect(new Set(failedIds)).toEqual(new Set([ids[0]]))

    const log = await listDeliveries(tenant.database, subscription.id)
    expect(WebhookDeliveryPage.parse(log)).toEqual(log)
    expect(log.records.map((record) => record.event_id)).toEqual(ids)
    expect(log.records.every((record) => record.state === 'delivered' && record.last_status === 200)).toBe(
      true,
    )
    expect(log.records[0]).toMatchObject({ attempts: 8, last_error: null, next_attempt_at: null })
    expect(log.records.slice(1).every((record) => record.attempts === 1)).toBe(true)
  })

  it('dead-letters an event after the configured attempts, with the same id in each, and goes on with the others', async () => {
    // The consumer refuses one event for good (a 422 concerns the payload), accepts the others.
    let refusedId: string | undefined
    const consumer = await receiver((event) => (event.id === refusedId ? 422 : 200))
    const subscription = await addSubscription(access, { url: consumer.url })
    const appended = await append(4, PROFILE_UPDATED, 'dead')
    refusedId = appended[1]?.id
    const run = await deliverUntilIdle(access, { settings: { ...FAST, maxAttempts: 3 } })
    expect(run).toMatchObject({ delivered: 3, dead: 1, failed: 2, pending: 0, attempts: 6 })
    const refused = consumer.events().filter((request) => request.event.id === refusedId)
    expect(refused).toHaveLength(3)
    expect(new Set(refused.map((request) => request.body)).size).toBe(1)

    const dead = await listDeliveries(tenant.database, subscription.id, { state: 'dead' })
    expect(dead.records).toEqual([
      expect.objectContaining({
        event_id: refusedId,
        state: 'dead',
        attempts: 3,
        last_status: 422,
        last_error: 'answered 422: refused with 422',
        next_attempt_at: null,
        delivered_at: null,
      }),
    ])
    expect((await getSubscription(tenant.database, subscription.id)).deliveries).toEqual({
      pending: 0,
      delivered: 3,
      dead: 1,
    })
    // A dead letter is not sent again.
    expect((await deliverDue(access, { settings: FAST })).attempts).toBe(0)
  })

  it('gives up on every event of a consumer that stays gone, one event after the other', async () => {
    // A 404 is no refusal of one payload: the consumer is gone, so its events wait behind the first.
    const consumer = await receiver((_, index) => (index === 0 ? 200 : 404))
    await addSubscription(access, { url: consumer.url })
    const appended = await append(3, PROFILE_UPDATED, 'down')
    const run = await deliverUntilIdle(access, { settings: { ...FAST, maxAttempts: 2 } })
    expect(run).toMatchObject({ delivered: 0, dead: 3, failed: 3, pending: 0, attempts: 6 })
    const [first, second, third] = appended.map((event) => event.id)
    expect(consumer.events().map((request) => request.event.id)).toEqual([
      first,
      first,
      second,
      second,
      third,
      third,
    ])
  })

  it('leaves a retry that is not due yet for a later run', async () => {
    const consumer = await receiver((_, index) => (index === 1 ? 500 : 200))
    const subscription = await addSubscription(access, { url: consumer.url })
    const appended = await append(2, PROFILE_UPDATED, 'later')
    const first = await deliverDue(access, {
      settings: { ...FAST, backoffBaseMs: 60_000, backoffCapMs: 60_000 },
      random: () => 0.5,
    })
    expect(first).toMatchObject({ attempts: 1, failed: 1, delivered: 0, pending: 2 })
    const due = Date.parse(first.next_attempt_at as string)
    expect(due).toBeGreaterThan(Date.now() + 20_000)
    const log = await listDeliveries(tenant.database, subscription.id)
    expect(log.records.map((record) => record.next_attempt_at)).toEqual([
      first.next_attempt_at,
      first.next_attempt_at,
    ])
    // A clock past the retry time makes both due; they go in outbox order.
    const second = await deliverDue(access, { settings: FAST, now: () => new Date(due + 1) })
    expect(second).toMatchObject({ attempts: 2, delivered: 2, pending: 0 })
    const [head, next] = appended.map((event) => event.id)
    expect(consumer.events().map((request) => request.event.id)).toEqual([head, head, next])
  })

  it('pages the delivery log and filters it by state', async () => {
    const consumer = await receiver()
    const subscription = await addSubscription(access, { url: consumer.url })
    const appended = await append(3, PROFILE_UPDATED, 'paged')
    await deliverDue(access, { settings: FAST })
    const first = await listDeliveries(tenant.database, subscription.id, { limit: '2' })
    expect(first.records.map((record) => record.event_id)).toEqual(
      appended.slice(0, 2).map((event) => event.id),
    )
    expect(first.has_next).toBe(true)
    const second = await listDeliveries(tenant.database, subscription.id, {
      limit: '2',
      starting_after: String(first.next_starting_after),
    })
    expect(second).toMatchObject({ has_next: false, next_starting_after: null })
    expect(second.records.map((record) => record.event_id)).toEqual([appended[2]?.id])
    expect((await listDeliveries(tenant.database, subscription.id, { state: 'pending' })).records).toEqual([])
    await expect(listDeliveries(tenant.database, subscription.id, { limit: '0' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('query parameter limit'),
    })
    await expect(listDeliveries(tenant.database, 'wh_nope')).rejects.toMatchObject({ status: 404 })
  })

  it('sends nothing more to a removed subscription, and 404s it afterwards', async () => {
    const consumer = await receiver()
    const subscription = await addSubscription(access, { url: consumer.url })
    await removeSubscription(tenant.database, subscription.id)
    await append(2, PROFILE_UPDATED, 'removed')
    expect(await deliverDue(access, { settings: FAST })).toMatchObject({ subscriptions: 0, attempts: 0 })
    expect(consumer.events()).toEqual([])
    await expect(removeSubscription(tenant.database, subscription.id)).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining(`webhook subscription '${subscription.id}' does not exist`),
    })
    await expect(getSubscription(tenant.database, subscription.id)).rejects.toMatchObject({ status: 404 })
    // Removed, the URL may subscribe again.
    expect((await addSubscription(access, { url: consumer.url })).url).toBe(consumer.url)
  })
})
