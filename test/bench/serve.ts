import { createServer } from 'node:net'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { execa } from 'execa'
import { mintLocalToken } from '../../src/auth/oauth-clients.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { listValue } from '../../src/vendor/duckdb.js'
import type { BenchResult } from './bench-result.js'
import { benchSkillEvent, benchTenant } from './bench-tenant.js'
import { scaled, scratchDir } from './measure.js'

/**
 * `npm run bench -- serve`: the HTTP API under load, beside Prism's mock of our own document.
 *
 * - A tenant made by `generate` (100,000 employees; BENCH_SCALE scales it), ingested and derived.
 * - `skillhouse serve` and `skillhouse mock` (Prism 4.14.1 on the generated OpenAPI document) run
 *   as their own processes, started through the built CLI as a user starts them; the mock's
 *   start-up time is the time until it first answers.
 * - autocannon (in this process) on loopback, 50 connections, BENCH_SERVE_SECONDS (10) per route
 *   and server: GET gap (4.5) over 1,000 employee × vacancy pairs, GET subdomain (4.7) over every
 *   subdomain, POST matching_employees (4.10, one page of 10 jobs), and POST skill_events (4.2),
 *   each event with its own external_id spread over the employees; requests per second, p50/p99
 *   latency, non-2xx answers. Ours runs as served (GET answers kept while the tenant's data is
 *   unchanged) and again with that cache off (`_uncached`).
 * - POST skill_events sustained for BENCH_SKILL_EVENT_SECONDS (60) against the real server; then
 *   the server is stopped (SIGTERM) and every acknowledged (204) event is looked up in the database.
 */
export async function benchServe(): Promise<BenchResult> {
  const scratch = scratchDir('serve')
  const employees = scaled(100_000)
  const seconds = Number(process.env.BENCH_SERVE_SECONDS ?? '10')
  const sustainedSeconds = Number(process.env.BENCH_SKILL_EVENT_SECONDS ?? '60')
  const figures: Record<string, number | string> = { employees, connections: 50, seconds_per_route: seconds }
  const ratios: Record<string, number> = {}
  const children: { kill: (signal: NodeJS.Signals) => boolean; then: PromiseLike<unknown>['then'] }[] = []
  try {
    const { dataDir, result: ids } = await benchTenant(
      scratch.dir,
      { seed: 5, employees, jobs: scaled(10_000), vacancies: scaled(20_000) },
      async (tenant) => {
        const list = async (sql: string) =>
          (await tenant.database.all<{ id: string }>(sql)).map((row) => row.id)
        return {
          // GETs cycle over many resources, not one URL: 1,000 employee × vacancy pairs, every subdomain.
          gaps: await list(
            `SELECT '/employees/' || e.external_id || '/vacancies/' || v.external_id || '/gap' AS id
             FROM (SELECT external_id, row_number() OVER (ORDER BY external_id) AS n FROM employees) e
             JOIN (SELECT external_id, row_number() OVER (ORDER BY external_id) AS n FROM vacancies
                    WHERE coalesce(status, 'active') = 'active') v ON v.n = e.n
            ORDER BY e.n LIMIT 1000`,
          ),
          subdomains: await list(
            "SELECT '/taxonomy/subdomains/' || external_id AS id FROM subdomains ORDER BY external_id",
          ),
          employees: (
            await tenant.database.all<{ id: string }>(
              'SELECT external_id AS id FROM employees ORDER BY external_id',
            )
          ).map((row) => row.id),
        }
      },
    )
    const token = (await mintLocalToken(dataDir, 'bench', ['read', 'write'])).access_token

    stage('starting skillhouse serve and skillhouse mock')
    const cli = join(projectRoot(), 'bin', 'run.js')
    const startServe = async (env: Record<string, string> = {}) => {
      const port = await freePort()
      const child = execa('node', [cli, 'serve', '--data-dir', dataDir, '--port', String(port)], {
        reject: false,
        stdio: ['ignore', 'pipe', 'ignore'],
        env,
      })
      children.push(child)
      await answering(`http://127.0.0.1:${port}/healthz`)
      return { child, base: `http://127.0.0.1:${port}/bench/eu` }
    }
    const mockPort = await freePort()
    const mockStarted = performance.now()
    const mock = execa('node', [cli, 'mock', '--port', String(mockPort)], {
      reject: false,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    children.push(mock)
    await answering(`http://127.0.0.1:${mockPort}/healthz`)
    figures.mock_startup_seconds = round((performance.now() - mockStarted) / 1000)

    const prism = `http://127.0.0.1:${mockPort}/bench/eu`
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const routes: { name: string; method: 'GET' | 'POST'; paths: readonly string[]; body?: string }[] = [
      { name: 'get_gap', method: 'GET', paths: ids.gaps },
      { name: 'get_subdomain', method: 'GET', paths: ids.subdomains },
      {
        name: 'post_matching_employees',
        method: 'POST',
        paths: ['/job_architecture/export/jobs/matching_employees'],
        body: JSON.stringify({ filters: [], weights: [{ weight: 'skills_match', value: 1 }], limit: 10 }),
      },
    ]
    const load = async (base: string, route: (typeof routes)[number]) => {
      // A request the server refuses would measure its error path: one is tried first.
      const first = await fetch(`${base}${route.paths[0]}`, {
        method: route.method,
        headers,
        ...(route.body ? { body: route.body } : {}),
      })
      if (!first.ok) throw new Error(`${route.name} on ${base}: ${first.status} ${await first.text()}`)
      let next = 0
      const prefix = new URL(base).pathname
      return cannon({
        url: base,
        duration: seconds,
        requests: [
          {
            method: route.method,
            headers,
            ...(route.body ? { body: route.body } : {}),
            setupRequest: (request: Record<string, unknown>) => ({
              ...request,
              path: `${prefix}${route.paths[next++ % route.paths.length]}`,
            }),
          },
        ],
      })
    }
    // Ours twice: as served (GET answers kept while the tenant's data is unchanged) and with the
    // answer cache off, each on a fresh server process.
    for (const [variant, env] of [
      ['ours', {}],
      ['ours_uncached', { SKILLHOUSE_RESPONSE_CACHE_BYTES: '0' }],
    ] as const) {
      const server = await startServe(env)
      for (const route of routes) {
        stage(`${route.name} on ${variant}`)
        record(figures, `${route.name}_${variant}`, await load(server.base, route))
      }
      server.child.kill('SIGTERM')
      await server.child
    }
    for (const route of routes) {
      stage(`${route.name} on prism`)
      record(figures, `${route.name}_prism`, await load(prism, route))
      for (const variant of ['ours', 'ours_uncached']) {
        ratios[`${route.name}_${variant}_vs_prism_rps`] = round(
          Number(figures[`${route.name}_${variant}_rps`]) /
            Math.max(1, Number(figures[`${route.name}_prism_rps`])),
        )
      }
    }
    const { child: serve, base: ours } = await startServe()

    stage('post_skill_events on prism')
    const prismEvents = await postSkillEvents(prism, headers, ids.employees, seconds, 'prism')
    record(figures, 'post_skill_events_prism', prismEvents.result)
    stage(`post_skill_events on ours, sustained for ${sustainedSeconds} s`)
    const ourEvents = await postSkillEvents(ours, headers, ids.employees, sustainedSeconds, 'ours')
    record(figures, 'post_skill_events_ours', ourEvents.result)
    ratios.post_skill_events_ours_vs_prism_rps = round(
      Number(figures.post_skill_events_ours_rps) / Math.max(1, Number(figures.post_skill_events_prism_rps)),
    )
    ratios.post_skill_events_ours_rps_vs_goal_3000 = round(Number(figures.post_skill_events_ours_rps) / 3000)

    stage('stopping the server and checking every acknowledged event')
    serve.kill('SIGTERM')
    await serve
    const acknowledged = ourEvents.acknowledged
    const found = await withTenant(dataDir, 'bench', async (tenant) => {
      const row = await tenant.database.one<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM skill_events WHERE external_id IN (SELECT unnest($1::VARCHAR[]))',
        [listValue(acknowledged)],
      )
      return row?.n ?? 0
    })
    figures.post_skill_events_acknowledged = acknowledged.length
    figures.post_skill_events_acknowledged_in_database = found
    figures.post_skill_events_all_acknowledged_stored = found === acknowledged.length ? 'yes' : 'NO'
    return { name: 'serve', figures, ratios }
  } finally {
    for (const child of children) {
      child.kill('SIGTERM')
      await child
    }
    scratch.cleanup()
  }
}

interface CannonResult {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number; average: number }
  non2xx: number
  errors: number
  '2xx': number
  duration: number
}

