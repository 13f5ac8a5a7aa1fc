import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
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
