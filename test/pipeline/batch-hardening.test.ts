// The nightly batch as a data team runs it at 2 a.m.: under `script` or a CI pty, with broken
// exports in the inbox, with --json in scripts, stopped with Ctrl-C, beside other commands.
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import type { IngestSummary } from '../../src/ingest/ingest-paths.js'
import type { RunManifest } from '../../src/pipeline/nightly-run.js'
import { openTenant, type TenantSummary } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-batch-')
afterAll(() => temp.cleanup())

let counter = 0
async function newTenant(name = 'b'): Promise<string> {
  const dataDir = join(temp.dir, `data-${++counter}`)
  const created = await runCli(['tenant', 'create', name, '--region', 'eu', '--data-dir', dataDir])
  expect(created.exitCode, String(created.stderr)).toBe(0)
  return dataDir
}

let generated: string | undefined
/** A generated inbox (200 employees), made once and copied. */
async function generatedInbox(): Promise<string> {
  if (!generated) {
    generated = join(temp.dir, 'generated')
    const answer = await runCli(['generate', '--employees', '200', '--seed', '21', '--out', generated])
    expect(answer.exitCode, String(answer.stderr)).toBe(0)
  }
  const inbox = join(temp.dir, `inbox-${++counter}`)
  mkdirSync(inbox)
  for (const name of readdirSync(generated)) copyFileSync(join(generated, name), join(inbox, name))
  return inbox
}

/** `run --inbox INBOX --out OUT --data-dir DATA …` through the built CLI. */
const nightly = (inbox: string, out: string, dataDir: string, ...more: string[]) =>
  runCli(['run', '--inbox', inbox, '--out', out, '--data-dir', dataDir, ...more])

const readManifest = (out: string) =>
  JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest

describe('progress on a terminal that cannot draw it', () => {
  // Under `script` (a pty of 0 columns) ingest wrote 100 MB of cursor codes; a run stayed in
  // ingest for 20 minutes writing 3.4 GB.
  it('writes plain progress lines with the stage and rows/s, and no cursor codes, on a pty of width 0', async () => {
    const inbox = await generatedInbox()
    const dataDir = await newTenant()
    const command = [
      'node',
      join(projectRoot(), 'bin', 'run.js'),
      'ingest',
      inbox,
      '--data-dir',
      dataDir,
      '--rejects-dir',
      join(temp.dir, 'rejects-pty'),
    ].join(' ')
    // `script` gives the command a pty; with no terminal of its own it reports 0 columns.
    const answer = await execa('script', ['-qec', command, '/dev/null'], {
      reject: false,
      stdin: 'ignore',
      env: { NO_COLOR: '1', TERM: 'xterm' },
      maxBuffer: 64 * 1024 * 1024,
    })
    expect(answer.exitCode, String(answer.stdout)).toBe(0)
    const output = String(answer.stdout)
    expect(output.length).toBeLessThan(20_000)
    expect(output).not.toContain('\u001b[')
    expect(output).toMatch(/progress skill_events .*: \d+ rows \(\d+ rows\/s\)/)
  })
})

