import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import autocannon from 'autocannon'
import { mintLocalToken } from '../../src/auth/oauth-clients.js'
import { startServe } from '../events/serve-process.js'
import type { BenchResult } from './bench-result.js'
import { benchSkillEvent, benchTenant } from './bench-tenant.js'
import { scaled, scratchDir } from './measure.js'

/**
 * `npm run bench -- webhooks`: how fast `serve` delivers CloudEvents to webhook consumers, beside
 * how fast it accepts skill events.
 *
 * - A tenant made by `generate` (10,000 employees; BENCH_SCALE scales it), ingested and derived:
 *   the derivation appends one or more profile events per employee to the outbox.
 * - `skillhouse serve` through the built CLI, as a user starts it; consumers are node:http servers
 *   in this process on loopback that answer 204 at once.
 * - Reference: POST skill_events with autocannon (50 connections, BENCH_WEBHOOK_SECONDS, 15) with
 *   no subscription: skill events accepted per second.
 * - One consumer: it subscribes (POST /webhooks), every event of the outbox is replayed to it
 *   (POST /webhooks/{id}/replay) and the time from the replay to its last event gives events/s.
 * - Ten consumers at once: the same with nine more subscriptions, all ten replayed together.
 * - Live: skill events posted for the same time with the ten consumers subscribed, then with one;
 *   the events the derivations append meanwhile, those delivered meanwhile (to the consumer that
 *   got the fewest), and how long the rest took after.
 */
