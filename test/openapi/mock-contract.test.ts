import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningMock, startMock } from '../../src/mock/prism-mock.js'
import { loadExamples, type OperationExample } from '../../src/openapi/examples-file.js'
import { runDemo } from '../../src/pipeline/demo-tenant.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { DEMO_AS_OF } from '../../tools/example-run.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { call, startTestServer, tokenFor } from '../server/server-helpers.js'

/**
 * The mock and the server side by side: the same requests, sent to `skillhouse mock` and to a
 * server over the demo tenant the mock's examples come from, answer the same status with a body
 * of the same shape (the same fields, of the same JSON types, at every depth). The good requests
 * are the ones the examples were recorded with; the bad ones are those the mock can judge without
 * data (a missing token, a value the document refuses, a region that does not exist). What only
 * data can tell (an id that names nothing) the mock does not know: it answers the example.
 */

/** The shape of a JSON value: objects by their fields, arrays by the shapes of their items. */
function shapeOf(value: unknown): unknown {
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    const shapes = new Map(value.map((item) => [JSON.stringify(shapeOf(item)), shapeOf(item)]))
    return [...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, shape]) => shape)
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, item]) => [name, shapeOf(item)]),
    )
  }
  return typeof value
}

interface Exchange {
  what: string
  method: string
  /** Below the base URL `/demo/eu`, or at the root when `root`. */
  path: string
  root?: boolean
  query?: Record<string, string | string[]>
  body?: unknown
  /** Sent as a form. */
  form?: string
  token?: boolean
  status: number
}

const examples = loadExamples()
if (!examples) throw new Error('fixtures/openapi/examples.json is missing: run npm run examples')

/** The good request an example was recorded with, on its operation's path. */
function recorded(
  what: string,
  method: string,
  template: string,
  example: OperationExample | undefined,
): Exchange {
  if (!example) throw new Error(`no example ${what}`)
  let path = template
  for (const [name, value] of Object.entries(example.request.params ?? {}))
    path = path.replace(`{${name}}`, encodeURIComponent(value))
  return {
    what,
    method,
    path,
    ...(example.request.query ? { query: example.request.query } : {}),
    ...(example.request.body !== undefined ? { body: example.request.body } : {}),
    status: example.response.status,
  }
}

const operations = examples.operations
const variants = examples.variants
const GOOD: Exchange[] = [
  recorded('an employee', 'GET', '/employees/{employee_external_id}', operations.getEmployee),
  recorded('a page of employees', 'GET', '/employees', operations.listEmployees),
  recorded(
    "an employee's skill profile",
    'GET',
    '/employees/{employee_external_id}/skill_profile',
    operations.getEmployeeSkillProfile,
  ),
  recorded(
    "a job family's profile",
    'GET',
    '/job_architecture/job_families/{job_family_external_id}/skill_profile',
    operations.getJobFamilySkillProfile,
  ),
  recorded(
    "a job family's profile as a hierarchy",
    'GET',
    '/job_architecture/job_families/{job_family_external_id}/skill_profile',
    variants.getJobFamilySkillProfile?.hierarchy,
  ),
  recorded('a skill in Dutch', 'GET', '/taxonomy/skills/{skill_id}', operations.getSkill),
  recorded(
    'a skill gap',
    'GET',
    '/employees/{employee_external_id}/vacancies/{vacancy_external_id}/gap',
    operations.getSkillGap,
  ),
  recorded(
    'the organisational export',
    'GET',
    '/organisational_units/export',
    operations.exportOrganisationalStructure,
  ),
  recorded(
    'the vocabulary languages',
    'GET',
    '/taxonomy/skills/languages',
    operations.listVocabularyLanguages,
  ),
  recorded(
    'top employees for jobs (4.10)',
    'POST',
    '/job_architecture/export/jobs/matching_employees',
    operations.matchEmployeesForJobs,
  ),
  recorded(
    'top employees for jobs, explained',
    'POST',
    '/job_architecture/export/jobs/matching_employees',
    variants.matchEmployeesForJobs?.explained,
  ),
  recorded(
    'top vacancies for an employee (4.11)',
    'POST',
    '/employees/{employee_external_id}/matching_vacancies',
    operations.matchVacanciesForEmployee,
  ),
  recorded(
    'top vacancies for an employee, explained',
    'POST',
    '/employees/{employee_external_id}/matching_vacancies',
    variants.matchVacanciesForEmployee?.explained,
  ),
  { what: 'the health check', method: 'GET', path: '/healthz', root: true, status: 200 },
]

