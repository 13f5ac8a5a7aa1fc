import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { Reject } from '../../src/ingest/rejects.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, fixture, tempDir } from '../helpers/temp-tenant.js'

interface Expected {
  file: string
  line: number
  field: string
  reason_contains: string
}

const temp = tempDir()
let tenant: OpenTenant
const ingest = (path: string) =>
  ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths: [path],
    rejectsDir: join(temp.dir, 'rejects'),
  })

beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'), 'demo')
})
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

describe('the demo tenant fixtures', () => {
  it('ingest every file without a single rejected row', async () => {
    const summary = await ingest(fixture('demo'))
    expect(summary.rows_rejected).toBe(0)
    const rows = Object.fromEntries(summary.files.map((file) => [file.entity, file.rows_inserted]))
    expect(rows.employees).toBeGreaterThanOrEqual(290)
    expect(rows.skill_events).toBeGreaterThanOrEqual(3000)
    expect(rows.vacancies).toBe(60)
    expect(rows.jobs).toBeGreaterThanOrEqual(40)
    const types = await tenant.database.all<{ event_type: string }>(
      'SELECT DISTINCT event_type FROM skill_events',
    )
    expect(types).toHaveLength(12)
  })

  it('change nothing when ingested again', async () => {
    const summary = await ingest(fixture('demo'))
    expect(summary.rows_written).toBe(0)
    expect(summary.rows_rejected).toBe(0)
  })
})

describe('the bad-row fixtures', () => {
  const expected = JSON.parse(readFileSync(fixture('bad', 'expected.json'), 'utf8')) as Expected[]
  const files = readdirSync(fixture('bad')).filter((name) => name !== 'expected.json' && name !== 'README.md')

  it('cover every file with at least one expected reject', () => {
    expect(new Set(expected.map((entry) => entry.file))).toEqual(new Set(files))
  })

  it.each(files)(
    '%s: bad rows are rejected with their line, field and reason, good rows are kept',
    async (name) => {
      const summary = await ingest(fixture('bad', name))
      const file = summary.files[0]
      const rejectsFile = file?.rejects_file
      expect(rejectsFile).toBeTruthy()
      const rejects = readFileSync(rejectsFile as string, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Reject)
      for (const entry of expected.filter((candidate) => candidate.file === name)) {
        const match = rejects.find(
          (reject) =>
            reject.line === entry.line &&
            reject.problems.some(
              (problem) =>
                (problem.field === entry.field || problem.field.startsWith(`${entry.field}.`)) &&
                problem.reason.toLowerCase().includes(entry.reason_contains.toLowerCase()),
            ),
        )
        expect(
          match,
          `${name} line ${entry.line} ${entry.field}: ${JSON.stringify(rejects.map((r) => [r.line, r.problems]))}`,
        ).toBeDefined()
      }
      expect(rejects.length).toBe(expected.filter((candidate) => candidate.file === name).length)
      expect(
        (file?.rows_inserted ?? 0) + (file?.rows_updated ?? 0) + (file?.rows_unchanged ?? 0),
      ).toBeGreaterThan(0)
    },
  )
})