describe('broken files in the inbox', () => {
  // A truncated export ended the run `failed`, with no manifest, the inputs after it unread.
  it('goes on past a truncated CSV and a file it cannot read, and writes its manifest', async () => {
    const inbox = await generatedInbox()
    writeFileSync(join(inbox, 'companies.json'), '[{"external_id": "c-1", ')
    const csv = readFileSync(join(inbox, 'organisational_units.csv'), 'utf8').trimEnd()
    writeFileSync(join(inbox, 'organisational_units.csv'), `${csv}\nou-999,"Broken unit\n`)
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-broken')
    const run = await nightly(inbox, out, dataDir)
    expect(run.exitCode, String(run.stderr)).toBe(3)
    const manifest = readManifest(out)
    expect(manifest.inputs.map((input) => input.entity)).toContain('skill_events')
    const units = manifest.inputs.find((input) => input.entity === 'organisational_units')
    expect(units?.rejected).toBe(1)
    const rejects = readFileSync(join(out, units?.rejects_file as string), 'utf8')
    expect(rejects).toMatch(/unterminated quote/)
    expect(manifest.rejected_inputs).toEqual([
      { file: expect.stringMatching(/companies\.json$/), reason: expect.stringMatching(/is not valid JSON/) },
    ])
    expect(String(run.stdout)).toMatch(/rejected .*companies\.json/)
  })

  // A 0-byte CSV was silently 0 rows; employees.xlsx was a note on stderr after the summary.
  it('lists an empty CSV and a spreadsheet as skipped with a reason, in the summary and the manifest', async () => {
    const inbox = await generatedInbox()
    writeFileSync(join(inbox, 'courses.csv'), '')
    writeFileSync(join(inbox, 'employees.xlsx'), 'PK\u0003\u0004')
    const dataDir = await newTenant()
    const ingest = await runCli([
      'ingest',
      inbox,
      '--data-dir',
      dataDir,
      '--rejects-dir',
      join(temp.dir, 'rejects-skipped'),
      '--json',
    ])
    expect(ingest.exitCode, String(ingest.stderr)).toBe(0)
    const summary = JSON.parse(String(ingest.stdout)) as IngestSummary
    const reasons = Object.fromEntries(
      summary.skipped.map((entry) => [entry.path.split('/').pop(), entry.reason]),
    )
    expect(reasons['courses.csv']).toMatch(/empty file \(0 bytes\)/)
    expect(reasons['employees.xlsx']).toMatch(/spreadsheet.*save each sheet as CSV/)
    expect(summary.files.map((file) => file.file)).not.toContain(join(inbox, 'courses.csv'))

    const plain = await runCli([
      'ingest',
      inbox,
      '--data-dir',
      dataDir,
      '--rejects-dir',
      join(temp.dir, 'r2'),
    ])
    expect(String(plain.stdout)).toMatch(/skipped .*courses\.csv: empty file/)
    expect(String(plain.stdout)).toMatch(/skipped .*employees\.xlsx: a spreadsheet/)

    const out = join(temp.dir, 'out-skipped')
    const run = await nightly(inbox, out, dataDir)
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const skipped = readManifest(out).skipped_inputs.map((entry) => `${entry.file}: ${entry.reason}`)
    expect(skipped.join('\n')).toMatch(/courses\.csv: empty file/)
    expect(skipped.join('\n')).toMatch(/employees\.xlsx: a spreadsheet/)
    expect(String(run.stdout)).toMatch(/skipped .*employees\.xlsx/)
  })
})

describe('usage errors with --json', () => {
  // A usage error printed ~250 KB of oclif internals to stdout and exited 1.
  it('prints {"error": …} with the message and exits 2 for a missing argument, an unknown flag, a bad option and a missing --file', async () => {
    const dataDir = join(temp.dir, 'usage')
    for (const args of [
      ['tenant', 'create', '--region', 'eu'],
      ['ingest', 'x', '--bogus'],
      ['tenant', 'create', 'x', '--region', 'mars'],
      ['extract', '--file', join(temp.dir, 'no-such-file.txt')],
    ]) {
      for (const json of [true, false]) {
        const answer = await runCli([...args, '--data-dir', dataDir, ...(json ? ['--json'] : [])])
        expect(answer.exitCode, `${args.join(' ')}: ${answer.stderr}`).toBe(2)
        if (!json) continue
        expect(String(answer.stdout).length).toBeLessThan(2000)
        const body = JSON.parse(String(answer.stdout)) as {
          error: { status: number; body: { title: string; description: string }[] }
        }
        expect(Object.keys(body)).toEqual(['error'])
        expect(body.error.status).toBe(400)
        expect(body.error.body[0]?.description).toMatch(/--help$/)
        expect(String(answer.stdout)).not.toMatch(/oclif|"parse"/)
      }
    }
  })
})

/** Resolves once the child's stderr shows `text`. */
function stderrShows(child: { stderr: NodeJS.ReadableStream | null }, text: string): Promise<void> {
  return new Promise<void>((resolve) => {
    let seen = ''
    child.stderr?.on('data', (chunk: Buffer | string) => {
      seen += chunk.toString()
      if (seen.includes(text)) resolve()
    })
  })
}

async function runsOf(dataDir: string) {
  const tenant = await openTenant(dataDir, 'b')
  try {
    return await tenant.database.all<{ run_id: string; status: string; finished_at: Date | null }>(
      'SELECT run_id, status, finished_at FROM runs ORDER BY started_at',
    )
  } finally {
    tenant.database.close()
  }
}

