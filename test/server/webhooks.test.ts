import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readOutbox } from '../../src/events/outbox.js'
import { WebhookDeliveryPage, WebhookReplay, WebhookSubscription } from '../../src/schemas/index.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tenantDatabaseFile } from '../../src/tenants/data-directory.js'
import { closedPortUrl, WebhookReceiver } from '../events/webhook-receiver.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { type ApiAnswer, call, errorTitles, eventually, startTestServer, tokenFor } from './server-helpers.js'

function expectError(answer: ApiAnswer, status: number, description: string) {
  expect(answer.status, answer.text).toBe(status)
  expect(errorTitles(answer).every((title) => title.startsWith(`${status} `))).toBe(true)
  expect((answer.json as { description: string }[]).map((entry) => entry.description).join(' | ')).toContain(
    description,
  )
}

describe('webhooks over HTTP', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  const receivers: WebhookReceiver[] = []
  let server: RunningServer
  let token: string
  let base: string

  const receiver = async (...args: Parameters<typeof WebhookReceiver.start>) => {
    const started = await WebhookReceiver.start(...args)
    receivers.push(started)
    return started
  }
  const api = (path: string, options: Parameters<typeof call>[1] = {}) =>
    call(`${base}${path}`, { token, ...options })

  beforeAll(async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    tenant.database.close()
    server = await startTestServer(dataDir, {
      deliveryIntervalMs: 50,
      webhookDelivery: { backoffBaseMs: 10, backoffCapMs: 100, timeoutMs: 5000 },
    })
    token = await tokenFor(dataDir, 'acme')
    base = `${server.url}/acme/eu`
  }, 120_000)
  afterAll(async () => {
    await server.close()
    await Promise.all(receivers.map((started) => started.close()))
    temp.cleanup()
  })

  it('subscribes a consumer that answers the health check, with 201 and the subscription', async () => {
    const consumer = await receiver()
    const created = await api('/webhooks', {
      method: 'POST',
      body: { url: consumer.url, event_types: ['ai.vendor.taxonomy.updated.v1'] },
    })
    expect(created.status, created.text).toBe(201)
    const subscription = WebhookSubscription.parse(created.json)
    expect(subscription).toMatchObject({
      url: consumer.url,
      event_types: ['ai.vendor.taxonomy.updated.v1'],
      status: 'active',
      deliveries: { pending: 0, delivered: 0, dead: 0 },
    })
    expect(created.headers.get('location')).toBe(`/acme/eu/webhooks/${subscription.id}`)
    expect(consumer.requests.map((request) => request.event.type)).toEqual(['ai.vendor.health_check'])
    expect(consumer.requests[0]?.event.source).toBe(`${base}/webhooks`)

    const listed = await api('/webhooks')
    expect(listed.status).toBe(200)
    expect(listed.json).toEqual({ records: [subscription] })
    expect((await api(`/webhooks/${subscription.id}`)).json).toEqual(subscription)

    expect((await api(`/webhooks/${subscription.id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await api('/webhooks')).json).toEqual({ records: [] })
  })

  it('refuses a consumer that fails the health check with 422 naming the url and its answer', async () => {
    const refusing = await receiver(() => 500)
    expectError(
      await api('/webhooks', { method: 'POST', body: { url: refusing.url } }),
      422,
      `url: the consumer at ${refusing.url} did not answer the ai.vendor.health_check event with a 2XX status (answered 500: refused with 500)`,
    )
    const nobody = await closedPortUrl()
    expectError(
      await api('/webhooks', { method: 'POST', body: { url: nobody } }),
      422,
      `${nobody} did not answer the ai.vendor.health_check event with a 2XX status (no answer: ECONNREFUSED)`,
    )
    expect((await api('/webhooks')).json).toEqual({ records: [] })
  })

  it('checks the request: 422 for a URL that is not http(s), 400 for its structure, 409 for a URL subscribed twice', async () => {
    expectError(
      await api('/webhooks', { method: 'POST', body: { url: 'mailto:ops@example.com' } }),
      422,
      'url: must be an http or https URL; got the scheme mailto:',
    )
    expectError(
      await api('/webhooks', { method: 'POST', body: { url: `https://example.com/${'x'.repeat(3000)}` } }),
      422,
      'url: must be at most 2048 characters',
    )
    expectError(
      await api('/webhooks', {
        method: 'POST',
        body: { url: 'https://example.com/', event_types: ['nope'] },
      }),
      422,
      'event_types.0: must be one of',
    )
    expectError(
      await api('/webhooks', { method: 'POST', body: { url: 42 } }),
      400,
      'url: must be of type string',
    )
    expectError(await api('/webhooks', { method: 'POST', body: 'url=x' }), 400, 'not valid JSON')
    const consumer = await receiver()
    const first = await api('/webhooks', { method: 'POST', body: { url: consumer.url } })
    expect(first.status).toBe(201)
    const id = (first.json as WebhookSubscription).id
    expectError(await api('/webhooks', { method: 'POST', body: { url: consumer.url } }), 409, `as ${id}`)
    expect((await api(`/webhooks/${id}`, { method: 'DELETE' })).status).toBe(204)
  })

  it('needs the write scope to subscribe and remove, the read scope to look', async () => {
    const reader = await tokenFor(dataDir, 'acme', ['read'])
    const writer = await tokenFor(dataDir, 'acme', ['write'])
    const consumer = await receiver()
    expectError(
      await api('/webhooks', { method: 'POST', token: reader, body: { url: consumer.url } }),
      403,
      'needs the write scope',
    )
    expect(consumer.requests).toEqual([])
    expectError(await api('/webhooks', { token: writer }), 403, 'needs the read scope')
    const created = await api('/webhooks', { method: 'POST', token: writer, body: { url: consumer.url } })
    expect(created.status).toBe(201)
    const id = (created.json as WebhookSubscription).id
    expect((await api(`/webhooks/${id}/deliveries`, { token: reader })).status).toBe(200)
    expectError(
      await api(`/webhooks/${id}`, { method: 'DELETE', token: reader }),
      403,
      'needs the write scope',
    )
    expect((await api(`/webhooks/${id}`, { method: 'DELETE', token: writer })).status).toBe(204)
    expect((await call(`${base}/webhooks`)).status).toBe(401)
  })

  it('a webhook receiver that fails and then recovers receives every event', async () => {
    // Up for the health check, then refusing its first six events, then up for good.
    const consumer = await receiver((_, index) => (index >= 1 && index <= 6 ? 503 : 200))
    const created = await api('/webhooks', { method: 'POST', body: { url: consumer.url } })
    expect(created.status, created.text).toBe(201)
    const subscription = created.json as WebhookSubscription

    // Events from both sources: taxonomy operations (appended by the request) and profiles (by the
    // background derivation).
    for (const id of ['dom-a', 'dom-b', 'dom-c']) {
      const answer = await api('/taxonomy/domains', {
        method: 'POST',
        body: { external_id: id, domain_name: id },
      })
      expect(answer.status, answer.text).toBe(204)
    }
    for (const id of ['emp-a', 'emp-b']) {
      expect((await api('/employees', { method: 'POST', body: { external_id: id } })).status).toBe(204)
    }
    await server.app.worker.idle('acme')

    const outboxAfter = () =>
      server.app.pool.use('acme', (tenant) =>
        readOutbox(tenant.database, { sinceSeq: subscription.outbox_cursor }),
      )
    const expected = await eventually(async () => {
      const entries = await outboxAfter()
      const acknowledged = new Set(consumer.acknowledgedIds())
      const types = new Set(entries.map((entry) => entry.event.type))
      const complete =
        types.has('ai.vendor.taxonomy.updated.v1') &&
        types.has('ai.vendor.employee.skill_profile.updated.v1') &&
        entries.every((entry) => acknowledged.has(entry.event.id))
      return complete ? entries : undefined
    }, 30_000)

    const ids = expected.map((entry) => entry.event.id)
    expect(ids.length).toBeGreaterThanOrEqual(5)
    // Every event came, as the outbox has it; the refused attempts carried the ids of the same events.
    const refused = consumer.events().filter((request) => request.status === 503)
    expect(refused).toHaveLength(6)
    for (const request of refused) expect(ids).toContain(request.event.id)
    for (const request of consumer.events()) {
      expect(request.headers['content-type']).toMatch(/^application\/cloudevents\+json/)
      const entry = expected.find((candidate) => candidate.event.id === request.event.id)
      expect(JSON.parse(request.body)).toEqual(entry?.event)
    }
    expect(new Set(consumer.acknowledgedIds())).toEqual(new Set(ids))

    // The last acknowledgement is recorded just after the consumer answered it.
    const counted = await eventually(async () => {
      const current = (await api(`/webhooks/${subscription.id}`)).json as WebhookSubscription
      return current.deliveries.delivered === ids.length ? current : undefined
    })
    expect(counted.deliveries).toEqual({ pending: 0, delivered: ids.length, dead: 0 })
    const log = await api(`/webhooks/${subscription.id}/deliveries?limit=1000`)
    expect(log.status).toBe(200)
    const page = WebhookDeliveryPage.parse(log.json)
    expect(page.records.map((record) => record.event_id)).toEqual(ids)
    expect(page.records.every((record) => record.state === 'delivered')).toBe(true)
    expect(page.records.reduce((sum, record) => sum + record.attempts, 0)).toBe(consumer.events().length)
    expect((await api(`/webhooks/${subscription.id}`, { method: 'DELETE' })).status).toBe(204)
  })

  it('replays events over HTTP with 202, in outbox order, and checks the request', async () => {
    const consumer = await receiver()
    const created = await api('/webhooks', { method: 'POST', body: { url: consumer.url } })
    const id = (created.json as WebhookSubscription).id
    for (const domain of ['dom-r1', 'dom-r2', 'dom-r3']) {
      await api('/taxonomy/domains', { method: 'POST', body: { external_id: domain, domain_name: domain } })
    }
    await eventually(async () => (consumer.acknowledgedIds().length === 3 ? true : undefined))
    const ids = consumer.acknowledgedIds()

    // No dead letters: nothing to replay without a body.
    const none = await api(`/webhooks/${id}/replay`, { method: 'POST' })
    expect(none.status, none.text).toBe(202)
    expect(WebhookReplay.parse(none.json)).toEqual({
      subscription_id: id,
      replayed: 0,
      first_outbox_seq: null,
    })

    const replay = await api(`/webhooks/${id}/replay`, { method: 'POST', body: { event_id: ids[1] } })
    expect(replay.status, replay.text).toBe(202)
    expect(replay.json).toMatchObject({ subscription_id: id, replayed: 2 })
    await eventually(async () => (consumer.acknowledgedIds().length === 5 ? true : undefined))
    expect(consumer.acknowledgedIds().slice(3)).toEqual([ids[1], ids[2]])

    expectError(
      await api(`/webhooks/${id}/replay`, { method: 'POST', body: { event_id: 'nope' } }),
      404,
      "event 'nope' does not exist",
    )
    expectError(
      await api(`/webhooks/${id}/replay`, {
        method: 'POST',
        body: { since: '2026-01-01', event_id: ids[0] },
      }),
      422,
      'event_id: give since or event_id, not both',
    )
    expectError(
      await api(`/webhooks/${id}/replay`, { method: 'POST', body: { from: 'start' } }),
      400,
      'from: is not a field here',
    )
    expectError(
      await api(`/webhooks/${id}/replay`, {
        method: 'POST',
        token: await tokenFor(dataDir, 'acme', ['read']),
      }),
      403,
      'needs the write scope',
    )
    expectError(await api('/webhooks/wh_unknown/replay', { method: 'POST' }), 404, 'does not exist')
    expect((await api(`/webhooks/${id}`, { method: 'DELETE' })).status).toBe(204)
  })

  it('pages and filters the delivery log, and answers 404 for a subscription that does not exist', async () => {
    const consumer = await receiver()
    const created = await api('/webhooks', { method: 'POST', body: { url: consumer.url } })
    const id = (created.json as WebhookSubscription).id
    for (const domain of ['dom-p1', 'dom-p2', 'dom-p3']) {
      await api('/taxonomy/domains', { method: 'POST', body: { external_id: domain, domain_name: domain } })
    }
    await eventually(async () => {
      const counts = ((await api(`/webhooks/${id}`)).json as WebhookSubscription).deliveries
      return counts.delivered === 3 ? counts : undefined
    })
    const first = WebhookDeliveryPage.parse((await api(`/webhooks/${id}/deliveries?limit=2`)).json)
    expect(first.records).toHaveLength(2)
    expect(first.has_next).toBe(true)
    const rest = WebhookDeliveryPage.parse(
      (await api(`/webhooks/${id}/deliveries?limit=2&starting_after=${first.next_starting_after}`)).json,
    )
    expect(rest).toMatchObject({ has_next: false, next_starting_after: null })
    expect(rest.records).toHaveLength(1)
    expect(
      WebhookDeliveryPage.parse((await api(`/webhooks/${id}/deliveries?state=dead`)).json).records,
    ).toEqual([])
    expectError(await api(`/webhooks/${id}/deliveries?state=lost`), 422, 'query parameter state')
    expectError(await api(`/webhooks/${id}/deliveries?limit=5000`), 422, 'query parameter limit')

    expect((await api(`/webhooks/${id}`, { method: 'DELETE' })).status).toBe(204)
    expectError(
      await api(`/webhooks/${id}`, { method: 'DELETE' }),
      404,
      `webhook subscription '${id}' does not exist`,
    )
    expectError(await api(`/webhooks/${id}`), 404, `webhook subscription '${id}' does not exist`)
    expectError(await api(`/webhooks/${id}/deliveries`), 404, 'does not exist')
    expectError(await api('/webhooks/wh_unknown'), 404, "webhook subscription 'wh_unknown' does not exist")
    expectError(await api('/webhooks', { method: 'PATCH', body: {} }), 405, 'allowed: GET, HEAD, POST')
  })
})

