import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { readServerRecord } from '../../src/tenants/server-record.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { startServe } from '../events/serve-process.js'
import { createOpenTenant, fixture, runCli, tempDir } from '../helpers/temp-tenant.js'
import { call, eventually, tokenFor } from './server-helpers.js'

/**
 * Commands on a tenant that `skillhouse serve` holds hand their work to the server over its local
 * channel (docs/architecture.md): the same bytes as alone, the API up throughout, and a clean end
 * whichever side stops.
 */
const temp = tempDir()
afterAll(() => temp.cleanup())

/**
 * A tenant `demo` with the demo's records but one job (the first of a 4.10 page) and none of its
 * skill events, derived: a nightly run on the whole demo adds the job, then profiles for all, so
 * that a page read between its ingest and its derivation would show the job without matches.
 */
let template: string
/** The nightly run's inbox: the whole demo, skill events included. */
const inbox = fixture('demo')
/** The job of the demo whose external_id comes first. */
const FIRST_JOB = 'job-account-manager'

beforeAll(async () => {
  template = join(temp.dir, 'template')
  const records = join(temp.dir, 'records')
  mkdirSync(records)
  for (const name of readdirSync(inbox))
    if (name !== 'skill_events.ndjson') cpSync(join(inbox, name), join(records, name))
  // One row a line in the demo's jobs.csv.
  const jobs = readFileSync(join(inbox, 'jobs.csv'), 'utf8').split('\n')
  writeFileSync(
    join(records, 'jobs.csv'),
    jobs.filter((line) => !line.startsWith(`${FIRST_JOB},`)).join('\n'),
  )
  const tenant = await createOpenTenant(template, 'demo')
  await ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths: [records],
    rejectsDir: join(temp.dir, 'rejects'),
  })
  tenant.database.close()
  expect((await runCli(['derive', '--data-dir', template])).exitCode).toBe(0)
}, 120_000)

let copies = 0
/** A copy of the template data directory. */
function dataDirCopy(): string {
  const dir = join(temp.dir, `data-${++copies}`)
  cpSync(template, dir, { recursive: true })
  return dir
}

/** Runs `work` beside `skillhouse serve` on `dataDir`, stopped after it (SIGTERM). */
async function served(
  dataDir: string,
  work: (server: Awaited<ReturnType<typeof startServe>>) => Promise<void>,
) {
  const server = await startServe(dataDir)
  try {
    await work(server)
  } finally {
    server.process.kill('SIGTERM')
    await server.process
  }
}

const text = async (args: string[]) => {
  const result = await runCli(args)
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) }
}

/** The read commands of the issue, each as a user types it (JSON where it has one). */
const READS = [
  ['profile', 'employee', 'emp-10001', '--json'],
  ['profile', 'job', 'job-warehouse-operative', '--json'],
  ['match', 'jobs', '--all-pages', '--json'],
  ['match', 'vacancies', '--employee', 'emp-10001', '--limit', '5', '--json'],
  ['gap', '--employee', 'emp-10001', '--vacancy', 'vac-0001', '--json'],
  ['org', 'export', '--low-data', '--json'],
  ['events', 'export'],
  ['webhook', 'list', '--json'],
  ['extract', 'Python, SQL and stakeholder management', '--tenant', 'demo', '--json'],
]

describe('reads beside a server', () => {
  it('answers every read command with the bytes it prints alone', async () => {
    const dataDir = dataDirCopy()
    expect(
      (await text(['run', '--inbox', inbox, '--out', join(dataDir, 'out'), '--data-dir', dataDir])).exitCode,
    ).toBe(0)
    const alone: string[] = []
    for (const args of READS) {
      const answer = await text([...args, '--data-dir', dataDir])
      expect(answer.exitCode, `${args.join(' ')}: ${answer.stderr}`).toBe(0)
      alone.push(answer.stdout)
    }
    await served(dataDir, async (server) => {
      expect(readServerRecord(dataDir)?.pid).toBe(server.process.pid)
      for (const [index, args] of READS.entries()) {
        const answer = await text([...args, '--data-dir', dataDir])
        expect(answer.exitCode, `${args.join(' ')}: ${answer.stderr}`).toBe(0)
        expect(answer.stdout, args.join(' ')).toBe(alone[index])
      }
      const [listed] = JSON.parse(
        (await text(['tenant', 'list', '--json', '--data-dir', dataDir])).stdout,
      ) as {
        served_by: { pid: number; url: string }
        last_run: { status: string }
      }[]
      expect(listed?.served_by).toEqual({ pid: server.process.pid, url: server.url })
      expect(listed?.last_run.status).toBe('finished')
    })
  })
})