describe('a run stopped or holding the tenant', () => {
  // A run stopped with Ctrl-C stayed `running` until the next run marked it `interrupted`.
  it('marks a run stopped by SIGINT or SIGTERM interrupted at once', async () => {
    const inbox = await generatedInbox()
    const dataDir = await newTenant()
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const out = join(temp.dir, `out-${signal}`)
      const child = nightly(inbox, out, dataDir, '--as-of', '2026-06-30')
      await stderrShows(child, 'stage derive')
      child.kill(signal)
      const ended = await child
      expect(ended.exitCode).toBe(signal === 'SIGINT' ? 130 : 143)
      expect(String(ended.stderr)).toMatch(new RegExp(`interrupted by ${signal}`))
      const last = (await runsOf(dataDir)).at(-1)
      expect(last?.status).toBe('interrupted')
      expect(last?.finished_at).not.toBeNull()
      expect(existsSync(join(dataDir, 'b.duckdb.run.json'))).toBe(false)
    }
    // The next run finishes the work.
    const rerun = await nightly(inbox, join(temp.dir, 'out-after'), dataDir)
    expect(rerun.exitCode, String(rerun.stderr)).toBe(0)
  })

  // While a run held the tenant, every command got a bare lock error, `tenant list` included.
  it('lets tenant list answer and names the run, its stage and since when to other commands', async () => {
    const inbox = await generatedInbox()
    const dataDir = await newTenant()
    const child = nightly(inbox, join(temp.dir, 'out-held'), dataDir)
    await stderrShows(child, 'stage derive')
    // Stopped where it is: it holds the database and its status file says where it stands.
    child.kill('SIGSTOP')
    try {
      const status = JSON.parse(readFileSync(join(dataDir, 'b.duckdb.run.json'), 'utf8')) as {
        run_id: string
        stage: string
        stage_started_at: string
      }
      const list = await runCli(['tenant', 'list', '--data-dir', dataDir, '--json'])
      expect(list.exitCode, String(list.stderr)).toBe(0)
      const [tenant] = JSON.parse(String(list.stdout)) as TenantSummary[]
      expect(tenant?.tenant).toBe('b')
      expect(tenant?.running).toMatchObject({
        run_id: status.run_id,
        stage: status.stage,
        since: status.stage_started_at,
      })
      const plain = await runCli(['tenant', 'list', '--data-dir', dataDir])
      expect(String(plain.stdout)).toMatch(
        new RegExp(
          `running nightly run ${status.run_id} \\(stage ${status.stage} since .*held by PID ${child.pid}`,
        ),
      )

      const profile = await runCli(['profile', 'employee', 'emp-10001', '--data-dir', dataDir])
      expect(profile.exitCode).toBe(1)
      expect(String(profile.stderr)).toContain(
        `nightly run ${status.run_id} (PID ${child.pid}), in stage ${status.stage} since ${status.stage_started_at}`,
      )
    } finally {
      child.kill('SIGCONT')
    }
    expect((await child).exitCode).toBe(0)
    expect(existsSync(join(dataDir, 'b.duckdb.run.json'))).toBe(false)
  })
})

describe('manifests', () => {
  // One manifest.json was overwritten by every run; inputs had `checksum: "sha256:…"`, outputs
  // `sha256`; input paths were relative to the working directory of the run.
  it('keeps a manifest per run, manifest.json the latest, one checksum format, inputs relative to the inbox', async () => {
    const inbox = await generatedInbox()
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-manifests')
    const ids: string[] = []
    for (let run = 0; run < 2; run++) {
      const answer = await runCli(['run', '--inbox', inbox, '--out', out, '--data-dir', dataDir, '--json'], {
        cwd: temp.dir,
      })
      expect(answer.exitCode, String(answer.stderr)).toBe(0)
      ids.push((JSON.parse(String(answer.stdout)) as RunManifest).run_id)
    }
    const manifests = ids.map(
      (id) => JSON.parse(readFileSync(join(out, `manifest-${id}.json`), 'utf8')) as RunManifest,
    )
    expect(manifests.map((manifest) => manifest.run_id)).toEqual(ids)
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(
      readFileSync(join(out, `manifest-${ids[1]}.json`), 'utf8'),
    )
    expect(readManifest(out).manifest_file).toBe(`manifest-${ids[1]}.json`)
    const [first] = manifests
    expect(first?.inbox).toBe(inbox)
    for (const input of first?.inputs ?? []) {
      expect(input.file).not.toMatch(/^\/|\.\./)
      expect(input.sha256).toBe(
        createHash('sha256')
          .update(readFileSync(join(inbox, input.file)))
          .digest('hex'),
      )
    }
    for (const output of first?.outputs ?? []) expect(output.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(first)).not.toContain('sha256:')
  })
})

