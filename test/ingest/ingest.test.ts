import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
let tenant: OpenTenant
const write = (name: string, text: string) => {
  const path = join(temp.dir, 'in', name)
  writeFileSync(path, text)
  return path
}
const ingest = (...paths: string[]) =>
  ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths,
    rejectsDir: join(temp.dir, 'rejects'),
  })
const docOf = async (table: string, id: string) =>
  JSON.parse(
    (
      (await tenant.database.one<{ doc: string }>(
        `SELECT doc::VARCHAR AS doc FROM ${table} WHERE external_id = $1`,
        [id],
      )) as { doc: string }
    ).doc,
  )

beforeAll(async () => {
  const { mkdirSync } = await import('node:fs')
  mkdirSync(join(temp.dir, 'in'), { recursive: true })
  tenant = await createOpenTenant(join(temp.dir, 'data'))
  await ingest(
    write(
      'custom_property_definitions.csv',
      'entity_type,property_name,property_type\nemployees,fte,number\nemployees,remote_ok,boolean\nemployees,regions,list[text]\nemployees,contract,text\n',
    ),
    write('organisational_units.csv', 'external_id,name,parent_id\nou-root,Group,\nou-it,IT,ou-root\n'),
    write(
      'job_families.json',
      JSON.stringify([
        { external_id: 'jf-data', name: 'Data', skills: [{ skill_id: 'skl-sql', critical: true }] },
      ]),
    ),
    write(
      'jobs.ndjson',
      `${JSON.stringify({ external_id: 'job-de', title: 'Data Engineer', job_family_id: 'jf-data' })}\n`,
    ),
  )
})
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

