// What a review of the CLI found wrong (nightly job, ingest, other commands): each test failed
// before its fix and says what the README / docs / spec requires.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, watch, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { IngestSummary } from '../../src/ingest/ingest-paths.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-review-')
afterAll(() => temp.cleanup())

let counter = 0
/** A fresh data directory with one tenant `r`. */
async function newTenant(): Promise<string> {
  const dataDir = join(temp.dir, `data-${++counter}`)
  const created = await runCli(['tenant', 'create', 'r', '--region', 'eu', '--data-dir', dataDir])
  expect(created.exitCode, String(created.stderr)).toBe(0)
  return dataDir
}

/** A small generated inbox (the `generate` command, deterministic). */
async function generatedInbox(employees = 40, seed = 5): Promise<string> {
  const out = join(temp.dir, `inbox-${++counter}`)
  const generated = await runCli([
    'generate',
    '--employees',
    String(employees),
    '--seed',
    String(seed),
    '--out',
    out,
  ])
  expect(generated.exitCode, String(generated.stderr)).toBe(0)
  return out
}

const nightly = (inbox: string, out: string, dataDir: string, ...more: string[]) =>
  runCli(['run', '--inbox', inbox, '--out', out, '--data-dir', dataDir, ...more])

/** `ingest PATH… --rejects-dir DIR --data-dir D --json`. */
const ingestCli = (paths: string[], rejectsDir: string, dataDir: string) =>
  runCli(['ingest', ...paths, '--rejects-dir', rejectsDir, '--data-dir', dataDir, '--json'])

const eventLines = (out: string) =>
  readdirSync(join(out, 'events'))
    .filter((name) => name.endsWith('.ndjson'))
    .flatMap((name) =>
      readFileSync(join(out, 'events', name), 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean),
    )