describe('shutting down with a webhook delivery in flight', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  afterAll(() => temp.cleanup())

  it('waits for the attempt in flight and records it, then closes the database', async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    tenant.database.close()
    const server = await startTestServer(dataDir, {
      deliveryIntervalMs: 50,
      webhookDelivery: { backoffBaseMs: 10, backoffCapMs: 100, timeoutMs: 1500 },
    })
    const consumer = await WebhookReceiver.start((_, index) => (index === 0 ? 200 : 'hang'))
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${server.url}/acme/eu`
      const created = await call(`${base}/webhooks`, { method: 'POST', token, body: { url: consumer.url } })
      expect(created.status).toBe(201)
      const id = (created.json as WebhookSubscription).id
      await call(`${base}/taxonomy/domains`, {
        method: 'POST',
        token,
        body: { external_id: 'dom-x', domain_name: 'X' },
      })
      // The event is at the consumer, which does not answer; the server stops meanwhile.
      await eventually(async () => (consumer.events().length === 1 ? true : undefined))
      await server.close()

      const database = await TenantDatabase.open(tenantDatabaseFile(dataDir, 'acme'))
      try {
        const rows = await database.all(
          'SELECT event_id, state, attempts, last_status, last_error FROM webhook_deliveries WHERE subscription_id = $1',
          [id],
        )
        expect(rows).toEqual([
          {
            event_id: consumer.events()[0]?.event.id,
            state: 'pending',
            attempts: 1,
            last_status: null,
            last_error: 'no answer within 1500 ms',
          },
        ])
      } finally {
        database.close()
      }
    } finally {
      await server.close()
      await consumer.close()
    }
  })
})
