import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendEvents, eventSource, readOutbox } from '../../src/events/outbox.js'
import type { DeliveryRun } from '../../src/events/webhook-delivery.js'
import { type WebhookSubscription, WebhookSubscriptionList } from '../../src/schemas/index.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createOpenTenant, runCli, tempDir } from '../helpers/temp-tenant.js'
import { call, eventually, tokenFor } from '../server/server-helpers.js'
import { startServe } from './serve-process.js'
import { WebhookReceiver, webhookTestBed } from './webhook-receiver.js'

const json = <T>(result: { stdout: unknown }) => JSON.parse(String(result.stdout)) as T

/** Appends `count` profile events to the tenant's outbox, as a derivation would. */
async function appendProfileEvents(dataDir: string, name: string, count: number) {
  const tenant = await openTenant(dataDir, name)
  try {
    return await appendEvents(
      tenant.database,
      Array.from({ length: count }, (_, index) => ({
        type: 'ai.vendor.employee.skill_profile.updated.v1',
        source: eventSource(tenant.baseUrl, `/employees/emp-${index}/skill_profile`),
        data: { tenant_name: name, external_id: `emp-${index}` },
      })),
    )
  } finally {
    tenant.database.close()
  }
}

/** Folders whose build output these tests run. */
const SOURCES = [
  'commands/webhook',
  'commands/events',
  'commands/serve.ts',
  'src/events',
  'src/server',
  'src/schemas',
]

/**
 * Builds the CLI when its output is missing or older than these sources. `npm test` builds first
 * (pretest), so this compiles only when the file is run on its own.
 */
async function buildWhenStale(): Promise<void> {
  const files = SOURCES.flatMap((source) => {
    const path = join(projectRoot(), source)
    if (!statSync(path).isDirectory()) return [source]
    return readdirSync(path)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(source, name))
  })
  const output = (source: string) => join(projectRoot(), 'dist', source.replace(/\.ts$/, '.js'))
  const stale = files.some(
    (source) =>
      !existsSync(output(source)) ||
      statSync(output(source)).mtimeMs < statSync(join(projectRoot(), source)).mtimeMs,
  )
  if (stale) await execa('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: projectRoot(), reject: false })
}

beforeAll(buildWhenStale, 240_000)