describe('run (the nightly job)', () => {
  // README `run`: "a run killed at any stage is finished by the next one (its events are written
  // by the run that completes)"; README CloudEvents/brief: every event written once. A run killed
  // after events/<run-id>.ndjson is committed but before its `runs` row is finished leaves
  // outbox_seq_end unrecorded, so the next run writes every one of those events again.
  it('writes every event once when a run is killed right after writing its events file', async () => {
    const inbox = await generatedInbox(40, 6)
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-killed-at-events')
    mkdirSync(join(out, 'events'), { recursive: true })
    const child: ChildProcess = spawn(
      'node',
      [
        join(projectRoot(), 'bin', 'run.js'),
        'run',
        '--inbox',
        inbox,
        '--out',
        out,
        '--as-of',
        '2026-06-30',
        '--data-dir',
        dataDir,
      ],
      { stdio: 'ignore', env: { ...process.env, NO_COLOR: '1' } },
    )
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
    const watcher = watch(join(out, 'events'), (_event, name) => {
      if (name && !name.startsWith('.') && name.endsWith('.ndjson')) {
        child.kill('SIGKILL')
        watcher.close()
      }
    })
    await exited
    watcher.close()
    const rerun = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30')
    expect(rerun.exitCode, String(rerun.stderr)).toBe(0)
    const ids = eventLines(out).map((line) => (JSON.parse(line) as { id: string }).id)
    expect(ids.length).toBeGreaterThan(0)
    expect(ids.length).toBe(new Set(ids).size)
  })

  // `derive --as-of` refuses anything but YYYY-MM-DD (commands/derive.ts:26); `run --as-of` takes
  // any text, finishes with exit 0, stores it as the derivation's last_as_of, and every later `run`
  // and `derive` of the tenant then fails with a DuckDB "Conversion Error". docs/operations.md: a usage error
  // exits 2; STYLE: the message names the field and what would be valid.
  it('refuses an invalid --as-of with exit 2 instead of storing it and breaking every later run', async () => {
    const inbox = await generatedInbox(20, 7)
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-bad-as-of')
    const invalid = await nightly(inbox, out, dataDir, '--as-of', '2026-02-30')
    const next = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30')
    expect(next.exitCode, String(next.stderr)).toBe(0)
    expect(invalid.exitCode).toBe(2)
    expect(String(invalid.stderr)).toMatch(/--as-of.*YYYY-MM-DD/)
  })

  // README `run --format parquet`: the matches "as one table each". The ids are ExternalIds
  // (strings, case-sensitive). The Parquet file is made by DuckDB's read_ndjson type detection
  // (src/pipeline/tabular-output.ts:45), so UUID-shaped ids become a UUID column and come back
  // lower-cased: the ids in the output are not the tenant's ids any more.
  it('writes employee ids into Parquet as the strings they are', async () => {
    const inbox = await generatedInbox(40, 8)
    const ids = new Set<string>()
    for (const file of readdirSync(inbox)) {
      const path = join(inbox, file)
      writeFileSync(
        path,
        readFileSync(path, 'utf8').replace(/"emp-(\d+)"/g, (_all, n: string) => {
          const id = `ABCDEF00-0000-4000-8000-${n.padStart(12, '0')}`
          ids.add(id)
          return `"${id}"`
        }),
      )
    }
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-parquet-ids')
    const run = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30', '--format', 'parquet')
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const { DuckDBInstance } = await import('@duckdb/node-api')
    const instance = await DuckDBInstance.create(':memory:')
    const connection = await instance.connect()
    const reader = await connection.runAndReadAll(
      `SELECT DISTINCT typeof(employee_id) AS type, employee_id::VARCHAR AS id FROM read_parquet('${join(out, 'matching_vacancies.parquet')}')`,
    )
    const rows = reader.getRowObjectsJS() as { type: string; id: string }[]
    connection.closeSync()
    instance.closeSync()
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.filter((row) => !ids.has(row.id))).toEqual([])
    expect(new Set(rows.map((row) => row.type))).toEqual(new Set(['VARCHAR']))
    // The manifest names no folder of per-employee answers that a table run does not write.
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      vacancy_matches: { folder: string | null }
      outputs: { file: string }[]
    }
    expect(manifest.vacancy_matches.folder).toBeNull()
    expect(existsSync(join(out, 'matching_vacancies'))).toBe(false)
    expect(manifest.outputs.map((output) => output.file)).toContain('matching_vacancies.parquet')
  })

  // STYLE: a user error is a message naming what is wrong and what would be valid, never a raw
  // Node error. An --out that is a file (run, generate) was a raw EEXIST, exit 1.
  it('refuses an --out that is a file with a message naming it, exit 2', async () => {
    const file = join(temp.dir, 'not-a-folder')
    writeFileSync(file, 'x')
    const inbox = join(temp.dir, 'inbox-out-file')
    mkdirSync(inbox)
    const dataDir = await newTenant()
    for (const answer of [
      await nightly(inbox, file, dataDir),
      await runCli(['generate', '--employees', '10', '--out', file]),
    ]) {
      expect(answer.exitCode, String(answer.stderr)).toBe(2)
      expect(String(answer.stderr)).toMatch(/--out .*not-a-folder: is a file/)
      expect(String(answer.stderr)).not.toMatch(/EEXIST|at .*\.js/)
    }
  })

  // README: `--format parquet` writes the matches "as one table each". With no match the Parquet
  // file has a single column `json` instead of job_id, rank, employee_id, score: a reader of the
  // nightly output breaks on the night with no matches (read_ndjson of an empty file).
  it('writes the columns of an empty match table in Parquet', async () => {
    const inbox = join(temp.dir, 'inbox-empty-parquet')
    mkdirSync(inbox)
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-empty-parquet')
    const run = await nightly(inbox, out, dataDir, '--format', 'parquet')
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const { DuckDBInstance } = await import('@duckdb/node-api')
    const instance = await DuckDBInstance.create(':memory:')
    const connection = await instance.connect()
    const reader = await connection.runAndReadAll(
      `DESCRIBE SELECT * FROM read_parquet('${join(out, 'matching_employees.parquet')}')`,
    )
    const columns = (reader.getRowObjectsJS() as { column_name: string }[]).map((row) => row.column_name)
    connection.closeSync()
    instance.closeSync()
    expect(columns).toEqual([
      'job_id',
      'rank',
      'employee_id',
      'score',
      'overqualified',
      'critical_skills_match_ratio',
      'explanation',
    ])
  })

  // Same for Arrow: with no rows apache-arrow's tableFromArrays infers the id columns as Null
  // instead of Utf8 (src/pipeline/tabular-output.ts:28), so the table's schema changes with the data.
  it('writes the id columns of an empty match table in Arrow as strings', async () => {
    const inbox = join(temp.dir, 'inbox-empty-arrow')
    mkdirSync(inbox)
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-empty-arrow')
    const run = await nightly(inbox, out, dataDir, '--format', 'arrow')
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const { tableFromIPC, Type } = await import('apache-arrow')
    const table = tableFromIPC(readFileSync(join(out, 'matching_vacancies.arrow')))
    const idTypes = table.schema.fields
      .filter((field) => field.name.endsWith('_id'))
      .map((field) => field.type.typeId)
    expect(idTypes).toHaveLength(2)
    for (const type of idTypes) expect([Type.Utf8, Type.Dictionary]).toContain(type)
  })

  // README `run`: "ingest everything in the inbox"; the manifest lists `skipped_inputs` with a
  // reason. A folder inside the inbox (and every file in it) is neither ingested nor listed:
  // planIngest keeps only isFile() entries (src/ingest/ingest-paths.ts:48-53).
  it('names a nested folder of the inbox in skipped_inputs instead of ignoring it silently', async () => {
    const generated = await generatedInbox(20, 9)
    const inbox = join(temp.dir, 'inbox-nested')
    mkdirSync(join(inbox, 'more'), { recursive: true })
    writeFileSync(
      join(inbox, 'organisational_units.csv'),
      readFileSync(join(generated, 'organisational_units.csv')),
    )
    writeFileSync(join(inbox, 'more', 'companies.ndjson'), readFileSync(join(generated, 'companies.ndjson')))
    const dataDir = await newTenant()
    const run = await nightly(inbox, join(temp.dir, 'out-nested'), dataDir, '--json')
    expect(run.exitCode, String(run.stderr)).toBe(0)
    const manifest = JSON.parse(String(run.stdout)) as {
      inputs: { file: string }[]
      skipped_inputs: { file: string }[]
    }
    const mentioned = [...manifest.inputs, ...manifest.skipped_inputs].map((entry) => entry.file)
    expect(mentioned.some((file) => file.includes('more'))).toBe(true)
  })

  // An unreadable entry in the inbox (here a dangling symlink) aborts the whole nightly job with
  // a raw Node error (`Error: ENOENT: no such file or directory, stat …`, exit 1), nothing
  // ingested. README: the run ingests everything in the inbox and lists what it skips with a
  // reason; STYLE: errors are the one error type, naming what is wrong and what would be valid.
  it('skips an unreadable inbox entry with a reason instead of aborting on a raw ENOENT', async () => {
    const generated = await generatedInbox(20, 10)
    const inbox = join(temp.dir, 'inbox-dangling')
    mkdirSync(inbox)
    writeFileSync(
      join(inbox, 'organisational_units.csv'),
      readFileSync(join(generated, 'organisational_units.csv')),
    )
    symlinkSync(join(temp.dir, 'no-such-file.ndjson'), join(inbox, 'jobs.ndjson'))
    const dataDir = await newTenant()
    const run = await nightly(inbox, join(temp.dir, 'out-dangling'), dataDir, '--json')
    expect(String(run.stdout) + String(run.stderr)).not.toMatch(/ENOENT/)
    expect(run.exitCode).toBe(0)
    const manifest = JSON.parse(String(run.stdout)) as { skipped_inputs: { file: string }[] }
    expect(manifest.skipped_inputs.map((entry) => entry.file).join(' ')).toMatch(/jobs\.ndjson/)
  })

  // A run that stops on an error (here: a .json file that is not valid JSON) leaves its `runs`
  // row as 'running' for ever: `tenant list` ("Each tenant with ... its last run") then reports a
  // nightly job running that ended long ago (src/pipeline/nightly-run.ts:55 inserts 'running';
  // nothing marks it failed).
  it('does not report a failed run as still running in tenant list', async () => {
    const inbox = join(temp.dir, 'inbox-bad-json')
    mkdirSync(inbox)
    writeFileSync(join(inbox, 'companies.json'), '[{"external_id":"c1",')
    const dataDir = await newTenant()
    const run = await nightly(inbox, join(temp.dir, 'out-bad-json'), dataDir)
    expect(run.exitCode).not.toBe(0)
    const list = await runCli(['tenant', 'list', '--data-dir', dataDir, '--json'])
    const tenants = JSON.parse(String(list.stdout)) as { last_run: { status: string } | null }[]
    expect(tenants[0]?.last_run?.status).not.toBe('running')
  })

  // rejects.ts says "an earlier rejects file of the same input is replaced", but when the input is
  // fixed the old rejects file stays in <out>/rejects while the manifest says rejects_file null.
  it('removes the rejects file of an input that has no rejected rows any more', async () => {
    const inbox = join(temp.dir, 'inbox-fixed')
    mkdirSync(inbox)
    const dataDir = await newTenant()
    const out = join(temp.dir, 'out-fixed')
    writeFileSync(
      join(inbox, 'organisational_units.csv'),
      'external_id,name,parent_id\nou-a,A,\nou-b!,B,ou-a\n',
    )
    const first = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30')
    expect(first.exitCode).toBe(3)
    writeFileSync(
      join(inbox, 'organisational_units.csv'),
      'external_id,name,parent_id\nou-a,A,\nou-b,B,ou-a\n',
    )
    const second = await nightly(inbox, out, dataDir, '--as-of', '2026-06-30', '--json')
    expect(second.exitCode, String(second.stderr)).toBe(0)
    expect(existsSync(join(out, 'rejects', 'organisational_units.csv.ndjson'))).toBe(false)
  })

  // docs/operations.md: exit 2 is a usage error. `--inbox` naming a file or nothing exits 1 (oclif's
  // Flags.directory({exists: true}) parse error), while every other bad flag exits 2.
  it('exits 2 when --inbox is not a directory', async () => {
    const dataDir = await newTenant()
    const run = await nightly(join(temp.dir, 'no-such-inbox'), join(temp.dir, 'out-x'), dataDir)
    expect(run.exitCode).toBe(2)
  })
})