describe('match tables', () => {
  // --format parquet|ndjson|arrow tables had job_id, rank, employee_id, score only, dropping
  // overqualified and critical_skills_match_ratio that the JSON carries.
  it('carry every field of the JSON matches, with the same values', async () => {
    const inbox = await generatedInbox()
    const matches: Record<string, Record<string, unknown>[]> = {}
    for (const format of ['json', 'ndjson', 'parquet', 'arrow']) {
      const dataDir = join(temp.dir, `data-tables-${format}`)
      const created = await runCli([
        'tenant',
        'create',
        'b',
        '--region',
        'eu',
        '--proficiency-matching',
        '--use-criticalities',
        '--data-dir',
        dataDir,
      ])
      expect(created.exitCode, String(created.stderr)).toBe(0)
      const out = join(temp.dir, `out-tables-${format}`)
      const run = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30', '--format', format)
      expect(run.exitCode, String(run.stderr)).toBe(0)
      matches[format] = (await tableRows(out, format)).sort(
        (a, b) => String(a.job_id).localeCompare(String(b.job_id)) || Number(a.rank) - Number(b.rank),
      )
    }
    const json = matches.json ?? []
    expect(json.length).toBeGreaterThan(0)
    expect(json.every((match) => typeof match.overqualified === 'boolean')).toBe(true)
    expect(json.every((match) => typeof match.critical_skills_match_ratio === 'number')).toBe(true)
    for (const format of ['ndjson', 'parquet', 'arrow']) {
      const rows = matches[format] ?? []
      // Every field of the JSON, with its value; the table's other columns (absent fields) are null.
      expect(rows.map((row) => pick(row, Object.keys(json[0] ?? {})))).toEqual(json)
    }
  }, 600_000)
})

const pick = (row: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.map((key) => [key, row[key] ?? null]))

/** The job matches of a run's output as rows of job_id, rank and each field of the match. */
async function tableRows(out: string, format: string): Promise<Record<string, unknown>[]> {
  if (format === 'json') {
    const body = JSON.parse(readFileSync(join(out, 'matching_employees.json'), 'utf8')) as {
      records: { job_id: string; matches: Record<string, unknown>[] }[]
    }
    return body.records.flatMap((record) =>
      record.matches.map((match, index) => ({ job_id: record.job_id, rank: index + 1, ...match })),
    )
  }
  const path = join(out, `matching_employees.${format}`)
  if (format === 'ndjson')
    return readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
  if (format === 'arrow') {
    const { tableFromIPC } = await import('apache-arrow')
    return tableFromIPC(readFileSync(path))
      .toArray()
      .map((row) => ({ ...(row.toJSON() as Record<string, unknown>) }))
  }
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const instance = await DuckDBInstance.create(':memory:')
  const connection = await instance.connect()
  try {
    const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)
    return reader.getRowObjectsJS() as Record<string, unknown>[]
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

describe('a nightly run that does only what changed', () => {
  // A run with no new input re-matched every employee and read every answer file back; the
  // per-employee files had no checksum in the manifest.
  it('leaves the answers of unchanged employees unwritten, re-matches only changed employees, and checksums every answer', async () => {
    const inbox = await generatedInbox()
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-incremental')
    const nightlyRun = async () => {
      const answer = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30', '--json')
      expect(answer.exitCode, String(answer.stderr)).toBe(0)
      return JSON.parse(String(answer.stdout)) as RunManifest
    }
    const answers = () =>
      Object.fromEntries(
        readdirSync(join(out, 'matching_vacancies'))
          .filter((name) => !name.startsWith('.'))
          .map((name) => [name, readFileSync(join(out, 'matching_vacancies', name))]),
      )
    const sha = (content: Buffer) => createHash('sha256').update(content).digest('hex')
    const first = await nightlyRun()
    const files = answers()
    expect(Object.keys(files).length).toBeGreaterThan(100)
    expect(first.vacancy_matches.files).toEqual(
      Object.fromEntries(Object.entries(files).map(([name, content]) => [name, sha(content)])),
    )
    const times = Object.fromEntries(
      Object.keys(files).map((name) => [name, statSync(join(out, 'matching_vacancies', name)).mtimeMs]),
    )

    const idle = await nightlyRun()
    expect(idle.vacancy_matches).toMatchObject({
      computed: 0,
      written: 0,
      files: first.vacancy_matches.files,
    })
    expect(idle.inputs.every((input) => input.rows > 0)).toBe(true)
    for (const [name, time] of Object.entries(times))
      expect(statSync(join(out, 'matching_vacancies', name)).mtimeMs, name).toBe(time)

    // One employee's record changes: that employee alone is matched again.
    const [first_line, ...rest] = readFileSync(join(inbox, 'employees.ndjson'), 'utf8').split('\n')
    const employee = {
      ...(JSON.parse(first_line as string) as Record<string, unknown>),
      last_name: 'Night-Two',
    }
    writeFileSync(join(inbox, 'employees.ndjson'), [JSON.stringify(employee), ...rest].join('\n'))
    const night = await nightlyRun()
    expect(night.vacancy_matches.computed).toBe(1)
    expect(night.vacancy_matches.written).toBeLessThanOrEqual(1)
    for (const [name, content] of Object.entries(answers()))
      expect(night.vacancy_matches.files[name], name).toBe(sha(content))
  }, 600_000)
})
