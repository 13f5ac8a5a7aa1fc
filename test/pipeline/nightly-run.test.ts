import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { type RunManifest, sha256 } from '../../src/pipeline/nightly-run.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const eventCount = (out: string) =>
  readdirSync(join(out, 'events')).reduce(
    (sum, file) =>
      sum +
      readFileSync(join(out, 'events', file), 'utf8')
        .trim()
        .split('\n').length,
    0,
  )

describe('the nightly job', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('changes no output and emits no event when run again without new input', async () => {
    const inbox = join(temp.dir, 'inbox-small')
    await generateTenant({ out: inbox, seed: 8, employees: 200, events: 2000 })
    const dataDir = join(temp.dir, 'data-small')
    const out = join(temp.dir, 'out-small')
    await runCli(['tenant', 'create', 'n', '--region', 'eu', '--data-dir', dataDir])
    const first = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
      '--json',
    ])
    expect(first.exitCode, String(first.stderr)).toBe(0)
    const firstManifest = JSON.parse(String(first.stdout))
    expect(firstManifest.events).toBeGreaterThan(200)
    const org = readFileSync(join(out, 'org_structure.json'), 'utf8')
    const second = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
      '--json',
    ])
    const secondManifest = JSON.parse(String(second.stdout))
    expect(secondManifest.events).toBe(0)
    expect(secondManifest.inputs.every((input: { rejected: number }) => input.rejected === 0)).toBe(true)
    expect(readFileSync(join(out, 'org_structure.json'), 'utf8')).toBe(org)
    expect(readdirSync(join(out, 'events'))).toHaveLength(1)
  })

  it('refuses a second run at the same time, and is finished by the next run when killed, with every event written once', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 9, employees: 1500, events: 30_000, vacancies: 100 })
    // A reference run that is not interrupted.
    const reference = join(temp.dir, 'reference')
    await runCli(['tenant', 'create', 'k', '--region', 'eu', '--data-dir', reference])
    const complete = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      join(temp.dir, 'out-reference'),
      '--as-of',
      '2026-06-30',
      '--data-dir',
      reference,
    ])
    expect(complete.exitCode, String(complete.stderr)).toBe(0)

    const dataDir = join(temp.dir, 'data')
    const out = join(temp.dir, 'out')
    await runCli(['tenant', 'create', 'k', '--region', 'eu', '--data-dir', dataDir])
    const child = runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
    ])
    await new Promise<void>((resolve) => {
      let seen = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString()
        if (seen.includes('stage derive')) setTimeout(resolve, 300)
      })
    })
    // A second run on the same tenant meanwhile is refused, clearly.
    const concurrent = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      join(temp.dir, 'out-concurrent'),
      '--data-dir',
      dataDir,
    ])
    expect(concurrent.exitCode).toBe(1)
    expect(String(concurrent.stderr)).toMatch(/in use by another skillhouse process \(PID \d+\)/)
    child.kill('SIGKILL')
    await child
    const rerun = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
    ])
    expect(rerun.exitCode, String(rerun.stderr)).toBe(0)
    expect(eventCount(out)).toBe(eventCount(join(temp.dir, 'out-reference')))
    expect(readFileSync(join(out, 'org_structure.json'), 'utf8')).toBe(
      readFileSync(join(temp.dir, 'out-reference', 'org_structure.json'), 'utf8'),
    )
  })
})