describe('ingest', () => {
  it('reads CSV by its conventions: dotted columns, | lists, positional language pairs and typed custom properties', async () => {
    const summary = await ingest(
      write(
        'employees.csv',
        'external_id,first_name,organisational_unit_id,job_id,location.country,location.postal_code,languages,desired_functions,custom_properties.fte,custom_properties.remote_ok,custom_properties.regions,custom_properties.contract\n' +
          'emp-1,Ann,ou-it,job-de,BE,9000,en:5|nl:3,job-de|jf-data,0.8,true,BE|NL,permanent\n' +
          'emp-2,Bart,ou-it,,,,nl,,,,,\n',
      ),
    )
    expect(summary.rows_rejected).toBe(0)
    expect(await docOf('employees', 'emp-1')).toEqual({
      external_id: 'emp-1',
      first_name: 'Ann',
      organisational_unit_id: 'ou-it',
      job_id: 'job-de',
      location: { country: 'BE', postal_code: '9000' },
      languages: [
        { language: 'en', level: 5 },
        { language: 'nl', level: 3 },
      ],
      desired_functions: ['job-de', 'jf-data'],
      custom_properties: { fte: 0.8, remote_ok: true, regions: ['BE', 'NL'], contract: 'permanent' },
    })
    // A language without a level takes the spec's default of 2.
    expect((await docOf('employees', 'emp-2')).languages).toEqual([{ language: 'nl', level: 2 }])
  })

  it('stores the same record whether it comes as NDJSON, a JSON array or Parquet', async () => {
    const record = {
      external_id: 'course-1',
      title: 'SQL for analysts',
      description: 'Joins and window functions',
      duration_hours: 12,
    }
    const ndjson = write('courses.ndjson', `${JSON.stringify(record)}\n`)
    await ingest(ndjson)
    const fromNdjson = await docOf('courses', 'course-1')
    writeFileSync(
      join(temp.dir, 'in', 'courses.json'),
      JSON.stringify([{ ...record, external_id: 'course-2' }]),
    )
    await ingest(join(temp.dir, 'in', 'courses.json'))
    const parquet = join(temp.dir, 'in', 'courses.parquet')
    await tenant.database.run(
      `COPY (SELECT 'course-3' AS external_id, 'SQL for analysts' AS title, 'Joins and window functions' AS description, 12 AS duration_hours) TO '${parquet}' (FORMAT parquet)`,
    )
    const summary = await ingest(parquet)
    expect(summary.files[0]?.format).toBe('parquet')
    expect({ ...(await docOf('courses', 'course-2')), external_id: 'course-1' }).toEqual(fromNdjson)
    expect({ ...(await docOf('courses', 'course-3')), external_id: 'course-1' }).toEqual(fromNdjson)
  })

  it('writes good rows, rejects bad ones with line, field and reason, and keeps the bad row', async () => {
    const events = [
      {
        employee_id: 'emp-1',
        external_id: 'ev-1',
        event_type: 'working_history',
        timestamp: '2024-01-10',
        content: {
          job_title: 'Data Engineer',
          start_date: '2021-01-01',
          company: 'Acme',
          job_description: 'Python and SQL',
        },
        source: 'hr',
      },
      {
        employee_id: 'emp-404',
        external_id: 'ev-2',
        event_type: 'learning',
        timestamp: '2024-01-10',
        content: { title: 'dbt' },
        source: 'lms',
      },
      {
        employee_id: 'emp-1',
        external_id: 'ev-3',
        event_type: 'certificate',
        timestamp: '2024-02-30',
        content: { name: 'PMP', issuer: 'PMI', issue_date: '2024-01-01' },
        source: 'hr',
      },
      {
        employee_id: 'emp-1',
        external_id: 'ev-4',
        event_type: 'goal',
        timestamp: '2024-01-10',
        content: { title: 'Kubernetes', mood: 'keen' },
        source: 'hr',
      },
    ]
    const file = write(
      'skill_events.ndjson',
      `${events.map((event) => JSON.stringify(event)).join('\n')}\n{"external_id": "ev-5",\n`,
    )
    const summary = await ingest(file)
    expect(summary.files[0]).toMatchObject({ rows_read: 5, rows_inserted: 1, rows_rejected: 4 })
    const rejects = readFileSync(summary.files[0]?.rejects_file as string, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rejects.map((reject) => [reject.line, reject.field])).toEqual([
      [2, 'employee_id'],
      [3, 'timestamp'],
      [4, 'content.mood'],
      [5, ''],
    ])
    expect(rejects[0].reason).toBe("employee 'emp-404' does not exist; ingest it first (404 Not Found)")
    expect(rejects[1].reason).toContain('YYYY-MM-DD')
    expect(rejects[2].reason).toContain('unknown field(s) mood')
    expect(rejects[3].reason).toContain('not valid JSON')
    expect(rejects[0].record).toEqual(events[1])
  })

  it('keeps the spec 409 for skill events: identical again changes nothing, other content is rejected', async () => {
    const event = {
      employee_id: 'emp-2',
      external_id: 'ev-10',
      event_type: 'project',
      timestamp: '2025-03-01',
      content: { name: 'Churn', description: 'Churn model in Python' },
      source: 'pm',
    }
    const changed = { ...event, content: { ...event.content, description: 'Churn model in R' } }
    const first = await ingest(
      write(
        'skill_events.a.ndjson',
        `${JSON.stringify(event)}\n${JSON.stringify(event)}\n${JSON.stringify(changed)}\n`,
      ),
    )
    expect(first.files[0]).toMatchObject({ rows_inserted: 1, rows_unchanged: 1, rows_rejected: 1 })
    const again = await ingest(
      write('skill_events.b.ndjson', `${JSON.stringify(event)}\n${JSON.stringify(changed)}\n`),
    )
    expect(again.files[0]).toMatchObject({ rows_inserted: 0, rows_unchanged: 1, rows_rejected: 1 })
    const rejects = readFileSync(again.files[0]?.rejects_file as string, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rejects[0]).toMatchObject({ line: 2, field: 'external_id' })
    expect(rejects[0].reason).toContain('409 Conflict')
  })

  it('reports CSV rows with the wrong number of columns by their line', async () => {
    // Lines 4-5 are one record (a quoted field spans them): the lines after it still count as lines.
    const file = write(
      'organisational_units.extra.csv',
      'external_id,name,parent_id\nou-hr,HR,ou-root\nou-x,X,ou-root,surplus\n"ou-fin","Finance\nand Control",ou-root\nou bad,Bad,ou-root\nou-y,Y\nou-z,Z,ou-root\n',
    )
    const summary = await ingest(file)
    expect(summary.files[0]).toMatchObject({ rows_inserted: 3, rows_rejected: 3 })
    const rejects = readFileSync(summary.files[0]?.rejects_file as string, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rejects.map((reject) => [reject.line, reject.field])).toEqual([
      [3, ''],
      [6, 'external_id'],
      [7, 'parent_id'],
    ])
    expect(rejects[0].reason).toContain('too many columns')
  })

  it('rejects an organisational unit whose parent chain makes a cycle, and an unknown parent', async () => {
    const file = write(
      'organisational_units.cycle.csv',
      'external_id,name,parent_id\nou-a,A,ou-b\nou-b,B,ou-a\nou-c,C,ou-nowhere\nou-root,Group,ou-it\n',
    )
    const summary = await ingest(file)
    const rejects = readFileSync(summary.files[0]?.rejects_file as string, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rejects.map((reject) => reject.line)).toEqual([3, 4, 5])
    expect(rejects[0].reason).toContain('cycle: ou-b → ou-a → ou-b')
    expect(rejects[1].reason).toContain("organisational unit 'ou-nowhere' does not exist")
    expect(rejects[2].reason).toContain('cycle')
  })

  it('checks custom properties against their definitions', async () => {
    const file = write(
      'employees.props.ndjson',
      [
        JSON.stringify({ external_id: 'emp-3', custom_properties: { fte: 'full' } }),
        JSON.stringify({ external_id: 'emp-4', custom_properties: { shoe_size: 44 } }),
      ].join('\n'),
    )
    const summary = await ingest(file)
    const rejects = readFileSync(summary.files[0]?.rejects_file as string, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rejects[0]).toMatchObject({ field: 'custom_properties.fte' })
    expect(rejects[0].reason).toContain('type number')
    expect(rejects[1].reason).toContain("no custom property 'shoe_size' is defined for employees")
  })

  it('changes nothing when the same files are ingested again', async () => {
    const before = await tenant.database.all(
      'SELECT external_id, change_seq FROM employees ORDER BY external_id',
    )
    const summary = await ingest(join(temp.dir, 'in', 'employees.csv'))
    expect(summary.files[0]).toMatchObject({ rows_inserted: 0, rows_updated: 0, rows_unchanged: 2 })
    expect(
      await tenant.database.all('SELECT external_id, change_seq FROM employees ORDER BY external_id'),
    ).toEqual(before)
  })
})

