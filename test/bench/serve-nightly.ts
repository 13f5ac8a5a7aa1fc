import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { execa } from 'execa'
import { mintLocalToken } from '../../src/auth/oauth-clients.js'
import { projectRoot } from '../../src/util/project-paths.js'
import type { BenchResult } from './bench-result.js'
import { benchTenant } from './bench-tenant.js'
import { scaled, scratchDir } from './measure.js'

/**
 * `npm run bench -- serve-nightly`: the nightly job handed to a running server while clients read.
 *
 * - A tenant made by `generate` (10,000 employees, 1,000 jobs, 2,000 vacancies; BENCH_SCALE scales
 *   it), ingested and derived; `skillhouse serve` on it, as its own process.
 * - Idle: autocannon (this process, 50 connections) GETs for BENCH_SERVE_SECONDS (10): gaps of
 *   1,000 employee × vacancy pairs and employees' skill profiles in turn.
 * - During a run: the same GETs while `skillhouse run` (a process, as cron starts it) runs the
 *   nightly job on the inbox and a night's new skill events (one employee in a hundred), handed
 *   to the server; the load stops when the run ends.
 *
 * Reported: the run's time and exit, the GETs' p50/p99 and requests/s idle and during the run,
 * and every request that failed (non-2xx or no answer): the goal is none.
 */
export async function benchServeNightly(): Promise<BenchResult> {
  const scratch = scratchDir('serve-nightly')
  const employees = scaled(10_000)
  const seconds = Number(process.env.BENCH_SERVE_SECONDS ?? '10')
  const figures: Record<string, number | string> = { employees, connections: 50 }
  const cli = join(projectRoot(), 'bin', 'run.js')
  let server: { kill: (signal: NodeJS.Signals) => boolean; then: PromiseLike<unknown>['then'] } | undefined
  try {
    const { dataDir, result: paths } = await benchTenant(
      scratch.dir,
      { seed: 9, employees, jobs: scaled(1_000), vacancies: scaled(2_000) },
      async (tenant) =>
        (
          await tenant.database.all<{ path: string }>(
            `SELECT '/employees/' || e.external_id || '/vacancies/' || v.external_id || '/gap' AS path,
                    '/employees/' || e.external_id || '/skill_profile' AS profile
             FROM (SELECT external_id, row_number() OVER (ORDER BY external_id) AS n FROM employees) e
             JOIN (SELECT external_id, row_number() OVER (ORDER BY external_id) AS n FROM vacancies
                    WHERE coalesce(status, 'active') = 'active') v ON v.n = e.n
             ORDER BY e.n LIMIT 1000`,
          )
        ).flatMap((row) => [row.path, (row as unknown as { profile: string }).profile]),
    )
    const inbox = nightInbox(scratch.dir, employees)
    const port = await freePort()
    server = execa('node', [cli, 'serve', '--data-dir', dataDir, '--port', String(port)], {
      reject: false,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    await answering(`http://127.0.0.1:${port}/healthz`)
    const token = (await mintLocalToken(dataDir, 'bench', ['read'])).access_token
    const base = `http://127.0.0.1:${port}/bench/eu`

    console.log(`  … idle: GETs for ${seconds} s`)
    const idle = await startLoad(base, token, paths, seconds).done
    record(figures, 'idle', idle)

    console.log('  … the nightly run handed to the server, GETs throughout')
    const load = startLoad(base, token, paths, 3600)
    const started = performance.now()
    const run = await execa(
      'node',
      [cli, 'run', '--inbox', inbox, '--out', join(scratch.dir, 'out'), '--data-dir', dataDir, '--json'],
      { reject: false, env: { NO_COLOR: '1' } },
    )
    figures.run_seconds = round((performance.now() - started) / 1000)
    figures.run_exit_code = run.exitCode ?? -1
    if (run.exitCode !== 0) console.log(String(run.stderr))
    const during = await load.stop()
    record(figures, 'during_run', during)
    figures.failed_requests = during.non2xx + during.errors + idle.non2xx + idle.errors
    return {
      name: 'serve-nightly',
      figures,
      ratios: {
        p99_during_run_vs_idle: round(during.latency.p99 / Math.max(1, idle.latency.p99)),
        rps_during_run_vs_idle: round(
          during['2xx'] / during.duration / Math.max(1, idle['2xx'] / idle.duration),
        ),
      },
    }
  } finally {
    server?.kill('SIGTERM')
    await server
    scratch.cleanup()
  }
}

/** The generated inbox and a night's new skill events: one of each hundred employees, new ids. */
function nightInbox(scratch: string, employees: number): string {
  const inbox = join(scratch, 'night')
  mkdirSync(inbox)
  for (const name of readdirSync(join(scratch, 'inbox')))
    symlinkSync(join(scratch, 'inbox', name), join(inbox, name))
  const lines: string[] = []
  for (let index = 0; index < employees; index += 100) {
    lines.push(
      JSON.stringify({
        employee_id: `emp-${index}`,
        external_id: `night-${index}`,
        event_type: 'working_history',
        timestamp: '2026-11-02',
        content: {
          job_title: 'Data engineer',
          company: 'Initech',
          start_date: '2024-01-01',
          end_date: '2026-10-31',
          job_description: 'Wrote Python and SQL data pipelines; reviewed Kubernetes deployments.',
        },
        source: 'bench',
      }),
    )
  }
  writeFileSync(join(inbox, 'skill_events.night.ndjson'), `${lines.join('\n')}\n`)
  return inbox
}

interface CannonResult {
  latency: { p50: number; p99: number }
  non2xx: number
  errors: number
  '2xx': number
  duration: number
}

/** GETs of `paths` in turn, 50 connections, until `seconds` pass or `stop` is called. */
function startLoad(base: string, token: string, paths: readonly string[], seconds: number) {
  let next = 0
  const prefix = new URL(base).pathname
  let instance: { stop: () => void } | undefined
  const done = new Promise<CannonResult>((resolve, reject) => {
    const run = autocannon as unknown as (
      options: Record<string, unknown>,
      callback: (error: Error | null, result: CannonResult) => void,
    ) => { stop: () => void }
    instance = run(
      {
        url: base,
        connections: 50,
        duration: seconds,
        requests: [
          {
            method: 'GET',
            headers: { authorization: `Bearer ${token}` },
            setupRequest: (request: Record<string, unknown>) => ({
              ...request,
              path: `${prefix}${paths[next++ % paths.length]}`,
            }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
  return {
    done,
    stop: () => {
      instance?.stop()
      return done
    },
  }
}

function record(figures: Record<string, number | string>, name: string, result: CannonResult) {
  figures[`${name}_rps`] = Math.round(result['2xx'] / result.duration)
  figures[`${name}_p50_ms`] = result.latency.p50
  figures[`${name}_p99_ms`] = result.latency.p99
  figures[`${name}_non2xx`] = result.non2xx
  figures[`${name}_errors`] = result.errors
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
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

const round = (value: number) => Math.round(value * 100) / 100