describe('ingest', () => {
  // README Rejected rows / ingest: bad rows go to rejects/<file>.ndjson "so nothing is lost"
  // (rejects.ts). Two inputs with the same file name in different folders share one rejects
  // path, and the second overwrites the first (src/ingest/rejects.ts:21, basename only).
  it('keeps the rejected rows of two input files with the same name', async () => {
    const dataDir = await newTenant()
    const dir = join(temp.dir, 'same-name')
    mkdirSync(join(dir, 'jan'), { recursive: true })
    mkdirSync(join(dir, 'feb'), { recursive: true })
    writeFileSync(
      join(dir, 'jan', 'organisational_units.csv'),
      'external_id,name,parent_id\nou-j,J,\nou-j!,B,\n',
    )
    writeFileSync(
      join(dir, 'feb', 'organisational_units.csv'),
      'external_id,name,parent_id\nou-f,F,\nou-g,,\n',
    )
    const rejectsDir = join(dir, 'rejects')
    const ingest = await ingestCli(
      [join(dir, 'jan', 'organisational_units.csv'), join(dir, 'feb', 'organisational_units.csv')],
      rejectsDir,
      dataDir,
    )
    expect(ingest.exitCode).toBe(3)
    const summary = JSON.parse(String(ingest.stdout)) as { rows_rejected: number }
    expect(summary.rows_rejected).toBe(2)
    const written = readdirSync(rejectsDir).flatMap((name) =>
      readFileSync(join(rejectsDir, name), 'utf8').trim().split('\n').filter(Boolean),
    )
    expect(written).toHaveLength(2)
  })

  // Brief/README input files: BOM must be handled; CSV files with a UTF-8 BOM are read, but an
  // NDJSON file's first row is rejected as "line is not valid JSON: Unexpected token '\ufeff'".
  it('reads an NDJSON file that starts with a UTF-8 byte order mark', async () => {
    const dataDir = await newTenant()
    const path = join(temp.dir, 'bom', 'organisational_units.ndjson')
    mkdirSync(join(temp.dir, 'bom'), { recursive: true })
    writeFileSync(
      path,
      `\ufeff{"external_id":"ou-1","name":"One"}\n{"external_id":"ou-2","name":"Two","parent_id":"ou-1"}\n`,
    )
    const ingest = await ingestCli([path], join(temp.dir, 'bom', 'rejects'), dataDir)
    expect(ingest.exitCode, String(ingest.stdout)).toBe(0)
    expect((JSON.parse(String(ingest.stdout)) as { rows_written: number }).rows_written).toBe(2)
  })

  // Same for a JSON array file: the whole file is refused ("is not valid JSON: Unexpected token '\ufeff'").
  it('reads a JSON array file that starts with a UTF-8 byte order mark', async () => {
    const dataDir = await newTenant()
    mkdirSync(join(temp.dir, 'bom-json'), { recursive: true })
    const path = join(temp.dir, 'bom-json', 'organisational_units.json')
    writeFileSync(path, `\ufeff[{"external_id":"ou-1","name":"One"}]`)
    const ingest = await ingestCli([path], join(temp.dir, 'bom-json', 'rejects'), dataDir)
    expect(ingest.exitCode, String(ingest.stdout)).toBe(0)
  })

  // README ingest: a too-long NDJSON line is rejected alone with its line; rejects name "line,
  // field and reason", exit 3 with everything else committed. A CSV line longer than DuckDB's
  // max_line_size (2 MB) makes the whole file refused, exit 2, with "CSV Error on Line: 1" (the
  // long row is line 3) and no good row loaded (src/ingest/read-source.ts:154/229).
  it('rejects one over-long CSV row at its own line and loads the others', async () => {
    const dataDir = await newTenant()
    const dir = join(temp.dir, 'long-csv')
    mkdirSync(dir)
    const path = join(dir, 'organisational_units.csv')
    writeFileSync(
      path,
      `external_id,name,parent_id\nou-1,One,\nou-2,${'x'.repeat(3_000_000)},\nou-3,Three,\n`,
    )
    const ingest = await ingestCli([path], join(dir, 'rejects'), dataDir)
    expect(String(ingest.stderr)).not.toMatch(/Line: 1\b/)
    expect(ingest.exitCode).toBe(3)
    const rejects = readFileSync(join(dir, 'rejects', 'organisational_units.csv.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { line: number })
    expect(rejects.map((reject) => reject.line)).toEqual([3])
  })
})

describe('ingest counts', () => {
  // An id repeated in one entity file: the last row wins; the earlier one was counted nowhere
  // (rows_read 2, inserted + updated + unchanged + rejected 1).
  it('counts a row replaced by a later one of the same id in the file', async () => {
    const dataDir = await newTenant()
    const dir = join(temp.dir, 'repeated-id')
    mkdirSync(dir)
    const path = join(dir, 'organisational_units.csv')
    writeFileSync(path, 'external_id,name,parent_id\nou-1,First,\nou-1,Second,\n')
    const ingest = await runCli(['ingest', path, '--data-dir', dataDir, '--json'])
    expect(ingest.exitCode, String(ingest.stderr)).toBe(0)
    const summary = JSON.parse(String(ingest.stdout)) as IngestSummary
    const file = summary.files[0]
    expect(file?.rows_read).toBe(2)
    expect(file?.rows_inserted).toBe(1)
    expect(file?.rows_superseded).toBe(1)
  })
})

describe('tenant create', () => {
  // Spec 2.1: es, fr_ca, it, … "are available only when the request is scoped to vendor_a".
  // `tenant create --language es` without vendor_a makes a tenant whose only language is one no
  // activated vendor has (not even the default en_uk); it should be refused (exit 2) naming the
  // languages valid for the vendors given.
  it('refuses a vendor_a-only language on a tenant without vendor_a', async () => {
    const dataDir = join(temp.dir, 'data-language')
    const created = await runCli([
      'tenant',
      'create',
      'lang',
      '--region',
      'eu',
      '--language',
      'es',
      '--data-dir',
      dataDir,
    ])
    expect(created.exitCode).toBe(2)
    expect(String(created.stderr)).toMatch(/vendor_a/)
  })
})

describe('events export', () => {
  // Brief/STYLE: no stack traces for user errors; the CLI prints the one error type and exits
  // with its code. `events export --out` into a folder that does not exist dies on an unhandled
  // 'error' event of the AtomicWriteStream (node:events stack trace, temporary file name, exit 1),
  // while `match jobs --out`, `org export --out` and `openapi --out` create the folder.
  it('writes to --out in a new folder, or refuses it cleanly, without a stack trace', async () => {
    const dataDir = await newTenant()
    const out = join(temp.dir, 'no-folder-yet', 'events.ndjson')
    const exported = await runCli(['events', 'export', '--out', out, '--data-dir', dataDir])
    expect(String(exported.stderr)).not.toMatch(/Unhandled 'error' event|node:events|\n\s+at /)
    expect([0, 2]).toContain(exported.exitCode)
    // --out naming a folder: a message, not a raw EISDIR.
    const folder = await runCli(['events', 'export', '--out', temp.dir, '--data-dir', dataDir])
    expect(folder.exitCode, String(folder.stderr)).toBe(2)
    expect(String(folder.stderr)).toMatch(/is a folder; name the file to write/)
  })
})