/** The events of `events export`'s output. */
const outboxSize = (exported: { stdout: string }) => exported.stdout.split('\n').filter(Boolean).length

/** What a nightly run wrote, but for what names the run or the moment. */
function runOutputs(out: string) {
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Record<string, unknown>
  const { run_id, manifest_file, started_at, finished_at, timings, outputs, ...rest } = manifest
  const files = (outputs as { file: string; sha256: string }[]).filter(
    (file) => !file.file.startsWith('events/'),
  )
  return { ...rest, files, events: manifest.events }
}

describe('writes beside a server', () => {
  it('runs the nightly job in the server with the outputs of a run alone, while reads see before or after it', async () => {
    const alone = dataDirCopy()
    const beside = dataDirCopy()
    const standalone = await text(['run', '--inbox', inbox, '--out', join(alone, 'out'), '--data-dir', alone])
    expect(standalone.exitCode, standalone.stderr).toBe(0)

    await served(beside, async (server) => {
      const token = await tokenFor(beside, 'demo', ['read'])
      const base = `${server.url}/demo/eu`
      const profile = () => call(`${base}/employees/emp-10001/skill_profile`, { token })
      // 404 before the run, derived after it: a job without its profile would be the run half done.
      const jobProfile = () => call(`${base}/job_architecture/jobs/${FIRST_JOB}/skill_profile`, { token })
      const page = () =>
        call(`${base}/job_architecture/export/jobs/matching_employees`, {
          method: 'POST',
          token,
          body: { filters: [], weights: [], limit: 5 },
        })
      // A consumer of the tenant's events, subscribed through the server before the run.
      const received: { type: string; at: number }[] = []
      const consumer = createServer((request, response) => {
        let body = ''
        request.on('data', (chunk) => {
          body += chunk
        })
        request.on('end', () => {
          received.push({ type: (JSON.parse(body) as { type: string }).type, at: Date.now() })
          response.writeHead(204).end()
        })
      })
      await new Promise<void>((resolve) => consumer.listen(0, '127.0.0.1', resolve))
      const hook = `http://127.0.0.1:${(consumer.address() as AddressInfo).port}/events`
      expect((await text(['webhook', 'add', hook, '--data-dir', beside])).exitCode).toBe(0)
      const outboxBefore = outboxSize(await text(['events', 'export', '--data-dir', beside]))
      const before = [(await profile()).text, (await page()).text, (await jobProfile()).status]
      const seen = { profile: new Set<string>(), page: new Set<string>(), job: new Set<string>() }
      let polling = true
      const poller = (async () => {
        while (polling) {
          const [one, two, three] = await Promise.all([profile(), page(), jobProfile()])
          expect([one?.status, two?.status]).toEqual([200, 200])
          seen.profile.add(one?.text as string)
          seen.page.add(two?.text as string)
          seen.job.add(three?.status === 404 ? '404' : (three?.text as string))
        }
      })()
      const running = runUntilStage(beside, join(beside, 'out'), 'org_export')
      await running.reached
      // The run has committed its profiles and their events, seconds ago: none is sent before it ends.
      const sentDuringRun = received.length
      const run = await running.process
      polling = false
      await poller
      expect(run.exitCode, String(run.stderr)).toBe(0)
      expect(sentDuringRun).toBe(1) // the health check
      const after = [(await profile()).text, (await page()).text, (await jobProfile()).text]
      expect(before[1]).not.toContain(FIRST_JOB)
      expect(after[1]).toContain(FIRST_JOB)
      expect(after[0]).not.toEqual(before[0])
      expect(before[2]).toBe(404)
      for (const answer of seen.profile) expect([before[0], after[0]]).toContain(answer)
      for (const answer of seen.page) expect([before[1], after[1]]).toContain(answer)
      for (const answer of seen.job) expect(['404', after[2]]).toContain(answer)
      expect(runOutputs(join(beside, 'out'))).toEqual(runOutputs(join(alone, 'out')))
      // The server's webhook delivery sends the events the run appended as it sends any.
      const appended = outboxSize(await text(['events', 'export', '--data-dir', beside])) - outboxBefore
      expect(appended).toBeGreaterThan(0)
      const delivered = () => received.filter((event) => event.type !== 'ai.vendor.health_check').length
      await eventually(async () => (delivered() >= appended ? true : undefined), 30_000)
      expect(delivered()).toBe(appended)
      consumer.close()
    })
  })

  it('ingests, derives and activates a language in the server', async () => {
    const dataDir = dataDirCopy()
    await served(dataDir, async () => {
      const ingest = await text([
        'ingest',
        join(inbox, 'jobs.csv'),
        join(inbox, 'employees.csv'),
        join(inbox, 'skill_events.ndjson'),
        '--rejects-dir',
        join(dataDir, 'rejects'),
        '--data-dir',
        dataDir,
        '--json',
      ])
      expect(ingest.exitCode, ingest.stdout).toBe(0)
      expect(JSON.parse(ingest.stdout)).toMatchObject({ rows_read: 46 + 311 + 3282, rows_rejected: 0 })
      expect((await text(['derive', '--data-dir', dataDir])).exitCode).toBe(0)
      const profile = JSON.parse(
        (await text(['profile', 'employee', 'emp-10001', '--json', '--data-dir', dataDir])).stdout,
      )
      expect(profile.skills.length).toBeGreaterThan(0)
      const update = await text([
        'tenant',
        'update',
        'demo',
        '--language',
        'es',
        '--vendor',
        'vendor_a',
        '--data-dir',
        dataDir,
      ])
      expect(update.exitCode, update.stderr).toBe(0)
      expect(update.stdout).toContain('es')
    })
  })
})

