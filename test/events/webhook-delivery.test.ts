import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { appendEvents, eventSource, readOutbox } from '../../src/events/outbox.js'
import {
  afterFailure,
  deliverySettings,
  nominalDelay,
  retryDelay,
  retrySchedule,
} from '../../src/events/retry-policy.js'
import {
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
  replayDeliveries,
} from '../../src/events/webhook-subscriptions.js'
import { WebhookDeliveryPage, WebhookReplay, WebhookSubscription } from '../../src/schemas/index.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { closedPortUrl, WebhookReceiver } from './webhook-receiver.js'

const PROFILE_UPDATED = 'ai.vendor.employee.skill_profile.updated.v1'
const SKILL_CREATED = 'ai.vendor.taxonomy.skill.created.v1'

/** Short waits so that retries happen within a test; real time, real HTTP. */
const FAST = { windowMs: 60_000, backoffBaseMs: 5, backoffCapMs: 40, timeoutMs: 5000 }

/**
 * A clock that moves only when delivery sleeps until its next retry: the windows and waits of a
 * test are then the same however busy the machine is (the requests stay real).
 */
function virtualClock() {
  let time = Date.now()
  return {
    now: () => new Date(time),
    sleep: async (ms: number) => {
      time += ms
      await new Promise((resolve) => setImmediate(resolve))
    },
  }
}