describe('skillhouse webhook and events deliver', () => {
  const { dataDir, receivers } = webhookTestBed()

  const cli = (...args: string[]) => runCli([...args, '--data-dir', dataDir])

  it('a webhook receiver that fails and then recovers receives every event', async () => {
    const created = await createOpenTenant(dataDir, 'acme')
    created.database.close()
    // Up for the health check, down for its next three requests, then up for good.
    const consumer = await WebhookReceiver.start((_, index) => (index >= 1 && index <= 3 ? 500 : 200))
    receivers.push(consumer)

    const added = await cli('webhook', 'add', consumer.url, '--json')
    expect(added.exitCode, String(added.stderr)).toBe(0)
    const subscription = json<WebhookSubscription>(added)
    expect(subscription).toMatchObject({ url: consumer.url, status: 'active', event_types: [] })
    expect(consumer.requests.map((request) => request.event.type)).toEqual(['ai.vendor.health_check'])

    // Five events appended after the subscription, as a derivation would append them.
    const appended = await appendProfileEvents(dataDir, 'acme', 5)
    const ids = appended.map((event) => event.id)

    // A plain run sends what is due: the first event fails, the others wait for its retry, which
    // is not due before the run ends (unless the jitter drew a wait of a few ms: then once more).
    const once = await cli('events', 'deliver', '--json', '--backoff', '2000')
    expect(once.exitCode, String(once.stderr)).toBe(0)
    const first = json<DeliveryRun>(once)
    expect(first).toMatchObject({ subscriptions: 1, delivered: 0, dead: 0, pending: 5 })
    expect(first.failed).toBe(first.attempts)
    expect(first.attempts).toBeGreaterThanOrEqual(1)
    expect(Date.parse(first.next_attempt_at as string)).toBeGreaterThan(0)

    const idle = await cli(
      'events',
      'deliver',
      '--until-idle',
      '--backoff',
      '20',
      '--backoff-cap',
      '100',
      '--json',
    )
    expect(idle.exitCode, String(idle.stderr)).toBe(0)
    const rest = json<DeliveryRun>(idle)
    expect(rest).toMatchObject({
      subscriptions: 1,
      delivered: 5,
      dead: 0,
      pending: 0,
      next_attempt_at: null,
    })
    // The consumer refused three requests, all of them the first event, retried.
    expect(first.failed + rest.failed).toBe(3)
    expect([...consumer.acknowledgedIds()].sort()).toEqual([...ids].sort())
    const refused = consumer.events().filter((request) => request.status === 500)
    expect(refused.map((request) => request.event.id)).toEqual([ids[0], ids[0], ids[0]])

    const listed = await cli('webhook', 'list', '--json')
    expect(listed.exitCode).toBe(0)
    const list = WebhookSubscriptionList.parse(json(listed))
    expect(list.records).toEqual([
      expect.objectContaining({ id: subscription.id, deliveries: { pending: 0, delivered: 5, dead: 0 } }),
    ])
    const text = await cli('webhook', 'list')
    expect(String(text.stdout)).toContain(
      `${subscription.id}\t${consumer.url}\tall\tdelivered 5, pending 0, dead 0`,
    )

    // Nothing left: a further run sends nothing.
    const again = await cli('events', 'deliver')
    expect(again.exitCode).toBe(0)
    expect(String(again.stdout)).toContain('0 requests to 1 subscriptions: 0 delivered')

    const removed = await cli('webhook', 'remove', subscription.id, '--json')
    expect(removed.exitCode).toBe(0)
    expect(json(removed)).toEqual({ id: subscription.id, removed: true })
    const twice = await cli('webhook', 'remove', subscription.id)
    expect(twice.exitCode).toBe(1)
    expect(String(twice.stderr)).toContain(`error: webhook subscription '${subscription.id}' does not exist`)

    // The outbox is untouched by delivery: the events are still there for `events export`.
    const check = await openTenant(dataDir, 'acme')
    expect(
      (await readOutbox(check.database, { sinceSeq: subscription.outbox_cursor })).map((e) => e.event.id),
    ).toEqual(ids)
    check.database.close()
  })

  it('refuses a consumer that fails the health check, and a URL that is not http(s), with exit 2', async () => {
    const refusing = await WebhookReceiver.start(() => 404)
    receivers.push(refusing)
    const failed = await cli('webhook', 'add', refusing.url)
    expect(failed.exitCode).toBe(2)
    expect(String(failed.stderr)).toContain(
      `error: url: the consumer at ${refusing.url} did not answer the ai.vendor.health_check event with a 2XX status (answered 404: refused with 404)`,
    )
    const scheme = await cli('webhook', 'add', 'file:///etc/passwd', '--json')
    expect(scheme.exitCode).toBe(2)
    expect(json<{ error: { status: number } }>(scheme).error.status).toBe(422)
    expect(String(scheme.stderr)).toContain('error: url: must be an http or https URL; got the scheme file:')
    const type = await cli('webhook', 'add', refusing.url, '--event-type', 'ai.vendor.nothing.v1')
    expect(type.exitCode).toBe(2)
    expect(String(type.stderr)).toContain('--event-type')
    const listed = await cli('webhook', 'list', '--json')
    expect(json(listed)).toEqual({ records: [] })
    const none = await cli('events', 'deliver', '--json')
    expect(json<DeliveryRun>(none)).toMatchObject({ subscriptions: 0, attempts: 0 })
  })
  it('replays the dead letters of a subscription, then events since a time, and shows its backlog and last error', async () => {
    const created = await createOpenTenant(dataDir, 'replay')
    created.database.close()
    let down = true
    const consumer = await WebhookReceiver.start((_, index) => (index > 0 && down ? 503 : 200))
    receivers.push(consumer)
    const tenantCli = (...args: string[]) => cli(...args, '--tenant', 'replay')
    const added = await tenantCli('webhook', 'add', consumer.url, '--retry-window', '200', '--json')
    expect(added.exitCode, String(added.stderr)).toBe(0)
    const subscription = json<WebhookSubscription>(added)
    expect(subscription.retry_policy.window_ms).toBe(200)
    const appended = await appendProfileEvents(dataDir, 'replay', 2)
    const ids = appended.map((event) => event.id)

    const pending = await tenantCli('webhook', 'list')
    expect(String(pending.stdout)).toContain(
      `delivered 0, pending 2, dead 0\toldest pending ${ids[0]} (#${subscription.outbox_cursor + 1}, ${appended[0]?.time})`,
    )
    const died = await tenantCli(
      'events',
      'deliver',
      '--until-idle',
      '--backoff',
      '10',
      '--backoff-cap',
      '50',
      '--json',
    )
    expect(json<DeliveryRun>(died)).toMatchObject({ delivered: 0, dead: 2, pending: 0 })
    const dead = await tenantCli('webhook', 'list')
    expect(String(dead.stdout)).toMatch(
      /delivered 0, pending 0, dead 2\tnothing pending\tlast error answered 503: refused with 503 at \S+Z/,
    )

    down = false
    const replayed = await tenantCli('webhook', 'replay', '--subscription', subscription.id, '--json')
    expect(replayed.exitCode, String(replayed.stderr)).toBe(0)
    expect(json(replayed)).toEqual({
      subscription_id: subscription.id,
      replayed: 2,
      first_outbox_seq: subscription.outbox_cursor + 1,
    })
    const sent = consumer.events().length
    const delivered = await tenantCli('events', 'deliver', '--json')
    expect(json<DeliveryRun>(delivered)).toMatchObject({ delivered: 2, dead: 0, pending: 0 })
    expect(
      consumer
        .events()
        .slice(sent)
        .map((request) => request.event.id),
    ).toEqual(ids)

    const since = await tenantCli(
      'webhook',
      'replay',
      '--subscription',
      subscription.id,
      '--since',
      appended[1]?.time as string,
    )
    // Both events were appended at once: they share their time.
    expect(String(since.stdout)).toContain(`Queued 2 events again for ${subscription.id}`)
    const both = await tenantCli(
      'webhook',
      'replay',
      '--subscription',
      subscription.id,
      '--since',
      '2026-01-01',
      '--event',
      ids[0] as string,
    )
    expect(both.exitCode).toBe(2)
    expect(String(both.stderr)).toContain('--event')
    const unknown = await tenantCli('webhook', 'replay', '--subscription', 'wh_nope')
    expect(unknown.exitCode).toBe(1)
    expect(String(unknown.stderr)).toContain("webhook subscription 'wh_nope' does not exist")
  })
})