/** Runs the nightly job through the built CLI, resolving once its progress shows `stage`. */
function runUntilStage(dataDir: string, out: string, stage: string) {
  const process = runCli(['run', '--inbox', inbox, '--out', out, '--data-dir', dataDir], {
    env: { NO_COLOR: '1' },
  })
  const reached = new Promise<void>((resolve) => {
    let seen = ''
    process.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes(`progress stage ${stage}`)) resolve()
    })
  })
  return { process, reached }
}

/** The tenant's counts that a run must neither lose nor double. */
async function countsOf(dataDir: string) {
  const tenant = await openTenant(dataDir, 'demo')
  try {
    return await tenant.database.one<Record<string, number>>(
      `SELECT (SELECT count(*) FROM skill_events)::INTEGER AS events,
              (SELECT count(*) FROM skill_profiles WHERE version > 0)::INTEGER AS profiles,
              (SELECT count(*) FROM outbox)::INTEGER AS outbox`,
    )
  } finally {
    tenant.database.close()
  }
}

async function lastRunStatus(dataDir: string): Promise<string> {
  const tenant = await openTenant(dataDir, 'demo')
  try {
    return (
      await tenant.database.one<{ status: string }>(
        "SELECT status FROM runs WHERE kind = 'nightly' ORDER BY started_at LIMIT 1",
      )
    )?.status as string
  } finally {
    tenant.database.close()
  }
}