describe('the webhook retry policy', () => {
  const settings = deliverySettings()

  it('defaults to a 24-hour window, a 1 s base doubled per retry up to 1 h, and 10 s per attempt', () => {
    expect(settings).toEqual({
      windowMs: 86_400_000,
      backoffBaseMs: 1000,
      backoffCapMs: 3_600_000,
      timeoutMs: 10_000,
    })
    expect(nominalDelay(1, settings)).toBe(1000)
    expect(nominalDelay(3, settings)).toBe(4000)
    expect(nominalDelay(12, settings)).toBe(2_048_000)
    expect(nominalDelay(13, settings)).toBe(3_600_000)
    expect(nominalDelay(500, settings)).toBe(3_600_000)
  })

  it('draws each wait between half the nominal wait and the whole of it', () => {
    expect(retryDelay(1, settings, () => 0)).toBe(500)
    expect(retryDelay(1, settings, () => 1)).toBe(1000)
    expect(retryDelay(4, settings, () => 0.5)).toBe(6000)
    expect(retryDelay(40, settings, () => 0)).toBe(1_800_000)
  })

  it('retries until the window ends, plans the last attempt at its end, and only then gives up', () => {
    const queuedAt = new Date('2026-11-21T00:00:00Z')
    const at = (ms: number) => new Date(queuedAt.getTime() + ms)
    expect(afterFailure({ queuedAt, failed: 1, now: at(0) }, settings, () => 1)).toEqual({
      dead: false,
      retryAt: at(1000),
    })
    // 30 minutes before the end, a wait of up to an hour is cut to the end of the window.
    const end = settings.windowMs
    expect(afterFailure({ queuedAt, failed: 30, now: at(end - 1_800_000) }, settings, () => 1)).toEqual({
      dead: false,
      retryAt: at(end),
    })
    expect(afterFailure({ queuedAt, failed: 31, now: at(end - 1) }, settings, () => 0)).toEqual({
      dead: false,
      retryAt: at(end),
    })
    expect(afterFailure({ queuedAt, failed: 32, now: at(end) }, settings, () => 0)).toEqual({ dead: true })
    // However many attempts failed before, nothing dies before its window ends.
    expect(afterFailure({ queuedAt, failed: 1000, now: at(end - 1) }, settings, () => 0).dead).toBe(false)
  })

  it('tabulates the default schedule: 36 attempts over 24 hours when every wait is drawn longest', () => {
    const schedule = retrySchedule(settings)
    expect(schedule).toHaveLength(36)
    expect(schedule.slice(0, 4)).toEqual([
      { attempt: 1, nominalWaitMs: 0, earliestMs: 0, latestMs: 0 },
      { attempt: 2, nominalWaitMs: 1000, earliestMs: 500, latestMs: 1000 },
      { attempt: 3, nominalWaitMs: 2000, earliestMs: 1500, latestMs: 3000 },
      { attempt: 4, nominalWaitMs: 4000, earliestMs: 3500, latestMs: 7000 },
    ])
    expect(schedule[12]).toMatchObject({ attempt: 13, nominalWaitMs: 2_048_000, latestMs: 4_095_000 })
    expect(schedule[13]).toMatchObject({ attempt: 14, nominalWaitMs: 3_600_000, latestMs: 7_695_000 })
    expect(schedule.at(-2)).toMatchObject({ attempt: 35, latestMs: 83_295_000 })
    expect(schedule.at(-1)).toMatchObject({ attempt: 36, latestMs: 86_400_000, earliestMs: 43_447_500 })
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
    const run = await deliverUntilIdle(access, { settings: { ...FAST, timeoutMs: 1500 } })
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

  it('dead-letters an event only after its retry window ended, with the same id in each attempt, and goes on with the others', async () => {
    // The consumer refuses one event for good (a 422 concerns the payload), accepts the others.
    let refusedId: string | undefined
    const consumer = await receiver((event) => (event.id === refusedId ? 422 : 200))
    const subscription = await addSubscription(access, { url: consumer.url })
    const appended = await append(4, PROFILE_UPDATED, 'dead')
    refusedId = appended[1]?.id
    const windowMs = 300
    const run = await deliverUntilIdle(access, { settings: { ...FAST, windowMs }, ...virtualClock() })
    expect(run).toMatchObject({ delivered: 3, dead: 1, pending: 0 })
    const refused = consumer.events().filter((request) => request.event.id === refusedId)
    expect(refused.length).toBeGreaterThanOrEqual(2)
    expect(run.attempts).toBe(3 + refused.length)
    expect(run.failed).toBe(refused.length - 1)
    expect(new Set(refused.map((request) => request.body)).size).toBe(1)
    // The others were not held up by it: they were acknowledged before its last attempt.
    const order = consumer.events().map((request) => request.event.id)
    expect(order.lastIndexOf(appended[3]?.id as string)).toBeLessThan(order.lastIndexOf(refusedId as string))

    const dead = await listDeliveries(tenant.database, subscription.id, { state: 'dead' })
    expect(dead.records).toEqual([
      expect.objectContaining({
        event_id: refusedId,
        state: 'dead',
        attempts: refused.length,
        last_status: 422,
        last_error: 'answered 422: refused with 422',
        next_attempt_at: null,
        delivered_at: null,
      }),
    ])
    // Its last attempt was made once its window had ended, as recorded.
    const record = dead.records[0] as { created_at: string; updated_at: string }
    expect(Date.parse(record.updated_at) - Date.parse(record.created_at)).toBeGreaterThanOrEqual(windowMs)
    expect((await getSubscription(tenant.database, subscription.id)).deliveries).toEqual({
      pending: 0,
      delivered: 3,
      dead: 1,
    })
    // A dead letter is not sent again.
    expect((await deliverDue(access, { settings: FAST })).attempts).toBe(0)
  })

  it('keeps the events of a consumer that stays gone behind the first, and gives them up with it once their window ended', async () => {
    // A 404 is no refusal of one payload: the consumer is gone, so its events wait behind the first.
    const consumer = await receiver((_, index) => (index === 0 ? 200 : 404))
    const subscription = await addSubscription(access, { url: consumer.url })
    const appended = await append(3, PROFILE_UPDATED, 'down')
    const run = await deliverUntilIdle(access, { settings: { ...FAST, windowMs: 200 }, ...virtualClock() })
    expect(run).toMatchObject({ delivered: 0, dead: 3, pending: 0 })
    const [first, second, third] = appended.map((event) => event.id)
    // Only the first was ever sent; the others died with it, their windows over, unsent.
    const sent = consumer.events().map((request) => request.event.id)
    expect(sent.length).toBeGreaterThanOrEqual(2)
    expect(new Set(sent)).toEqual(new Set([first]))
    const log = await listDeliveries(tenant.database, subscription.id)
    expect(log.records.map((record) => [record.event_id, record.state, record.attempts])).toEqual([
      [first, 'dead', sent.length],
      [second, 'dead', 0],
      [third, 'dead', 0],
    ])
    expect(log.records[1]?.last_error).toBe(
      'not sent: its retry window ended while the consumer was down (answered 404: refused with 404)',
    )
    const listed = await getSubscription(tenant.database, subscription.id)
    expect(listed).toMatchObject({
      deliveries: { pending: 0, delivered: 0, dead: 3 },
      oldest_pending: null,
      next_attempt_at: null,
      last_error: 'answered 404: refused with 404',
    })
  })

  it("delivers with a subscription's own retry policy over the server's", async () => {
    const gone = await receiver((_, index) => (index === 0 ? 200 : 503))
    const patient = await receiver((_, index) => (index === 0 ? 200 : 503))
    const short = await addSubscription(access, { url: gone.url, retry_policy: { window_ms: 100 } })
    const long = await addSubscription(access, { url: patient.url })
    expect(short.retry_policy).toEqual({
      window_ms: 100,
      backoff_base_ms: null,
      backoff_cap_ms: null,
      timeout_ms: null,
    })
    expect(long.retry_policy).toEqual({
      window_ms: null,
      backoff_base_ms: null,
      backoff_cap_ms: null,
      timeout_ms: null,
    })
    await append(1, PROFILE_UPDATED, 'own')
    const first = await deliverDue(access, { settings: FAST })
    expect(first).toMatchObject({ attempts: 2, failed: 2, dead: 0, pending: 2 })
    // A second later by the clock: past the subscription's own window, well within the server's.
    const later = await deliverDue(access, { settings: FAST, now: () => new Date(Date.now() + 1000) })
    expect(later).toMatchObject({ attempts: 2, failed: 1, dead: 1, pending: 1 })
    expect((await getSubscription(tenant.database, short.id)).deliveries).toMatchObject({
      dead: 1,
      pending: 0,
    })
    expect((await getSubscription(tenant.database, long.id)).deliveries).toMatchObject({
      dead: 0,
      pending: 1,
    })
    await expect(
      addSubscription(access, { url: 'http://127.0.0.1:1/x', retry_policy: { window_ms: -1 } }),
    ).rejects.toMatchObject({
      status: 422,
      message: 'retry_policy.window_ms: must be at least 0 milliseconds',
    })
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

  it("shows each subscription's backlog: pending events (queued or not yet), the oldest, the next attempt and the last error", async () => {
    const consumer = await receiver((_, index) => (index === 0 ? 200 : 503))
    const subscription = await addSubscription(access, { url: consumer.url })
    expect(subscription).toMatchObject({
      oldest_pending: null,
      next_attempt_at: null,
      last_error: null,
      last_error_at: null,
    })
    const appended = await append(3, PROFILE_UPDATED, 'backlog')
    // Appended, not yet queued by a delivery run: already part of the backlog.
    const waiting = await getSubscription(tenant.database, subscription.id)
    expect(waiting.deliveries).toEqual({ pending: 3, delivered: 0, dead: 0 })
    expect(waiting.oldest_pending).toEqual({
      event_id: appended[0]?.id,
      outbox_seq: waiting.outbox_cursor + 1,
      time: appended[0]?.time,
    })
    expect(waiting.next_attempt_at).toBe(appended[0]?.time)
    const run = await deliverDue(access, {
      settings: { ...FAST, backoffBaseMs: 60_000, backoffCapMs: 60_000 },
    })
    expect(run).toMatchObject({ attempts: 1, failed: 1, pending: 3 })
    const failing = await getSubscription(tenant.database, subscription.id)
    expect(failing).toMatchObject({
      deliveries: { pending: 3, delivered: 0, dead: 0 },
      oldest_pending: { event_id: appended[0]?.id },
      next_attempt_at: run.next_attempt_at,
      last_error: 'answered 503: refused with 503',
    })
    expect(Date.parse(failing.last_error_at as string)).toBeLessThanOrEqual(Date.now())
    expect(WebhookSubscription.parse(failing)).toEqual(failing)
  })

  it('replays the dead letters, past events since a time or from an event on, in outbox order, each with a new window', async () => {
    let refusing = true
    const consumer = await receiver((_, index) => (index > 0 && refusing ? 503 : 200))
    // Events appended before the subscription: never sent to it, replayable all the same.
    const before = await append(2, PROFILE_UPDATED, 'replay-before')
    const subscription = await addSubscription(access, { url: consumer.url })
    const after = await append(3, PROFILE_UPDATED, 'replay-after')
    const died = await deliverUntilIdle(access, { settings: { ...FAST, windowMs: 100 }, ...virtualClock() })
    expect(died).toMatchObject({ dead: 3, delivered: 0, pending: 0 })
    refusing = false
    const sentBefore = consumer.events().length

    // The dead letters, in order.
    const dead = await replayDeliveries(tenant.database, subscription.id, {})
    expect(WebhookReplay.parse(dead)).toEqual(dead)
    expect(dead).toMatchObject({ subscription_id: subscription.id, replayed: 3 })
    const first = await deliverDue(access, { settings: FAST })
    expect(first).toMatchObject({ delivered: 3, dead: 0, pending: 0 })
    const ids = (from: number) =>
      consumer
        .events()
        .slice(from)
        .map((request) => request.event.id)
    expect(ids(sentBefore)).toEqual(after.map((event) => event.id))
    const log = await listDeliveries(tenant.database, subscription.id)
    expect(log.records.every((record) => record.state === 'delivered' && record.attempts === 1)).toBe(true)
    expect((await replayDeliveries(tenant.database, subscription.id, {})).replayed).toBe(0)

    // Every event at or after a time, those from before the subscription included.
    const since = await replayDeliveries(tenant.database, subscription.id, { since: before[0]?.time })
    expect(since.replayed).toBe(5)
    let from = consumer.events().length
    await deliverDue(access, { settings: FAST })
    expect(ids(from)).toEqual([...before, ...after].map((event) => event.id))

    // From one event on.
    const fromEvent = await replayDeliveries(tenant.database, subscription.id, { event_id: after[1]?.id })
    expect(fromEvent).toMatchObject({ replayed: 2, first_outbox_seq: subscription.outbox_cursor + 2 })
    from = consumer.events().length
    await deliverDue(access, { settings: FAST })
    expect(ids(from)).toEqual([after[1]?.id, after[2]?.id])

    await expect(
      replayDeliveries(tenant.database, subscription.id, { event_id: 'nope' }),
    ).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining("event 'nope' does not exist"),
    })
    await expect(
      replayDeliveries(tenant.database, subscription.id, { since: '2026-01-01', event_id: after[0]?.id }),
    ).rejects.toMatchObject({ status: 422, message: 'event_id: give since or event_id, not both' })
    await expect(
      replayDeliveries(tenant.database, subscription.id, { since: 'yesterday' }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('since: must be an ISO 8601 date or date-time'),
    })
    await expect(replayDeliveries(tenant.database, 'wh_nope', {})).rejects.toMatchObject({ status: 404 })
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
