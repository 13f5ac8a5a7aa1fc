import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SkillEventBatcher, type TenantRunner } from '../../src/api/skill-event-batcher.js'
import { ENTITY_COLLECTIONS } from '../../src/entities/entity-collections.js'
import { createEntity } from '../../src/entities/entity-store.js'
import { storeSkillEvents } from '../../src/entities/skill-event-store.js'
import { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { TenantPool } from '../../src/server/tenant-pool.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { type ApiAnswer, call, errorTitles, eventually, startTestServer, tokenFor } from './server-helpers.js'

const working = (externalId: string, description: string, extra: Record<string, unknown> = {}) => ({
  external_id: externalId,
  event_type: 'working_history',
  timestamp: '2024-06-01',
  content: {
    job_title: 'Developer',
    start_date: '2020-01-01',
    company: 'Initech',
    job_description: description,
    ...extra,
  },
  source: 'hr-system',
})

function expectError(answer: ApiAnswer, status: number, description: string) {
  expect(answer.status, answer.text).toBe(status)
  expect(errorTitles(answer).every((title) => title.startsWith(`${status} `))).toBe(true)
  expect((answer.json as { description: string }[]).map((entry) => entry.description).join(' | ')).toContain(
    description,
  )
}

const ndjson = (rows: readonly object[]) => `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`

describe('POST /employees/{id}/skill_events', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  const ingested = { employee_id: 'e-1', ...working('ing-1', 'Kept the payroll in SQL.') }
  let server: RunningServer
  let token: string
  let oldToken: string

  beforeAll(async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    const files = join(temp.dir, 'files')
    mkdirSync(files, { recursive: true })
    writeFileSync(
      join(files, 'employees.ndjson'),
      ndjson([{ external_id: 'e-1' }, { external_id: 'e-2' }, { external_id: 'e-3' }]),
    )
    writeFileSync(join(files, 'skill_events.ndjson'), ndjson([ingested]))
    const summary = await ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: [files],
      rejectsDir: join(temp.dir, 'rejects'),
    })
    expect(summary.rows_rejected).toBe(0)
    tenant.database.close()
    const old = await createOpenTenant(dataDir, 'old', { modelConfiguration: 'MC_2024_Q3_V1' })
    old.database.close()
    server = await startTestServer(dataDir)
    token = await tokenFor(dataDir, 'acme')
    oldToken = await tokenFor(dataDir, 'old')
    for (const id of ['o-1']) {
      expect(
        (
          await call(`${server.url}/old/eu/employees`, {
            method: 'POST',
            token: oldToken,
            body: { external_id: id },
          })
        ).status,
      ).toBe(204)
    }
  }, 120_000)
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  const send = (employee: string, body: unknown, query = '') =>
    call(`${server.url}/acme/eu/employees/${employee}/skill_events${query}`, { method: 'POST', token, body })
  const stored = (sql: string, params: string[]) =>
    server.app.pool.use('acme', (tenant) => tenant.database.all(sql, params))

  it('acknowledges a stored event with 204, and answers 409 for its external_id again, with the same content or other content (4.2)', async () => {
    const event = working('evt-1', 'Built Python services and tuned SQL queries.')
    const first = await send('e-1', event)
    expect(first.status).toBe(204)
    expect(first.text).toBe('')
    expect(
      await stored('SELECT external_id FROM skill_events WHERE external_id = $1', ['evt-1']),
    ).toHaveLength(1)
    expectError(await send('e-1', event), 409, "'evt-1' already exists with the same content")
    expectError(
      await send('e-1', working('evt-1', 'Something else entirely.')),
      409,
      "'evt-1' already exists with different content",
    )
    expect(
      await stored('SELECT external_id FROM skill_events WHERE external_id = $1', ['evt-1']),
    ).toHaveLength(1)
  })

  it('treats an event ingested from a file and the same event over HTTP as one event', async () => {
    const { employee_id: _employee, ...body } = ingested
    expectError(await send('e-1', body), 409, "'ing-1' already exists with the same content")
    expect(
      await stored('SELECT external_id FROM skill_events WHERE external_id = $1', ['ing-1']),
    ).toHaveLength(1)
    expectError(await send('e-1', { ...body, source: 'another-system' }), 409, 'ing-1')
  })

  it('answers 404 for an unknown employee and for content that references an unknown job', async () => {
    expectError(await send('nobody', working('evt-x', 'Anything')), 404, "employee 'nobody' does not exist")
    const jobEvent = {
      external_id: 'evt-job',
      event_type: 'working_history',
      timestamp: '2024-06-01',
      content: { job_id: 'job-none', start_date: '2020-01-01' },
      source: 'hr',
    }
    expectError(await send('e-1', jobEvent), 404, "content.job_id: job 'job-none' does not exist")
  })

  it('answers 404 for an event of an employee deleted after events of theirs were acknowledged, and 204 once created again', async () => {
    const employees = `${server.url}/acme/eu/employees`
    expect((await call(employees, { method: 'POST', token, body: { external_id: 'e-gone' } })).status).toBe(
      204,
    )
    expect((await send('e-gone', working('gone-1', 'Wrote SQL.'))).status).toBe(204)
    expect((await call(`${employees}/e-gone`, { method: 'DELETE', token })).status).toBe(204)
    expectError(
      await send('e-gone', working('gone-2', 'Wrote SQL.')),
      404,
      "employee 'e-gone' does not exist",
    )
    expect((await call(employees, { method: 'POST', token, body: { external_id: 'e-gone' } })).status).toBe(
      204,
    )
    expect((await send('e-gone', working('gone-2', 'Wrote SQL.'))).status).toBe(204)
  })

  it('answers 400 for a wrong structure and 422 for invalid values, naming the field', async () => {
    expectError(
      await send('e-1', working('evt-2', 'x', { start_date: undefined })),
      400,
      'content.start_date: is required',
    )
    expectError(await send('e-1', { ...working('evt-2', 'x'), colour: 'red' }), 400, 'colour: is not a field')
    expectError(await send('e-1', { ...working('evt-2', 'x'), employee_id: 'e-2' }), 400, 'employee_id')
    expectError(
      await send('e-1', { ...working('evt-2', 'x'), timestamp: 12 }),
      400,
      'timestamp: must be of type string',
    )
    expectError(
      await send('e-1', { ...working('evt-2', 'x'), timestamp: '2024-02-30' }),
      422,
      'timestamp: 2024-02-30 does not exist: February 2024 has 29 days',
    )
    expectError(
      await send('e-1', working('evt-2', 'x', { start_date: '2020-13-01' })),
      422,
      'content.start_date',
    )
    expectError(
      await send('e-1', { ...working('evt-2', 'x'), event_type: 'gossip' }),
      422,
      'event_type must be one of',
    )
    expectError(await send('e-1', working('evt-2', 'x'), '?strict=maybe'), 422, 'query parameter strict')
    expectError(await send('e-1', working('evt-2', 'x'), '?language=es'), 422, 'query parameter language')
  })

  it('refuses ticket and merge_request events with 422 on a tenant with an outdated model configuration', async () => {
    const ticket = {
      external_id: 'tkt-1',
      event_type: 'ticket',
      timestamp: '2024-06-01',
      content: { title: 'Fix the Kubernetes ingress' },
      source: 'jira',
    }
    const answer = await call(`${server.url}/old/eu/employees/o-1/skill_events`, {
      method: 'POST',
      token: oldToken,
      body: ticket,
    })
    expectError(answer, 422, 'model configuration is outdated and should be upgraded')
    expect((await send('e-1', ticket)).status).toBe(204)
  })

  it('refuses with strict=true an event from which no profile can be built, and stores it without', async () => {
    const empty = working('evt-empty', 'Zorblat quixx fnord.', { job_title: 'Zorblat' })
    expectError(await send('e-3', empty, '?strict=true'), 422, 'strict')
    expect((await send('e-3', empty, '?strict=false&language=en')).status).toBe(204)
    expect(await stored('SELECT language FROM skill_events WHERE external_id = $1', ['evt-empty'])).toEqual([
      { language: 'en' },
    ])
    // Once stored, the same event with strict=true is a 409 as other content is: what is stored
    // answers before strict does.
    expectError(await send('e-3', empty, '?strict=true'), 409, 'same content')
    expectError(await send('e-3', { ...empty, source: 'other' }, '?strict=true'), 409, 'evt-empty')
  })

  it('ends the active working history with end_active_working_history=true', async () => {
    expect((await send('e-2', working('wh-old', 'Ran the warehouse.'))).status).toBe(204)
    const next = { ...working('wh-new', 'Leads the data team.'), timestamp: '2025-02-01' }
    expect((await send('e-2', next, '?end_active_working_history=true')).status).toBe(204)
    const rows = await stored(
      "SELECT external_id, strftime(ended_on, '%Y-%m-%d') AS ended_on FROM skill_events WHERE employee_id = $1 ORDER BY external_id",
      ['e-2'],
    )
    expect(rows).toEqual([
      { external_id: 'wh-new', ended_on: null },
      { external_id: 'wh-old', ended_on: '2025-02-01' },
    ])
  })

  it('derives the profile in the background and appends its CloudEvent', async () => {
    expect((await send('e-1', working('evt-py', 'Python and Kubernetes in production.'))).status).toBe(204)
    const profile = await eventually(async () => {
      const answer = await call(`${server.url}/acme/eu/employees/e-1/skill_profile`, { token })
      const body = answer.json as {
        version: number
        skills: { skill_id: string; evidence: { external_id: string }[] }[]
      }
      const python = body.skills.find((skill) => skill.skill_id === 'skl-python')
      return python?.evidence.some((evidence) => evidence.external_id === 'evt-py') ? body : undefined
    })
    expect(profile.version).toBeGreaterThan(0)
    const events = await stored(
      `SELECT type, source FROM outbox WHERE type = 'ai.vendor.employee.skill_profile.updated.v1' AND json_extract_string(data, '$.external_id') = $1`,
      ['e-1'],
    )
    expect(events.length).toBeGreaterThan(0)
    expect(String(events[0]?.source)).toMatch(/\/acme\/eu\/employees\/e-1\/skill_profile$/)
  })
})