function cannon(options: Record<string, unknown>): Promise<CannonResult> {
  return autocannon({ connections: 50, ...options }) as unknown as Promise<CannonResult>
}

function record(figures: Record<string, number | string>, name: string, result: CannonResult) {
  figures[`${name}_rps`] = Math.round(result['2xx'] / result.duration)
  figures[`${name}_p50_ms`] = result.latency.p50
  figures[`${name}_p99_ms`] = result.latency.p99
  figures[`${name}_non2xx`] = result.non2xx
  figures[`${name}_errors`] = result.errors
}

/** POST skill events for `seconds`, each with a new external_id, over every employee in turn. */
async function postSkillEvents(
  base: string,
  headers: Record<string, string>,
  employees: readonly string[],
  seconds: number,
  prefix: string,
): Promise<{ result: CannonResult; acknowledged: string[] }> {
  let next = 0
  const acknowledged: string[] = []
  const result = await cannon({
    url: base,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (request: Record<string, unknown>, context: Record<string, unknown>) => {
          const n = next++
          const id = `${prefix}-${n}`
          context.id = id
          return {
            ...request,
            path: `${new URL(base).pathname}/employees/${employees[n % employees.length]}/skill_events`,
            body: benchSkillEvent(id),
          }
        },
        onResponse: (status: number, _body: string, context: Record<string, unknown>) => {
          if (status === 204) acknowledged.push(String(context.id))
        },
      },
    ],
  })
  return { result, acknowledged }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Waits until `url` gives any HTTP answer. */
async function answering(url: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    try {
      await fetch(url)
      return
    } catch (error) {
      if (Date.now() > until)
        throw new Error(`${url} did not answer within ${timeoutMs} ms: ${String(error)}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

const stage = (text: string) => console.log(`  … ${text}`)
const round = (value: number, digits = 2) => Number(value.toFixed(digits))