describe('faults of a handed-over run', () => {
  let reference: Record<string, number> | undefined
  beforeAll(async () => {
    const dataDir = dataDirCopy()
    expect(
      (await text(['run', '--inbox', inbox, '--out', join(dataDir, 'out'), '--data-dir', dataDir])).exitCode,
    ).toBe(0)
    reference = await countsOf(dataDir)
  }, 120_000)

  it('says so when the server is killed, and a rerun finishes the work with nothing lost or doubled', async () => {
    const dataDir = dataDirCopy()
    const server = await startServe(dataDir)
    const run = runUntilStage(dataDir, join(dataDir, 'out'), 'derive')
    await run.reached
    server.process.kill('SIGKILL')
    await server.process
    const killed = await run.process
    expect(killed.exitCode).toBe(1)
    expect(String(killed.stderr)).toMatch(
      /the server \(PID \d+, http:\/\/127\.0\.0\.1:\d+\) stopped before it finished run/,
    )
    const rerun = await text(['run', '--inbox', inbox, '--out', join(dataDir, 'out'), '--data-dir', dataDir])
    expect(rerun.exitCode, rerun.stderr).toBe(0)
    expect(await lastRunStatus(dataDir)).toBe('interrupted')
    expect(await countsOf(dataDir)).toEqual(reference)
  })

  it('abandons the run cleanly when the command is killed, and keeps serving', async () => {
    const dataDir = dataDirCopy()
    await served(dataDir, async (server) => {
      const token = await tokenFor(dataDir, 'demo', ['read'])
      const run = runUntilStage(dataDir, join(dataDir, 'out'), 'derive')
      await run.reached
      run.process.kill('SIGKILL')
      await run.process
      expect((await call(`${server.url}/demo/eu/employees/emp-10001/skill_profile`, { token })).status).toBe(
        200,
      )
      const rerun = await text([
        'run',
        '--inbox',
        inbox,
        '--out',
        join(dataDir, 'out'),
        '--data-dir',
        dataDir,
      ])
      expect(rerun.exitCode, rerun.stderr).toBe(0)
      const listed = JSON.parse((await text(['tenant', 'list', '--json', '--data-dir', dataDir])).stdout)
      expect(listed[0].last_run.status).toBe('finished')
    })
    expect(await lastRunStatus(dataDir)).toBe('interrupted')
    expect(await countsOf(dataDir)).toEqual(reference)
  })

  it('interrupts the run on Ctrl-C as a run alone does', async () => {
    const dataDir = dataDirCopy()
    await served(dataDir, async () => {
      const run = runUntilStage(dataDir, join(dataDir, 'out'), 'derive')
      await run.reached
      run.process.kill('SIGINT')
      const interrupted = await run.process
      expect(interrupted.exitCode).toBe(130)
      expect(String(interrupted.stderr)).toMatch(
        /run run-\S+ interrupted by SIGINT; the next run finishes its work/,
      )
      const listed = JSON.parse((await text(['tenant', 'list', '--json', '--data-dir', dataDir])).stdout)
      expect(listed[0].last_run.status).toBe('interrupted')
    })
  })

  it('refuses a second server on the data directory, naming the first', async () => {
    const dataDir = dataDirCopy()
    await served(dataDir, async (server) => {
      const second = await text(['serve', '--port', '0', '--data-dir', dataDir])
      expect(second.exitCode).toBe(1)
      expect(second.stderr).toContain(`PID ${server.process.pid}, ${server.url}`)
    })
  })
})

describe('the local channel', () => {
  it('answers only requests with the secret, to its owner only, on no network port', async () => {
    const dataDir = dataDirCopy()
    await served(dataDir, async () => {
      const record = readServerRecord(dataDir)
      if (!record) throw new Error('no serve.json')
      expect(statSync(join(dataDir, 'serve.json')).mode & 0o777).toBe(0o600)
      expect(statSync(join(record.socket, '..')).mode & 0o777).toBe(0o700)
      expect(statSync(record.socket).isSocket()).toBe(true)
      const ask = (secret: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(record.socket)
          let answer = ''
          socket.on('data', (chunk) => {
            answer += chunk.toString()
          })
          socket.on('end', () => resolve(answer))
          socket.on('error', reject)
          socket.write(
            `${JSON.stringify({ secret, operation: 'profile.read', tenant: 'demo', params: { owner: 'employee', id: 'emp-10001', external_vendor: 'vendor_default', vocab_language: 'en_uk' } })}\n`,
          )
        })
      expect(JSON.parse(await ask('not-the-secret'))).toMatchObject({ error: { status: 401 } })
      expect(JSON.parse(await ask(record.secret))).toMatchObject({ result: { external_id: 'emp-10001' } })
      // Another user of the machine cannot even connect (the tests run as root in CI).
      if (process.getuid?.() === 0) {
        const script = `require('net').connect(${JSON.stringify(record.socket)}).on('error', (e) => { console.log(e.code); process.exit(0) }).on('connect', () => { console.log('connected'); process.exit(0) })`
        const other = spawnSync(
          'setpriv',
          ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script],
          {
            encoding: 'utf8',
          },
        )
        expect(other.stdout.trim(), other.stderr).toBe('EACCES')
      }
    })
    expect(readServerRecord(dataDir)).toBeUndefined()
  })
})