describe('the nightly job keeps its 4.11 answers by the inputs that made them', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  /** The answer files of an output folder, by name, and what the manifest says of them. */
  const answers = (out: string) =>
    Object.fromEntries(
      readdirSync(join(out, 'matching_vacancies'))
        .filter((name) => !name.startsWith('.'))
        .map((name) => [name, readFileSync(join(out, 'matching_vacancies', name), 'utf8')]),
    )

  it('writes the unchanged answers into a new output folder from what the data directory keeps, computing none', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 13, employees: 180, events: 1800, vacancies: 60 })
    const dataDir = join(temp.dir, 'data')
    await runCli(['tenant', 'create', 'kept', '--region', 'eu', '--data-dir', dataDir])
    const run = async (out: string) => {
      const places = { '--inbox': inbox, '--out': out, '--data-dir': dataDir }
      const result = await runCli([
        'run',
        '--as-of',
        '2026-06-30',
        '--json',
        ...Object.entries(places).flat(),
      ])
      expect(result.exitCode, String(result.stderr)).toBe(0)
      return JSON.parse(String(result.stdout)) as RunManifest
    }
    const first = await run(join(temp.dir, 'night-1'))
    expect(first.vacancy_matches.computed).toBe(180)
    const files = answers(join(temp.dir, 'night-1'))
    expect(Object.keys(files)).toHaveLength(first.vacancy_matches.employees)

    // The next night, nothing new, a folder of its own: every answer placed, none computed.
    const second = await run(join(temp.dir, 'night-2'))
    expect(second.vacancy_matches).toMatchObject({
      computed: 0,
      written: first.vacancy_matches.employees,
      employees: first.vacancy_matches.employees,
      files: first.vacancy_matches.files,
    })
    expect(answers(join(temp.dir, 'night-2'))).toEqual(files)
    for (const [name, text] of Object.entries(files))
      expect(second.vacancy_matches.files[name]).toBe(sha256(text))
    // Into a folder that holds them already, nothing is written.
    expect((await run(join(temp.dir, 'night-2'))).vacancy_matches).toMatchObject({ computed: 0, written: 0 })

    // What is kept is a cache: without it, every answer is computed again, to the same bytes.
    const kept = readdirSync(dataDir).filter((name) => name.endsWith('.vacancy-answers'))
    expect(kept).toHaveLength(1)
    rmSync(join(dataDir, kept[0] as string), { recursive: true })
    const third = await run(join(temp.dir, 'night-3'))
    expect(third.vacancy_matches).toMatchObject({ computed: 180, files: first.vacancy_matches.files })
    expect(answers(join(temp.dir, 'night-3'))).toEqual(files)
  })
})

describe('the nightly job outputs', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('writes the same matches as spec JSON, NDJSON, Parquet and Arrow', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api')
    const { tableFromIPC } = await import('apache-arrow')
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 12, employees: 150, events: 1500 })
    const counts: Record<string, number> = {}
    for (const format of ['json', 'ndjson', 'parquet', 'arrow']) {
      const dataDir = join(temp.dir, `data-${format}`)
      const out = join(temp.dir, `out-${format}`)
      await runCli(['tenant', 'create', 'f', '--region', 'eu', '--data-dir', dataDir])
      const run = await runCli([
        'run',
        '--inbox',
        inbox,
        '--out',
        out,
        '--as-of',
        '2026-06-30',
        '--format',
        format,
        '--data-dir',
        dataDir,
      ])
      expect(run.exitCode, String(run.stderr)).toBe(0)
      if (format === 'json') {
        const body = JSON.parse(readFileSync(join(out, 'matching_employees.json'), 'utf8')) as {
          records: { matches: unknown[] }[]
        }
        counts[format] = body.records.reduce((sum, record) => sum + record.matches.length, 0)
      } else if (format === 'ndjson') {
        counts[format] = readFileSync(join(out, 'matching_employees.ndjson'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean).length
      } else if (format === 'parquet') {
        const instance = await DuckDBInstance.create(':memory:')
        const connection = await instance.connect()
        const reader = await connection.runAndReadAll(
          `SELECT count(*)::INTEGER AS n FROM read_parquet('${join(out, 'matching_employees.parquet')}')`,
        )
        counts[format] = Number(reader.getRowObjects()[0]?.n)
        connection.closeSync()
        instance.closeSync()
      } else {
        counts[format] = tableFromIPC(readFileSync(join(out, 'matching_employees.arrow'))).numRows
      }
    }
    expect(counts.json).toBeGreaterThan(0)
    expect(new Set(Object.values(counts)).size).toBe(1)
  })
})