describe('ingest through the CLI', () => {
  it('exits with 3 and names the rejects file when a row is rejected', async () => {
    const dataDir = join(temp.dir, 'cli-data')
    expect(
      (await runCli(['tenant', 'create', 'cli', '--region', 'eu', '--data-dir', dataDir])).exitCode,
    ).toBe(0)
    const file = write(
      'companies.ndjson',
      `${JSON.stringify({ external_id: 'co-1', name: 'Acme', vat: 'BE0123456789' })}\n${JSON.stringify({ external_id: 'co-2', name: 'Too long', vat: 'BE01234567890123' })}\n`,
    )
    const result = await runCli([
      'ingest',
      file,
      '--data-dir',
      dataDir,
      '--rejects-dir',
      join(temp.dir, 'cli-rejects'),
      '--json',
    ])
    expect(result.exitCode).toBe(3)
    const summary = JSON.parse(String(result.stdout))
    expect(summary.files[0]).toMatchObject({
      rows_inserted: 1,
      rows_rejected: 1,
      rejects_file: join(temp.dir, 'cli-rejects', 'companies.ndjson.ndjson'),
    })
  })

  it('refuses an unknown entity with the list of valid ones (exit 2)', async () => {
    const file = write('payroll.csv', 'a\n1\n')
    const result = await runCli(['ingest', file, '--data-dir', join(temp.dir, 'cli-data')])
    expect(result.exitCode).toBe(2)
    expect(String(result.stderr)).toContain('does not start with an entity')
  })
})

/**
 * Ingests `file` through the built CLI into fresh tenants holding the fixture entities, with the
 * parallel check (threshold 0) and with the serial one: the summary and the rejects of each.
 */