describe('skill events across a restart', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')

  beforeAll(async () => {
    ;(await createOpenTenant(dataDir, 'acme')).database.close()
  }, 120_000)
  afterAll(() => temp.cleanup())

  it('derives on the next start what was acknowledged before a stop, and stores it once', async () => {
    const token = await tokenFor(dataDir, 'acme')
    // A worker that never gets to run before the stop.
    const first = await startTestServer(dataDir, { deriveDelayMs: 600_000, deriveMaxDelayMs: 600_000 })
    const base = `${first.url}/acme/eu`
    expect(
      (await call(`${base}/employees`, { method: 'POST', token, body: { external_id: 'e-1' } })).status,
    ).toBe(204)
    const event = working('evt-1', 'Python and SQL every day.')
    expect(
      (await call(`${base}/employees/e-1/skill_events`, { method: 'POST', token, body: event })).status,
    ).toBe(204)
    await first.close()

    const second = await startTestServer(dataDir)
    try {
      const url = `${second.url}/acme/eu/employees/e-1/skill_profile`
      const profile = await eventually(async () => {
        const body = (await call(url, { token })).json as { version: number; skills: { skill_id: string }[] }
        return body.version > 0 ? body : undefined
      })
      expect(profile.skills.map((skill) => skill.skill_id)).toContain('skl-python')
      const again = await call(`${second.url}/acme/eu/employees/e-1/skill_events`, {
        method: 'POST',
        token,
        body: event,
      })
      expectError(again, 409, "'evt-1' already exists with the same content")
    } finally {
      await second.close()
    }

    // The event once in the database, and ingest sees the same event as unchanged.
    const tenant = await openTenant(dataDir, 'acme')
    try {
      expect(await tenant.database.all('SELECT external_id FROM skill_events')).toEqual([
        { external_id: 'evt-1' },
      ])
      const files = join(temp.dir, 'files')
      mkdirSync(files, { recursive: true })
      writeFileSync(join(files, 'skill_events.ndjson'), ndjson([{ employee_id: 'e-1', ...event }]))
      const summary = await ingestPaths({
        database: tenant.database,
        settings: tenant.settings,
        paths: [files],
        rejectsDir: join(temp.dir, 'rejects'),
      })
      expect(summary.files[0]).toMatchObject({ rows_inserted: 0, rows_unchanged: 1, rows_rejected: 0 })
    } finally {
      tenant.database.close()
    }
  })
})