export async function benchWebhooks(): Promise<BenchResult> {
  const scratch = scratchDir('webhooks')
  const employees = scaled(10_000)
  const seconds = Number(process.env.BENCH_WEBHOOK_SECONDS ?? '15')
  const figures: Record<string, number | string> = { employees, load_seconds: seconds }
  const ratios: Record<string, number> = {}
  const consumers: Consumer[] = []
  let server: Awaited<ReturnType<typeof startServe>> | undefined
  try {
    const { dataDir, result: employeeIds } = await benchTenant(
      scratch.dir,
      { seed: 7, employees, jobs: scaled(1_000), vacancies: scaled(2_000) },
      async (tenant) =>
        (
          await tenant.database.all<{ id: string }>(
            'SELECT external_id AS id FROM employees ORDER BY external_id',
          )
        ).map((row) => row.id),
    )
    const token = (await mintLocalToken(dataDir, 'bench', ['read', 'write'])).access_token
    server = await startServe(dataDir)
    const serveLog = server.log
    const base = `${server.url}/bench/eu`
    const api = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })
      const text = await response.text()
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`)
      return text ? (JSON.parse(text) as Record<string, unknown>) : {}
    }

    stage(`POST skill_events for ${seconds} s, no subscription (the reference)`)
    const derivedBefore = derivations(server.log)
    const accepted = await postSkillEvents(base, token, employeeIds, seconds, 'reference')
    figures.skill_events_accepted_per_second = accepted
    // The derivations of those events end before the outbox is replayed: nothing else runs then.
    await settled(server.log, derivedBefore)

    const subscribe = async () => {
      const consumer = await Consumer.start()
      consumers.push(consumer)
      consumer.id = String((await api('POST', '/webhooks', { url: consumer.url })).id)
      return consumer
    }
    /** Replays the outbox to each consumer of `group`: events each got, and the time it took. */
    const replayAll = async (group: Consumer[]) => {
      const started = performance.now()
      const expected = new Map<Consumer, number>()
      for (const consumer of group) {
        consumer.received = 0
        const replay = await api('POST', `/webhooks/${consumer.id}/replay`, { since: '1970-01-01' })
        expected.set(consumer, Number(replay.replayed))
      }
      await waitFor(
        async () => Number(group.every((consumer) => consumer.received >= (expected.get(consumer) ?? 0))),
        600,
      )
      const seconds = (performance.now() - started) / 1000
      const events = [...expected.values()].reduce((sum, count) => sum + count, 0)
      return { events: events / group.length, seconds }
    }

    const first = await subscribe()
    stage('replaying the outbox to one consumer')
    const one = await replayAll([first])
    const perSecondOne = Math.round(one.events / one.seconds)
    figures.outbox_events = one.events
    figures.delivered_per_second_1_consumer = perSecondOne

    for (let n = 1; n < 10; n++) await subscribe()
    stage('replaying the outbox to ten consumers at once')
    const ten = await replayAll(consumers)
    const perSecondEach = Math.round(ten.events / ten.seconds)
    figures.delivered_per_second_10_consumers_each = perSecondEach
    figures.delivered_per_second_10_consumers_total = 10 * perSecondEach
    /**
     * Skill events posted for `seconds` while `group` is subscribed, until derived: the events the
     * derivations appended meanwhile, those every consumer of the group got by then (the fewest of
     * any), and how long the rest took after.
     */
    const live = async (group: Consumer[]) => {
      for (const consumer of group) consumer.received = 0
      const ids = group.map((consumer) => consumer.id as string)
      const before = await outboxLength(api, ids[0] as string)
      const started = performance.now()
      const derivedBefore = derivations(serveLog)
      const accepted = await postSkillEvents(base, token, employeeIds, seconds, `live-${group.length}`)
      await settled(serveLog, derivedBefore)
      const untilDerived = round((performance.now() - started) / 1000)
      const appended = (await outboxLength(api, ids[0] as string)) - before
      const deliveredByThen = Math.min(...group.map((consumer) => consumer.received))
      const drainStarted = performance.now()
      await waitFor(async () => {
        for (const id of ids) {
          const subscription = await api('GET', `/webhooks/${id}`)
          if ((subscription.deliveries as { pending: number }).pending > 0) return 0
        }
        return 1
      }, 600)
      return {
        accepted,
        untilDerived,
        appended,
        deliveredByThen,
        drainedAfter: round((performance.now() - drainStarted) / 1000),
      }
    }

    stage(`POST skill_events for ${seconds} s with ten consumers subscribed, until derived`)
    const liveTen = await live(consumers)
    figures.skill_events_accepted_per_second_live_10 = liveTen.accepted
    figures.live_10_seconds_until_derived = liveTen.untilDerived
    figures.live_10_events_appended = liveTen.appended
    figures.live_10_events_delivered_by_then_fewest = liveTen.deliveredByThen
    figures.live_10_backlog_drained_seconds_after = liveTen.drainedAfter
    ratios.live_10_delivered_vs_appended_by_then = round(
      liveTen.deliveredByThen / Math.max(1, liveTen.appended),
    )
    ratios.delivered_10_consumers_each_vs_live_appended = round(
      perSecondEach / Math.max(1, liveTen.appended / seconds),
    )

    for (const consumer of consumers.slice(1)) await api('DELETE', `/webhooks/${consumer.id}`)
    stage(`POST skill_events for ${seconds} s with one consumer subscribed, until derived`)
    const liveOne = await live([first])
    figures.skill_events_accepted_per_second_live = liveOne.accepted
    figures.live_seconds_until_derived = liveOne.untilDerived
    figures.live_events_appended = liveOne.appended
    figures.live_events_delivered_by_then = liveOne.deliveredByThen
    figures.live_events_appended_per_second = round(liveOne.appended / liveOne.untilDerived)
    figures.live_backlog_drained_seconds_after = liveOne.drainedAfter
    ratios.live_delivered_vs_appended_by_then = round(liveOne.deliveredByThen / Math.max(1, liveOne.appended))
    ratios.delivered_1_consumer_vs_live_appended = round(
      perSecondOne / Math.max(1, liveOne.appended / seconds),
    )

    ratios.delivered_1_consumer_vs_accepted = round(perSecondOne / accepted)
    ratios.delivered_10_consumers_each_vs_accepted = round(perSecondEach / accepted)
    ratios.delivered_10_consumers_total_vs_accepted = round((10 * perSecondEach) / accepted)
    return { name: 'webhooks', figures, ratios }
  } finally {
    if (server) {
      server.process.kill('SIGTERM')
      await server.process
    }
    for (const consumer of consumers) await consumer.close()
    scratch.cleanup()
  }
}

/**
 * Waits until the server has derived what it accepted: a derivation has ended since `since` (the
 * count of its `derive` log lines then) and none for three seconds since.
 */
async function settled(log: { text: string }, since: number): Promise<void> {
  let seen = derivations(log)
  let quietSince = Date.now()
  await waitFor(
    async () => {
      const count = derivations(log)
      if (count !== seen) {
        seen = count
        quietSince = Date.now()
      }
      return Number(count > since && Date.now() - quietSince > 3000)
    },
    900,
    250,
  )
}

/** Outbox events appended after the subscription was made and queued for it (its backlog and log). */
async function outboxLength(
  api: (method: string, path: string) => Promise<Record<string, unknown>>,
  id: string,
): Promise<number> {
  const subscription = await api('GET', `/webhooks/${id}`)
  const deliveries = subscription.deliveries as { pending: number; delivered: number; dead: number }
  return deliveries.pending + deliveries.delivered + deliveries.dead
}

/** A consumer that answers 204 at once and counts what it gets. */
class Consumer {
  received = 0
  id: string | undefined
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Consumer> {
    let consumer: Consumer | undefined
    const server = createServer((request, response) => {
      request.resume()
      request.on('end', () => {
        if (consumer) consumer.received++
        response.writeHead(204)
        response.end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    consumer = new Consumer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`)
    return consumer
  }

  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

/** POSTs skill events for `seconds` over 50 connections; returns those acknowledged per second. */
async function postSkillEvents(
  base: string,
  token: string,
  employees: readonly string[],
  seconds: number,
  prefix: string,
): Promise<number> {
  let next = 0
  const result = (await autocannon({
    url: base,
    connections: 50,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (request: Record<string, unknown>) => {
          const n = next++
          return {
            ...request,
            path: `${new URL(base).pathname}/employees/${employees[n % employees.length]}/skill_events`,
            body: benchSkillEvent(`${prefix}-${n}`),
          }
        },
      },
    ],
  })) as unknown as { '2xx': number; duration: number }
  return Math.round(result['2xx'] / result.duration)
}

/** Polls `check` until it gives a truthy number, for at most `timeoutSeconds`. */
async function waitFor(check: () => Promise<number>, timeoutSeconds: number, everyMs = 20): Promise<void> {
  const until = Date.now() + timeoutSeconds * 1000
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`not done within ${timeoutSeconds} s`)
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
}

const derivations = (log: { text: string }) => log.text.split('"msg":"derive"').length - 1
const stage = (text: string) => console.log(`  … ${text}`)
const round = (value: number, digits = 2) => Number(value.toFixed(digits))