async function ingestBothWays(file: string, name: string) {
  const outcomes: { summary: Record<string, number>; rejects: Record<string, unknown>[] }[] = []
  for (const threshold of ['0', '999999999999']) {
    const dataDir = join(temp.dir, `${name}-${threshold}`)
    await runCli(['tenant', 'create', 'p', '--region', 'eu', '--data-dir', dataDir])
    await runCli([
      'ingest',
      ...['employees.csv', 'organisational_units.csv', 'jobs.ndjson', 'job_families.json'].map((entity) =>
        join(temp.dir, 'in', entity),
      ),
      join(temp.dir, 'in', 'custom_property_definitions.csv'),
      '--data-dir',
      dataDir,
      '--rejects-dir',
      join(dataDir, 'entity-rejects'),
    ])
    const result = await runCli(
      ['ingest', file, '--data-dir', dataDir, '--rejects-dir', join(dataDir, 'rejects'), '--json'],
      { env: { NO_COLOR: '1', SKILLHOUSE_PARALLEL_MIN_BYTES: threshold } },
    )
    const summary = JSON.parse(String(result.stdout)).files[0]
    const rejects = readFileSync(summary.rejects_file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    outcomes.push({ summary, rejects })
  }
  return outcomes
}

describe('the parallel check of large NDJSON files', () => {
  it('writes the same rows and the same rejects as the serial check', async () => {
    const lines = Array.from({ length: 4000 }, (_, index) =>
      JSON.stringify({
        employee_id: index % 2 ? 'emp-1' : 'emp-2',
        external_id: `evp-${index}`,
        event_type: 'goal',
        timestamp: '2025-01-01',
        content: { title: `Goal ${index}` },
        source: 'hr',
      }),
    )
    lines[10] = '{broken'
    lines[2501] = lines[2501]?.replace('emp-1', 'emp-unknown') as string
    lines[3999] = lines[3999]?.replace('2025-01-01', '2025-02-30') as string
    const file = write('skill_events.parallel.ndjson', `${lines.join('\n')}\n\n${lines[0]}\n`)
    const outcomes = (await ingestBothWays(file, 'parallel')).map(({ summary, rejects }) => ({
      counts: [summary.rows_read, summary.rows_inserted, summary.rows_unchanged, summary.rows_rejected],
      rejects: rejects.map((reject) => [reject.line, reject.field]),
    }))
    expect(outcomes[0]).toEqual({
      counts: [4001, 3997, 1, 3],
      rejects: [
        [11, ''],
        [2502, 'employee_id'],
        [4000, 'timestamp'],
      ],
    })
    expect(outcomes[1]).toEqual(outcomes[0])
  })
})

describe('the parallel check of NDJSON files with many bad rows and a runaway line', () => {
  it('rejects each of them as the serial check does, and keeps the good rows', async () => {
    const lines = Array.from({ length: 3000 }, (_, index) =>
      JSON.stringify({
        employee_id: index % 3 === 0 ? `emp-unknown-${index}` : 'emp-1',
        external_id: `evm-${index}`,
        event_type: 'goal',
        timestamp: '2025-01-01',
        content: { title: `Goal ${index}` },
        source: 'hr',
      }),
    )
    // A line longer than a row may be (a text field of 17 million characters) is rejected unread.
    lines[1500] = JSON.stringify({ external_id: 'evm-long', content: { title: 'x'.repeat(17_000_000) } })
    const file = write('skill_events.many-bad.ndjson', `${lines.join('\n')}\n`)
    const outcomes = (await ingestBothWays(file, 'many-bad')).map(({ summary, rejects }) => ({
      counts: [summary.rows_read, summary.rows_inserted, summary.rows_rejected],
      rejects: rejects.map((reject) => [reject.line, reject.field]),
      long: rejects.find((reject) => reject.line === 1501)?.reason,
    }))
    // Every third line names an unknown employee; line 1501 (index 1500) is the runaway one.
    expect(outcomes[0]?.counts).toEqual([3000, 2000, 1000])
    expect(outcomes[0]?.rejects).toEqual(
      Array.from({ length: 3000 }, (_, index) => index)
        .filter((index) => index % 3 === 0)
        .map((index) => [index + 1, index === 1500 ? '' : 'employee_id']),
    )
    expect(outcomes[0]?.long).toMatch(
      /^line is \d+ characters long; a row may be at most 16777216 characters/,
    )
    expect(outcomes[1]).toEqual(outcomes[0])
  })
})

describe('the parallel check of large CSV files', () => {
  it('writes the same rows and the same rejects, with their lines, as the serial check', async () => {
    const lines = Array.from(
      { length: 3000 },
      (_, index) =>
        `${index % 2 ? 'emp-1' : 'emp-2'},evc-${index},goal,2025-01-01,hr,"{""status"":""open"",""title"":""Goal ${index}""}"`,
    )
    lines[20] = 'emp-1,evc-20,goal,2025-01-01,"two\nlines","{""title"":""x""}"'
    lines[6] = 'emp-1,evc-6,goal'
    lines[7] = 'emp-unknown,evc-7,goal,2025-01-01,hr,"{""title"":""x""}"'
    lines[8] = 'emp-1,evc-8,goal,2025-02-30,hr,"{""title"":""x""}"'
    lines[9] = 'emp-1,evc-9,feedback,2025-01-01,hr,"{""text"":""x"",""rating"":""3""}"'
    lines[2999] = 'emp-1,evc-0,goal,2025-01-01,hr,"{""title"":""changed""}"'
    // After the two-line record of lines[20], lines[i] is on line i + 3: lines[30] on line 33.
    lines[30] = 'emp-1,evc-30,goal,2025-01-01,hr,"{}",surplus'
    const file = write(
      'skill_events.parallel.csv',
      `employee_id,external_id,event_type,timestamp,source,content\n${lines.join('\n')}\n`,
    )
    const outcomes = (await ingestBothWays(file, 'parallel-csv')).map(({ summary, rejects }) => ({
      counts: [summary.rows_read, summary.rows_inserted, summary.rows_unchanged, summary.rows_rejected],
      rejects: rejects.map((reject) => [reject.line, reject.field]),
    }))
    expect(outcomes[0]).toEqual({
      // The row of line 8 lacks three columns: one reject, not one per column.
      counts: [3000, 2995, 0, 5],
      rejects: [
        [8, 'timestamp'],
        [9, 'employee_id'],
        [10, 'timestamp'],
        [33, ''],
        [3002, 'external_id'],
      ],
    })
    expect(outcomes[1]).toEqual(outcomes[0])
  })
})

describe('the model configuration rule', () => {
  it('rejects ticket and merge_request events on a tenant older than MC_2025_Q1_V1 with the spec message', async () => {
    const old = await createOpenTenant(join(temp.dir, 'old-data'), 'old', {
      modelConfiguration: 'MC_2024_Q3_V1',
    })
    try {
      const employees = join(temp.dir, 'in', 'employees.old.ndjson')
      writeFileSync(employees, `${JSON.stringify({ external_id: 'emp-1' })}\n`)
      const events = join(temp.dir, 'in', 'skill_events.old.ndjson')
      writeFileSync(
        events,
        [
          {
            employee_id: 'emp-1',
            external_id: 'e1',
            event_type: 'ticket',
            timestamp: '2025-01-01',
            content: { title: 'Fix SAP export' },
            source: 'jira',
          },
          {
            employee_id: 'emp-1',
            external_id: 'e2',
            event_type: 'goal',
            timestamp: '2025-01-01',
            content: { title: 'Learn SQL' },
            source: 'hr',
          },
        ]
          .map((row) => JSON.stringify(row))
          .join('\n'),
      )
      const summary = await ingestPaths({
        database: old.database,
        settings: old.settings,
        paths: [employees, events],
        rejectsDir: join(temp.dir, 'old-rejects'),
      })
      const file = summary.files.find((entry) => entry.entity === 'skill_events')
      expect(file).toMatchObject({ rows_inserted: 1, rows_rejected: 1 })
      const reject = JSON.parse(readFileSync(file?.rejects_file as string, 'utf8').trim())
      expect(reject.field).toBe('event_type')
      expect(reject.reason).toContain('model configuration is outdated and should be upgraded')
    } finally {
      old.database.close()
    }
  })
})