describe('skill events in a burst (group commit)', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')

  afterAll(() => temp.cleanup())

  it('answers each of 320 concurrent events on its own, and stores each acknowledged event once', async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    tenant.database.close()
    const server = await startTestServer(dataDir)
    const token = await tokenFor(dataDir, 'acme')
    const url = `${server.url}/acme/eu/employees`
    const event = (index: number) => ({
      employee: index % 2 ? 'e-1' : 'e-2',
      body: working(`b-${index}`, `Built data pipelines in Python, number ${index}.`),
    })
    const burst = (requests: { employee: string; body: object }[]) =>
      Promise.all(
        requests.map(({ employee, body }) =>
          call(`${url}/${employee}/skill_events`, { method: 'POST', token, body }),
        ),
      )
    let first: ApiAnswer[]
    let second: ApiAnswer[]
    try {
      for (const id of ['e-1', 'e-2']) {
        expect((await call(url, { method: 'POST', token, body: { external_id: id } })).status).toBe(204)
      }
      // 280 new events and one for an unknown employee at once, then a burst that mixes 20 new
      // events with 10 sent again unchanged and 10 sent again changed (409 both).
      first = await burst([
        ...Array.from({ length: 280 }, (_, index) => event(index)),
        { employee: 'nobody', body: working('b-nobody', 'Wrote SQL.') },
      ])
      second = await burst([
        ...Array.from({ length: 10 }, (_, index) => event(index)),
        ...Array.from({ length: 20 }, (_, index) => event(280 + index)),
        ...Array.from({ length: 10 }, (_, index) => {
          const { employee, body } = event(10 + index)
          return { employee, body: { ...body, content: { ...body.content, job_title: 'Analyst' } } }
        }),
      ])
    } finally {
      await server.close()
    }
    expect(first.slice(0, 280).map((answer) => answer.status)).toEqual(Array(280).fill(204))
    expectError(first[280] as ApiAnswer, 404, 'nobody')
    for (const answer of second.slice(0, 10)) expectError(answer, 409, 'already exists with the same content')
    expect(second.slice(10, 30).map((answer) => answer.status)).toEqual(Array(20).fill(204))
    for (const answer of second.slice(30)) expectError(answer, 409, 'already exists with different content')

    const reopened = await openTenant(dataDir, 'acme')
    try {
      const rows = await reopened.database.all<{ n: number; ids: number; analysts: number }>(
        `SELECT count(*)::INTEGER AS n, count(DISTINCT external_id)::INTEGER AS ids,
                count(*) FILTER (WHERE content->>'$.job_title' = 'Analyst')::INTEGER AS analysts
         FROM skill_events`,
      )
      expect(rows).toEqual([{ n: 300, ids: 300, analysts: 0 }])
    } finally {
      reopened.database.close()
    }
  })

  it('stores an external_id sent to pipelined batches at once one time: the same content again and other content are 409s', async () => {
    const tenant = await createOpenTenant(dataDir, 'pipeline')
    const employees = ENTITY_COLLECTIONS.find((collection) => collection.path === 'employees')
    if (!employees) throw new Error('the employees collection is missing')
    for (const id of ['e-1', 'e-2']) await createEntity(tenant, employees, { external_id: id })
    tenant.database.close()
    const pool = new TenantPool(dataDir)
    const batcher = new SkillEventBatcher({ depth: 2 })
    const run: TenantRunner = (work) => pool.useForSkillEvents('pipeline', work)
    const strict = async () => () => true
    const submit = (employeeId: string, body: object) =>
      batcher.submit('pipeline', run, { employeeId, body, query: {} }, strict).then(
        (stored) => stored.stored,
        (error: unknown) => (error instanceof SkillhouseError ? error.status : error),
      )
    const same = working('p-same', 'Wrote SQL.')
    try {
      // The first request starts a batch at once; the next ones with its external_id wait for it
      // while the others form a second batch beside it; then rounds of both kinds at once.
      const answers = await Promise.all([
        submit('e-1', same),
        submit('e-1', same),
        submit('e-1', { ...same, source: 'other' }),
        ...Array.from({ length: 40 }, (_, index) =>
          submit(index % 2 ? 'e-1' : 'e-2', working(`p-${index}`, 'Wrote SQL.')),
        ),
        submit('e-1', same),
        // p-0…p-9 again, each from its employee: unchanged, then changed (a 409 both).
        ...Array.from({ length: 40 }, (_, index) => {
          const again = working(`p-${index % 10}`, 'Wrote SQL.')
          return submit(index % 2 ? 'e-1' : 'e-2', index < 20 ? again : { ...again, source: 'other' })
        }),
      ])
      expect(answers.slice(0, 3)).toEqual([true, 409, 409])
      expect(answers.slice(3, 43)).toEqual(Array(40).fill(true))
      expect(answers[43]).toBe(409)
      expect(answers.slice(44)).toEqual(Array(40).fill(409))
      const rows = await pool.use('pipeline', (open) =>
        open.database.all<{ n: number; ids: number }>(
          'SELECT count(*)::INTEGER AS n, count(DISTINCT external_id)::INTEGER AS ids FROM skill_events',
        ),
      )
      expect(rows).toEqual([{ n: 41, ids: 41 }])
    } finally {
      await pool.close()
    }
  })

  it('stores a batch as if one event came after the other: repeats and changes (409), ended working history', async () => {
    const tenant = await createOpenTenant(dataDir, 'batch')
    try {
      for (const id of ['e-1', 'e-2']) {
        const employees = ENTITY_COLLECTIONS.find((collection) => collection.path === 'employees')
        if (!employees) throw new Error('the employees collection is missing')
        await createEntity(tenant, employees, { external_id: id })
      }
      const first = working('w-1', 'Kept the books.')
      const outcomes = await storeSkillEvents(tenant, [
        { employeeId: 'e-1', body: first, query: {} },
        { employeeId: 'e-1', body: first, query: {} },
        { employeeId: 'e-1', body: { ...first, source: 'other' }, query: {} },
        // Ends w-1 (active, started before), but not w-3 which the batch stores after it.
        {
          employeeId: 'e-1',
          body: working('w-2', 'Audited the books.', { end_date: '2024-06-01' }),
          query: { end_active_working_history: 'true' },
        },
        { employeeId: 'e-1', body: working('w-3', 'Runs the books.'), query: {} },
        { employeeId: 'e-2', body: { ...first, external_id: 'w-4', event_type: 'party' }, query: {} },
      ])
      expect(outcomes.map((outcome) => (outcome instanceof Error ? outcome.status : outcome.stored))).toEqual(
        [true, 409, 409, true, true, 422],
      )
      expect(
        await tenant.database.all(
          'SELECT external_id, ended_on IS NOT NULL AS ended FROM skill_events ORDER BY external_id',
        ),
      ).toEqual([
        { external_id: 'w-1', ended: true },
        { external_id: 'w-2', ended: false },
        { external_id: 'w-3', ended: false },
      ])
    } finally {
      tenant.database.close()
    }
  })

  it('answers a batch whose insert the key refuses (events stored earlier among new ones) event by event, storing the new ones once', async () => {
    const tenant = await createOpenTenant(dataDir, 'refused')
    try {
      const employees = ENTITY_COLLECTIONS.find((collection) => collection.path === 'employees')
      if (!employees) throw new Error('the employees collection is missing')
      await createEntity(tenant, employees, { external_id: 'e-1' })
      const earlier = working('r-1', 'Kept the books.')
      const changed = working('r-2', 'Audited the books.')
      expect(
        await storeSkillEvents(tenant, [
          { employeeId: 'e-1', body: earlier, query: {} },
          { employeeId: 'e-1', body: changed, query: {} },
        ]),
      ).toEqual([
        { external_id: 'r-1', stored: true },
        { external_id: 'r-2', stored: true },
      ])
      const outcomes = await storeSkillEvents(tenant, [
        { employeeId: 'e-1', body: working('r-3', 'Runs the books.'), query: {} },
        { employeeId: 'e-1', body: earlier, query: {} },
        { employeeId: 'e-1', body: { ...changed, source: 'other' }, query: {} },
        { employeeId: 'e-1', body: working('r-4', 'Closes the books.'), query: {} },
      ])
      expect(outcomes.map((outcome) => (outcome instanceof Error ? outcome.status : outcome.stored))).toEqual(
        [true, 409, 409, true],
      )
      expect(
        await tenant.database.all('SELECT external_id, source FROM skill_events ORDER BY external_id'),
      ).toEqual(['r-1', 'r-2', 'r-3', 'r-4'].map((id) => ({ external_id: id, source: earlier.source })))
    } finally {
      tenant.database.close()
    }
  })
})
