import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { execa } from 'execa'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import type { RunManifest } from '../../src/pipeline/nightly-run.js'
import { projectRoot } from '../../src/util/project-paths.js'
import type { BenchResult } from './bench-result.js'
import { measure, scaled, scratchDir } from './measure.js'

/**
 * `npm run bench -- nightly`: the nightly job (`skillhouse run`, a process each, as cron starts
 * it) on a generated tenant of 100,000 employees (2,000,000 skill events, 10,000 jobs, 20,000
 * vacancies; BENCH_SCALE scales them):
 *
 * - full: the first run into an empty tenant and output folder (the reference);
 * - idle: the same inbox again, nothing new (goal: at most 2% of the full run);
 * - fresh (after delta): nothing new, into a new, empty output folder (teams keep a folder per night): the
 *   answers are placed from those kept beside the database (goal: at most 10% of the full run);
 * - delta: 1% new skill events (the events of one employee in a hundred again, with new ids and a
 *   later date: a night's feed comes from the people who did something that day) added to the
 *   inbox (goal: at most 10% of the full run).
 *
 * Each run's stage timings come from its manifest. The idle run must write no answer file, and
 * every answer file is checksummed in every manifest. The generated inbox is kept under the
 * system's temp folder (skillhouse-bench-cache) and reused by later runs of the benchmark.
 */
export async function benchNightly(): Promise<BenchResult> {
  const employees = scaled(100_000)
  const events = employees * 20
  const inbox = await cachedInbox(employees, events)
  const scratch = scratchDir('nightly')
  try {
    const dataDir = join(scratch.dir, 'data')
    const out = join(scratch.dir, 'out')
    // The run reads an inbox of its own: links to the cached files, and later the night's events.
    const runInbox = join(scratch.dir, 'inbox')
    mkdirSync(runInbox)
    for (const name of readdirSync(inbox).filter((file) => !file.startsWith('.')))
      symlinkSync(join(inbox, name), join(runInbox, name))
    const cli = (args: string[]) =>
      execa('node', [join(projectRoot(), 'bin', 'run.js'), ...args, '--data-dir', dataDir], {
        env: { NO_COLOR: '1' },
        stderr: 'inherit',
      })
    await cli(['tenant', 'create', 'bench', '--region', 'eu'])
    const run = async (label: string, folder = out) => {
      console.log(`  ${label} run`)
      const measured = await measure(() =>
        cli(['run', '--inbox', runInbox, '--out', folder, '--as-of', '2026-11-01', '--json']),
      )
      const manifest = JSON.parse(String(measured.result.stdout)) as RunManifest
      console.log(`  ${label}: ${measured.seconds.toFixed(1)} s ${JSON.stringify(manifest.timings)}`)
      return { seconds: measured.seconds, manifest }
    }

    const full = await run('full')
    const idle = await run('idle')
    const delta = join(runInbox, 'skill_events.night-2.ndjson')
    const added = await nightEvents(join(inbox, 'skill_events.ndjson'), delta)
    const night = await run('delta')
    // The next night with nothing new, into a folder of its own (a dated folder per night).
    const fresh = await run('fresh', join(scratch.dir, 'out-next-night'))

    const figures: Record<string, number | string> = {
      employees,
      events,
      delta_events: added.events,
      delta_employees: added.employees,
      full_seconds: round(full.seconds),
      idle_seconds: round(idle.seconds),
      delta_seconds: round(night.seconds),
      fresh_seconds: round(fresh.seconds),
      full_stages: JSON.stringify(full.manifest.timings),
      idle_stages: JSON.stringify(idle.manifest.timings),
      delta_stages: JSON.stringify(night.manifest.timings),
      fresh_stages: JSON.stringify(fresh.manifest.timings),
      idle_answers_computed: idle.manifest.vacancy_matches.computed,
      idle_answers_written: idle.manifest.vacancy_matches.written,
      delta_answers_computed: night.manifest.vacancy_matches.computed,
      delta_answers_written: night.manifest.vacancy_matches.written,
      fresh_answers_computed: fresh.manifest.vacancy_matches.computed,
      fresh_answers_written: fresh.manifest.vacancy_matches.written,
      full_match_vacancies_ms_per_employee: round(
        ((full.manifest.timings.match_vacancies ?? 0) * 1000) / employees,
      ),
    }
    for (const [label, manifest] of [
      ['full', full.manifest],
      ['idle', idle.manifest],
      ['delta', night.manifest],
      ['fresh', fresh.manifest],
    ] as const) {
      const listed = Object.keys(manifest.vacancy_matches.files).length
      if (listed !== manifest.vacancy_matches.employees)
        throw new Error(
          `${label}: ${listed} answer files checksummed of ${manifest.vacancy_matches.employees}`,
        )
    }
    if (idle.manifest.vacancy_matches.written !== 0) throw new Error('the idle run rewrote answer files')
    if (fresh.manifest.vacancy_matches.computed !== 0)
      throw new Error('the run into a new folder computed answers again')
    return {
      name: 'nightly',
      figures,
      ratios: {
        idle_vs_full: round(idle.seconds / full.seconds),
        delta_vs_full: round(night.seconds / full.seconds),
        fresh_vs_full: round(fresh.seconds / full.seconds),
      },
    }
  } finally {
    scratch.cleanup()
  }
}

/** The generated inbox for `employees`, made once and kept for later runs of the benchmark. */
async function cachedInbox(employees: number, events: number): Promise<string> {
  const dir = join(tmpdir(), 'skillhouse-bench-cache', `nightly-${employees}-${events}-seed3`)
  const done = join(dir, '.complete')
  if (existsSync(done)) return dir
  rmSync(dir, { recursive: true, force: true })
  console.log(`  generating ${employees} employees, ${events} events into ${dir}`)
  await generateTenant({
    out: dir,
    seed: 3,
    employees,
    events,
    jobs: Math.round(employees / 10),
    vacancies: Math.round(employees / 5),
  })
  writeFileSync(done, new Date().toISOString())
  return dir
}

/**
 * The night's events: every event of each hundredth employee again, with a new id and a later
 * date (1% of the events). Streamed: the events file is larger than a string may be.
 */
async function nightEvents(from: string, to: string): Promise<{ events: number; employees: number }> {
  const out = createWriteStream(to)
  const chosen = new Set<string>()
  let count = 0
  for await (const line of createInterface({ input: createReadStream(from) })) {
    if (!line) continue
    const event = JSON.parse(line) as { employee_id: string; external_id: string; timestamp: string }
    const number = Number(/(\d+)$/.exec(event.employee_id)?.[1] ?? 1)
    if (number % 100 !== 0) continue
    chosen.add(event.employee_id)
    event.external_id = `${event.external_id}-n2`
    event.timestamp = '2026-10-31'
    if (!out.write(`${JSON.stringify(event)}\n`))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()))
    count++
  }
  await new Promise<void>((resolve) => out.end(() => resolve()))
  return { events: count, employees: chosen.size }
}

const round = (value: number) => Math.round(value * 1000) / 1000
