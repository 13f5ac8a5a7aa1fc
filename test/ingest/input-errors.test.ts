// Batch input errors found in real use: each answer names the line, the field and the fix, and
// every row of a file is either stored or rejected.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { IngestSummary } from '../../src/ingest/ingest-paths.js'
import { newCliTenant, rejectsOf } from '../helpers/cli-tenant.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-input-errors-')
afterAll(() => temp.cleanup())

let counter = 0
const newTenant = () => newCliTenant(temp.dir)

/** Writes `content` as `name` in a folder of its own; the path. */
function inputFile(name: string, content: string | Buffer): string {
  const dir = join(temp.dir, `in-${++counter}`)
  mkdirSync(dir, { recursive: true })
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

const ingest = (dataDir: string, ...args: string[]) =>
  runCli([
    'ingest',
    ...args,
    '--rejects-dir',
    join(temp.dir, `rejects-${++counter}`),
    '--data-dir',
    dataDir,
    '--json',
  ])

async function ingestJson(dataDir: string, ...args: string[]) {
  const answer = await ingest(dataDir, ...args)
  const summary = JSON.parse(String(answer.stdout)) as IngestSummary
  return { answer, summary, rejects: rejectsOf(summary) }
}

const EVENT_HEADER = 'employee_id,external_id,event_type,timestamp,source,content.text'
const event = (id: string, text: string) => `e-1,${id},feedback,2024-01-01,hr,${text}`

describe('a quote that never closes', () => {
  // At 5,000 rows DuckDB's parallel reader gave a reject without line of the quote or record, and
  // the rows after it were neither stored nor rejected.
  for (const size of [2_000, 5_000]) {
    it(`rejects the row whose quote opened, with the text it swallowed, after ${size} good rows`, async () => {
      const dataDir = await newTenant()
      expect((await ingest(dataDir, inputFile('employees.csv', 'external_id\ne-1\n'))).exitCode).toBe(0)
      const rows = Array.from({ length: size }, (_, index) => event(`ev-${index}`, `good ${index}`))
      const after = [0, 1, 2].map((index) => event(`after-${index}`, `after ${index}`))
      const path = inputFile(
        'skill_events.csv',
        `${EVENT_HEADER}\n${rows.join('\n')}\n${event('cut', '"Cut here')}\n${after.join('\n')}\n`,
      )
      const { answer, summary, rejects } = await ingestJson(dataDir, path)
      expect(answer.exitCode, String(answer.stderr)).toBe(3)
      expect(summary.rows_written).toBe(size)
      expect(summary.rows_read).toBe(summary.rows_written + summary.rows_rejected)
      expect(rejects).toHaveLength(1)
      expect(rejects[0]?.line).toBe(size + 2)
      expect(rejects[0]?.reason).toMatch(new RegExp(`unterminated quote: .*opened on line ${size + 2}`))
      const swallowed = String((rejects[0]?.record as { text?: string } | undefined)?.text)
      expect(swallowed).toContain('"Cut here')
      for (const row of after) expect(swallowed).toContain(row)
    })
  }
})

describe('a row short of columns', () => {
  // DuckDB rejects a row once per missing column: `4 read … 2 rejected`, both without a record.
  it('is one reject with its line and its text, however many columns it lacks', async () => {
    const dataDir = await newTenant()
    expect((await ingest(dataDir, inputFile('employees.csv', 'external_id\ne-1\n'))).exitCode).toBe(0)
    const short = 'e-1,ev-2,feedback,2024-01-01'
    const path = inputFile(
      'skill_events.csv',
      `${EVENT_HEADER}\n${event('ev-1', 'one')}\n${short}\n${event('ev-3', 'three')}\n`,
    )
    const { answer, summary, rejects } = await ingestJson(dataDir, path)
    expect(answer.exitCode, String(answer.stderr)).toBe(3)
    expect([summary.rows_read, summary.rows_written, summary.rows_rejected]).toEqual([3, 2, 1])
    expect(rejects).toHaveLength(1)
    expect(rejects[0]).toMatchObject({ line: 3, record: { text: short } })
    expect(rejects[0]?.reason).toMatch(
      /Expected Number of Columns: 6 Found: 4; missing source, content\.text/,
    )
  })

  it('names its own line in a file with CRLF line ends', async () => {
    const dataDir = await newTenant()
    const path = inputFile(
      'employees.csv',
      'external_id,first_name,last_name\r\ne-1,Ann,Lee\r\ne-2,Bob\r\ne-3,Eve,Ray\r\n',
    )
    const { summary, rejects } = await ingestJson(dataDir, path)
    expect([summary.rows_read, summary.rows_written, summary.rows_rejected]).toEqual([3, 2, 1])
    expect(rejects[0]).toMatchObject({ line: 3, record: { text: 'e-2,Bob' } })
  })
})

describe('a header that does not fit the entity', () => {
  // Every one of 2,000 rows was rejected with `external_id: is required` and `unknown field(s)`.
  it('is refused once, before any row is read, naming the nearest expected columns', async () => {
    const dataDir = await newTenant()
    const rows = Array.from({ length: 2_000 }, (_, index) => `e-${index},Ann,Lee,ann${index}@acme.test`)
    const path = inputFile('employees.csv', `employee_id,first_name,last_name,emial\n${rows.join('\n')}\n`)
    const answer = await ingest(dataDir, path)
    expect(answer.exitCode).toBe(2)
    const message = String(answer.stderr)
    expect(message).toContain('`employee_id` is not a column of employees; their id column is `external_id`')
    expect(message).toContain('`emial` is not a column of employees: did you mean `email`?')
    expect(message.match(/is not a column/g)).toHaveLength(2)
    expect(existsSync(join(temp.dir, `rejects-${counter}`))).toBe(false)
  })

  it('names a nested column by its level: content.txet of a skill event', async () => {
    const dataDir = await newTenant()
    const path = inputFile('skill_events.csv', `${EVENT_HEADER.replace('content.text', 'content.txet')}\n`)
    const answer = await ingest(dataDir, path)
    expect(answer.exitCode).toBe(2)
    expect(String(answer.stderr)).toContain(
      '`content.txet` is not a column of skill_events: did you mean `content.text`?',
    )
  })
})

describe('a folder with a file that is not UTF-8', () => {
  // `ingest DIR` stopped with exit 2 at a Windows-1252 file without loading the good one beside it,
  // and suggested a converted copy named `employees.csv.utf8`, which the next ingest skips.
  it('refuses that file, lists it with the command to convert it, and loads the others', async () => {
    const dataDir = await newTenant()
    const folder = dirname(inputFile('organisational_units.csv', 'external_id,name\nou-1,Sales\n'))
    const latin1 = Buffer.concat([Buffer.from('external_id,first_name\ne-1,Jos'), Buffer.from([0xe9, 0x0a])])
    writeFileSync(join(folder, 'employees.csv'), latin1)
    const { answer, summary } = await ingestJson(dataDir, folder)
    expect(answer.exitCode, String(answer.stderr)).toBe(3)
    expect(summary.rows_written).toBe(1)
    expect(summary.files.map((file) => file.entity)).toEqual(['organisational_units'])
    expect(summary.rejected_files).toHaveLength(1)
    const reason = String(summary.rejected_files[0]?.reason)
    expect(reason).toMatch(/byte 0xE9 on line 2/)
    expect(reason).toContain(
      'iconv -f WINDOWS-1252 -t UTF-8 employees.csv > employees.utf8.csv && mv employees.utf8.csv employees.csv',
    )
    // The converted copy, as that command writes it, is a file the folder's next ingest reads.
    writeFileSync(join(folder, 'employees.utf8.csv'), 'external_id,first_name\ne-1,José\n')
    const next = await ingestJson(dataDir, join(folder, 'employees.utf8.csv'))
    expect(next.answer.exitCode, String(next.answer.stderr)).toBe(0)
    expect(next.summary.files[0]?.entity).toBe('employees')
  })
})

describe('internationalised email addresses', () => {
  // `chloé.dubois@acme.test` was `must be a valid email`: the employee rejected, then each of their
  // events as `employee … does not exist`.
  it('stores an RFC 6531 address, and the events of an employee rejected say why, pointing at that reject', async () => {
    const dataDir = await newTenant()
    const folder = dirname(
      inputFile(
        'employees.csv',
        'external_id,first_name,email\ne-1,Chloé,chloé.dubois@acme.test\ne-2,Wei,用户@例子.广告\ne-3,Bad,bad@\n',
      ),
    )
    const events = ['e-1', 'e-2', 'e-3', 'e-3'].map((employee, index) =>
      event(`ev-${index}`, 'text').replace(/^e-1/, employee),
    )
    writeFileSync(join(folder, 'skill_events.csv'), `${EVENT_HEADER}\n${events.join('\n')}\n`)
    const { summary, rejects } = await ingestJson(dataDir, folder)
    expect([summary.rows_written, summary.rows_rejected]).toEqual([4, 3])
    expect(rejects[0]).toMatchObject({ file: 'employees.csv', line: 4, field: 'email' })
    expect(rejects[0]?.reason).toBe("must be a valid email; got 'bad@'")
    for (const reject of rejects.slice(1))
      expect(reject.reason).toBe(
        "employee 'e-3' was rejected by this ingest (employees.csv line 4: email: must be a valid email; got 'bad@'); fix that row and ingest both files again",
      )
  })
})

describe('the summary of rows rejected for a record this ingest rejected', () => {
  // An employee rejected for their email gave one 404 for each of their events: 30 lines that
  // look unrelated, where one says it all.
  it('says in one line why the 30 events of a rejected employee were rejected, and keeps every row', async () => {
    const dataDir = await newTenant()
    const folder = dirname(
      inputFile('employees.csv', 'external_id,first_name,email\ne-1,Ann,ann@acme.test\ne-7,Bad,bad@\n'),
    )
    const events = Array.from({ length: 30 }, (_, index) =>
      event(`ev-${index}`, 'text').replace(/^e-1/, 'e-7'),
    )
    events.push(event('ev-unknown', 'text').replace(/^e-1/, 'e-404'), event('ev-good', 'text'))
    writeFileSync(join(folder, 'skill_events.csv'), `${EVENT_HEADER}\n${events.join('\n')}\n`)
    const rejectsDir = join(temp.dir, `rejects-${++counter}`)
    const text = await runCli(['ingest', folder, '--rejects-dir', rejectsDir, '--data-dir', dataDir])
    expect(text.exitCode, String(text.stderr)).toBe(3)
    const lines = String(text.stdout)
      .split('\n')
      .map((line) => line.trim())
    expect(lines).toContain(
      "30 rows of employee 'e-7' rejected: the employee was rejected (employees.csv line 3: email: must be a valid email; got 'bad@')",
    )
    expect(lines).toContain(
      "1 row rejected for other reasons (first: line 32: employee_id: employee 'e-404' does not exist; ingest it first (404 Not Found))",
    )
    expect(lines.filter((line) => line.includes("'e-7'"))).toHaveLength(1)
    const { summary, rejects } = await ingestJson(dataDir, folder)
    const eventsFile = summary.files.find((file) => file.entity === 'skill_events')
    expect(eventsFile?.reject_causes).toEqual([
      {
        rows: 30,
        rejected_record: "employee 'e-7'",
        reason: "employees.csv line 3: email: must be a valid email; got 'bad@'",
      },
      {
        rows: 1,
        rejected_record: null,
        reason: "line 32: employee_id: employee 'e-404' does not exist; ingest it first (404 Not Found)",
      },
    ])
    expect(rejects.filter((reject) => reject.file === 'skill_events.csv')).toHaveLength(31)
  })
})
