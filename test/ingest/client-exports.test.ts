// Hand-made client exports as they arrive at 2 a.m.: truncated, in another encoding, another
// delimiter, with dates that do not exist and languages listed twice. Each gets a clear answer
// naming the line and what would be valid, and the rest of the file is loaded.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { IngestSummary } from '../../src/ingest/ingest-paths.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { newCliTenant, rejectsOf } from '../helpers/cli-tenant.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-exports-')
afterAll(() => temp.cleanup())

let counter = 0
const newTenant = () => newCliTenant(temp.dir)

/** Writes `content` as `name` in a folder of its own; the path. */
function exportFile(name: string, content: string | Buffer): string {
  const path = join(temp.dir, `export-${++counter}-${name}`)
  writeFileSync(path, content)
  return path
}

const ingest = (path: string, dataDir: string, ...more: string[]) =>
  runCli([
    'ingest',
    path,
    '--entity',
    'employees',
    '--rejects-dir',
    join(temp.dir, `rejects-${++counter}`),
    '--data-dir',
    dataDir,
    '--json',
    ...more,
  ])

/** The first names stored for the tenant's employees, by external_id. */
async function firstNames(dataDir: string): Promise<Record<string, string | null>> {
  const tenant = await openTenant(dataDir, 'x')
  try {
    const rows = await tenant.database.all<{ external_id: string; first_name: string | null }>(
      "SELECT external_id, doc->>'first_name' AS first_name FROM employees ORDER BY external_id",
    )
    return Object.fromEntries(rows.map((row) => [row.external_id, row.first_name]))
  } finally {
    tenant.database.close()
  }
}

const HEADER = 'external_id,first_name,last_name'

describe('a truncated CSV export', () => {
  // A truncated export ending in `e-902,"Bob,Jones` failed whole with DuckDB's "Error when
  // sniffing file", no line, exit 2, nothing loaded.
  it('rejects the row with the unterminated quote, naming its line, and loads the rows before it', async () => {
    const dataDir = await newTenant()
    const rows = Array.from({ length: 30 }, (_, index) => `e-${100 + index},Ann,Lee`)
    const path = exportFile('employees.csv', `${HEADER}\n${rows.join('\n')}\ne-902,"Bob,Jones\n`)
    const answer = await ingest(path, dataDir)
    expect(answer.exitCode, String(answer.stderr)).toBe(3)
    const summary = JSON.parse(String(answer.stdout)) as IngestSummary
    expect(summary.rows_written).toBe(30)
    const rejects = rejectsOf(summary)
    expect(rejects).toHaveLength(1)
    expect(rejects[0]?.line).toBe(32)
    expect(rejects[0]?.reason).toMatch(/unterminated quote.*line 32/)
    expect(Object.keys(await firstNames(dataDir))).toHaveLength(30)
  })
})

describe('encodings', () => {
  // A cp1252 file with one bad row reported 4 rows read and 2 rejects (one per cell, row 0).
  it('refuses a Windows-1252 file naming the encoding, the line and how to convert it, and reads it with --encoding', async () => {
    const dataDir = await newTenant()
    const content = Buffer.concat([
      Buffer.from(`${HEADER}\ne-1,Ann,Lee\ne-2,Jos`),
      Buffer.from([0xe9]),
      Buffer.from(',Garc'),
      Buffer.from([0xed]),
      Buffer.from('a\ne-3,Eve,Ray\n'),
    ])
    const path = exportFile('employees.csv', content)
    const refused = await ingest(path, dataDir)
    expect(refused.exitCode).toBe(2)
    expect(String(refused.stderr)).toMatch(
      /is not UTF-8: byte 0xE9 on line 3 .*Windows-1252.*iconv -f WINDOWS-1252 -t UTF-8.*--encoding windows-1252/,
    )
    expect(await firstNames(dataDir)).toEqual({})
    const read = await ingest(path, dataDir, '--encoding', 'windows-1252')
    expect(read.exitCode, String(read.stderr)).toBe(0)
    expect(await firstNames(dataDir)).toEqual({ 'e-1': 'Ann', 'e-2': 'José', 'e-3': 'Eve' })
  })

  // A UTF-16 file yielded field names full of \u0000.
  it('reads a UTF-16 file that starts with its byte order mark', async () => {
    const dataDir = await newTenant()
    const text = `${HEADER}\r\ne-1,Zoë,Lee\r\ne-2,Ann,Lee\r\n`
    for (const [encoding, bytes] of [
      ['le', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
      ['be', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
    ] as const) {
      const answer = await ingest(exportFile(`employees.${encoding}.csv`, bytes), dataDir)
      expect(answer.exitCode, String(answer.stderr)).toBe(0)
      expect((JSON.parse(String(answer.stdout)) as IngestSummary).rows_read).toBe(2)
    }
    expect(await firstNames(dataDir)).toEqual({ 'e-1': 'Zoë', 'e-2': 'Ann' })
  })

  it('refuses UTF-16 text without a byte order mark, naming it', async () => {
    const dataDir = await newTenant()
    const path = exportFile('employees.csv', Buffer.from(`${HEADER}\ne-1,Ann,Lee\n`, 'utf16le'))
    const answer = await ingest(path, dataDir)
    expect(answer.exitCode).toBe(2)
    expect(String(answer.stderr)).toMatch(
      /looks like UTF-16LE text without a byte order mark.*--encoding utf-16le/,
    )
  })
})

describe('delimiters', () => {
  it('says that a ;-separated file looks ;-separated, and reads it with --delimiter', async () => {
    const dataDir = await newTenant()
    const path = exportFile('employees.csv', 'external_id;first_name;last_name\ne-1;Ann;Lee\n')
    const refused = await ingest(path, dataDir)
    expect(refused.exitCode).toBe(2)
    expect(String(refused.stderr)).toMatch(/looks ;-separated.*--delimiter ';'/)
    const read = await ingest(path, dataDir, '--delimiter', ';')
    expect(read.exitCode, String(read.stderr)).toBe(0)
    expect(await firstNames(dataDir)).toEqual({ 'e-1': 'Ann' })
  })
})

describe('values', () => {
  // `2022-02-30` was "must be an ISO 8601 date (YYYY-MM-DD)", which it is in form.
  it('names a date that is not in the calendar as not existing', async () => {
    const dataDir = await newTenant()
    const path = exportFile('employees.csv', 'external_id,hire_date\ne-1,2022-02-30\ne-2,2024-02-29\n')
    const answer = await ingest(path, dataDir)
    expect(answer.exitCode).toBe(3)
    const [reject] = rejectsOf(JSON.parse(String(answer.stdout)) as IngestSummary)
    expect(reject).toMatchObject({ line: 2, field: 'hire_date' })
    expect(reject?.reason).toBe(
      '2022-02-30 does not exist: February 2022 has 28 days (must be a calendar date, YYYY-MM-DD)',
    )
  })

  // `en:5|en:3` was stored twice.
  it('rejects a language listed twice, naming it', async () => {
    const dataDir = await newTenant()
    const path = exportFile('employees.csv', 'external_id,languages\ne-1,en:5|en:3\ne-2,en:5|nl:3\n')
    const answer = await ingest(path, dataDir)
    expect(answer.exitCode).toBe(3)
    const [reject] = rejectsOf(JSON.parse(String(answer.stdout)) as IngestSummary)
    expect(reject).toMatchObject({ line: 2, field: 'languages.1.language' })
    expect(reject?.reason).toMatch(/language 'en' is listed twice/)
    expect(Object.keys(await firstNames(dataDir))).toEqual(['e-2'])
  })
})