const BAD: Exchange[] = [
  { what: 'no token', method: 'GET', path: '/employees', token: false, status: 401 },
  { what: 'limit=0', method: 'GET', path: '/employees', query: { limit: '0' }, status: 422 },
  {
    what: 'response_format=fancy',
    method: 'POST',
    path: '/job_architecture/export/jobs/matching_employees',
    query: { response_format: 'fancy' },
    body: { filters: [], weights: [] },
    status: 422,
  },
  {
    what: 'a company with a field it does not have',
    method: 'POST',
    path: '/companies',
    body: { colour: 'red' },
    status: 400,
  },
  {
    what: 'include=everything on the organisational export (4.6 lists 400)',
    method: 'GET',
    path: '/organisational_units/export',
    query: { include: 'everything' },
    status: 400,
  },
  { what: 'a region that does not exist', method: 'GET', path: '/employees', root: true, status: 404 },
  {
    what: 'a region that does not exist, without a token',
    method: 'GET',
    path: '/employees',
    root: true,
    token: false,
    status: 401,
  },
  {
    what: 'a token request of another grant',
    method: 'POST',
    path: '/oauth/token',
    root: true,
    form: 'grant_type=password',
    status: 400,
  },
]

describe('the mock and the server', () => {
  const temp = tempDir('skillhouse-mock-contract-')
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let mock: RunningMock
  let token = ''
  let client = { id: '', secret: '' }

  beforeAll(async () => {
    const starting = startMock({ port: 0, host: '127.0.0.1' })
    starting.catch(() => undefined)
    const demo = await runDemo({ dataDir, out: join(temp.dir, 'out'), asOf: DEMO_AS_OF })
    client = { id: demo.created?.client_id ?? '', secret: demo.created?.client_secret ?? '' }
    server = await startTestServer(dataDir, { deriveDelayMs: 3_600_000, deriveMaxDelayMs: 3_600_000 })
    token = await tokenFor(dataDir, 'demo')
    mock = await starting
  }, 300_000)
  afterAll(async () => {
    await mock?.stop()
    await server?.close()
    temp.cleanup()
  })

  async function both(exchange: Exchange) {
    const send = (origin: string, bearer: string) => {
      const search = new URLSearchParams()
      for (const [name, value] of Object.entries(exchange.query ?? {}))
        for (const one of Array.isArray(value) ? value : [value]) search.append(name, one)
      const below = exchange.root
        ? exchange.path.startsWith('/oauth') || exchange.path.startsWith('/healthz')
          ? exchange.path
          : `/demo/xx${exchange.path}`
        : `/demo/eu${exchange.path}`
      return call(`${origin}${below}${search.size ? `?${search}` : ''}`, {
        method: exchange.method,
        ...(exchange.token === false ? {} : { token: bearer }),
        ...(exchange.form !== undefined
          ? { body: exchange.form, headers: { 'content-type': 'application/x-www-form-urlencoded' } }
          : exchange.body !== undefined
            ? { body: exchange.body }
            : {}),
      })
    }
    return { fromMock: await send(mock.url, 'any-token'), fromServer: await send(server.url, token) }
  }

  it.each(GOOD)('answer $what alike', async (exchange) => {
    const { fromMock, fromServer } = await both(exchange)
    expect(fromServer.status, fromServer.text.slice(0, 500)).toBe(exchange.status)
    expect(fromMock.status, fromMock.text.slice(0, 500)).toBe(exchange.status)
    expect(shapeOf(fromMock.json)).toEqual(shapeOf(fromServer.json))
  })

  it('answer a token request alike: a JWT valid for an hour', async () => {
    const form = (id: string, secret: string) =>
      `grant_type=client_credentials&client_id=${encodeURIComponent(id)}&client_secret=${encodeURIComponent(secret)}`
    const headers = { 'content-type': 'application/x-www-form-urlencoded' }
    const fromServer = await call(`${server.url}/oauth/token`, {
      method: 'POST',
      headers,
      body: form(client.id, client.secret),
    })
    const fromMock = await call(`${mock.url}/oauth/token`, {
      method: 'POST',
      headers,
      body: form('any', 'any'),
    })
    expect(fromServer.status, fromServer.text).toBe(200)
    expect(fromMock.status, fromMock.text).toBe(200)
    expect(shapeOf(fromMock.json)).toEqual(shapeOf(fromServer.json))
    const parts = (answer: typeof fromMock) => {
      const body = answer.json as { access_token: string; expires_in: number }
      const claims = JSON.parse(
        Buffer.from(body.access_token.split('.')[1] ?? '', 'base64url').toString('utf8'),
      )
      return {
        expires_in: body.expires_in,
        claims: shapeOf(claims),
        segments: body.access_token.split('.').length,
      }
    }
    expect(parts(fromMock)).toEqual(parts(fromServer))
  })

  it.each(BAD)('refuse $what alike', async (exchange) => {
    const { fromMock, fromServer } = await both(exchange)
    expect(fromServer.status, fromServer.text.slice(0, 500)).toBe(exchange.status)
    expect(fromMock.status, fromMock.text.slice(0, 500)).toBe(exchange.status)
    if (exchange.status !== 401) expect(shapeOf(fromMock.json)).toEqual(shapeOf(fromServer.json))
  })
})