describe('skillhouse serve delivers from the start', () => {
  const { dataDir, receiver } = webhookTestBed()

  it('sends the events waiting in the outbox without any request, and leaves tenants with nothing to deliver closed', async () => {
    for (const name of ['acme', 'quiet']) (await createOpenTenant(dataDir, name)).database.close()
    const consumer = await receiver()
    const added = await runCli([
      'webhook',
      'add',
      consumer.url,
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--json',
    ])
    expect(added.exitCode, String(added.stderr)).toBe(0)
    // Events a batch command appended while no server ran.
    const appended = await appendProfileEvents(dataDir, 'acme', 5)

    const server = await startServe(dataDir)
    try {
      await eventually(async () => (consumer.acknowledgedIds().length >= 5 ? true : undefined), 60_000)
      expect(consumer.acknowledgedIds()).toEqual(appended.map((event) => event.id))
      // The tenant without subscriptions was looked at and let go: another process may open it.
      const quiet = await openTenant(dataDir, 'quiet')
      quiet.database.close()
    } finally {
      server.process.kill('SIGTERM')
      const stopped = await server.process
      expect(stopped.exitCode, `${stopped.signal} ${server.log.text}`).toBe(0)
    }
  }, 120_000)
})

describe('skillhouse serve delivers to webhooks with its --delivery-* flags', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  afterAll(() => temp.cleanup())

  it('keeps an event as a dead letter once --delivery-window has ended, not before', async () => {
    const created = await createOpenTenant(dataDir, 'acme')
    created.database.close()
    const consumer = await WebhookReceiver.start((_, index) => (index === 0 ? 200 : 503))
    const {
      process: server,
      url,
      log: serveLog,
    } = await startServe(dataDir, [
      '--delivery-window',
      '400',
      '--delivery-backoff',
      '10',
      '--delivery-backoff-cap',
      '50',
      '--delivery-timeout',
      '2000',
    ])
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${url}/acme/eu`
      const added = await call(`${base}/webhooks`, { method: 'POST', token, body: { url: consumer.url } })
      expect(added.status, added.text).toBe(201)
      const id = (added.json as WebhookSubscription).id
      // The first derivation after the tenant opened (it loads the vocabulary) holds the event
      // loop for seconds: the event goes after it.
      await eventually(async () => (serveLog.text.includes('"msg":"derive"') ? true : undefined), 60_000)
      const domain = await call(`${base}/taxonomy/domains`, {
        method: 'POST',
        token,
        body: { external_id: 'dom-dead', domain_name: 'Dead letters' },
      })
      expect(domain.status).toBe(204)
      const counts = await eventually(async () => {
        const current = (await call(`${base}/webhooks/${id}`, { token })).json as WebhookSubscription
        return current.deliveries.dead === 1 ? current.deliveries : undefined
      }, 30_000)
      expect(counts).toEqual({ pending: 0, delivered: 0, dead: 1 })
      const attempts = consumer.events()
      expect(attempts.length).toBeGreaterThanOrEqual(1)
      expect(new Set(attempts.map((request) => request.event.id)).size).toBe(1)
      expect(attempts[0]?.event.type).toBe('ai.vendor.taxonomy.updated.v1')
      const log = (await call(`${base}/webhooks/${id}/deliveries?state=dead`, { token })).json as {
        records: { attempts: number; last_status: number; created_at: string; updated_at: string }[]
      }
      expect(log.records).toEqual([expect.objectContaining({ attempts: attempts.length, last_status: 503 })])
      // Given up only once its window had ended.
      const [record] = log.records
      expect(
        Date.parse(record?.updated_at ?? '') - Date.parse(record?.created_at ?? ''),
      ).toBeGreaterThanOrEqual(400)
    } finally {
      server.kill('SIGTERM')
      const stopped = await server
      expect(stopped.exitCode).toBe(0)
      await consumer.close()
    }
  })
})
