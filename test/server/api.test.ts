import { spawn } from 'node:child_process'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportOrganisation, orgExportJson } from '../../src/analytics/org-export.js'
import { skillGap } from '../../src/analytics/skill-gap.js'
import { matchJobs } from '../../src/matching/match-jobs.js'
import { matchVacancies } from '../../src/matching/match-vacancies.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import type { LogEntry } from '../../src/server/request-log.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { tenantDatabaseFile } from '../../src/tenants/data-directory.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createAnalyticsTenant } from '../analytics/analytics-tenant.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { type ApiAnswer, call, errorTitles, startTestServer, tokenFor } from './server-helpers.js'

function expectError(answer: ApiAnswer, status: number, description?: string | RegExp) {
  expect(answer.status, answer.text).toBe(status)
  expect(answer.headers.get('content-type')).toBe('application/json')
  expect(errorTitles(answer).every((title) => title.startsWith(`${status} `))).toBe(true)
  if (description !== undefined) {
    const texts = (answer.json as { description: string }[]).map((entry) => entry.description).join(' | ')
    if (typeof description === 'string') expect(texts).toContain(description)
    else expect(texts).toMatch(description)
  }
}

describe('the HTTP API of one tenant', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  const logs: LogEntry[] = []
  let server: RunningServer
  let base: string
  let token: string
  let expectedTree: string
  let expectedGap: string
  let expectedJobMatches: string
  let expectedVacancyMatches: string

  beforeAll(async () => {
    const tenant = await createAnalyticsTenant(dataDir)
    // Derived first, as the server's worker derives a tenant it opens: the answers below are of
    // the derived state, which the worker then finds unchanged.
    await deriveProfiles({ tenant })
    expectedTree = orgExportJson(
      await exportOrganisation(tenant, { include: ['low_data_availability_flag'] }),
    )
    expectedGap = JSON.stringify(await skillGap(tenant, 'e-deep-1', 'vac-1', { vocab_language: 'nl' }))
    expectedJobMatches = JSON.stringify(
      await matchJobs(
        tenant,
        { filters: [], weights: [], score_min_threshold: 0 },
        { response_format: 'explained' },
      ),
    )
    expectedVacancyMatches = JSON.stringify(
      await matchVacancies(tenant, 'e-deep-1', {}, { min_score: 0, limit: 5 }),
    )
    tenant.database.close()
    ;(await createOpenTenant(dataDir, 'held')).database.close()
    server = await startTestServer(dataDir, { logs })
    base = `${server.url}/acme/eu`
    token = await tokenFor(dataDir, 'acme')
  }, 120_000)
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(`${base}${path}`, { method: 'POST', token, body, headers })
  const get = (path: string) => call(`${base}${path}`, { token })

  describe('4.10 and 4.11 matching', () => {
    it('answers the bytes of the library functions the match commands call', async () => {
      const jobs = await post('/job_architecture/export/jobs/matching_employees?response_format=explained', {
        filters: [],
        weights: [],
        score_min_threshold: 0,
      })
      expect(jobs.status, jobs.text).toBe(200)
      expect(jobs.text).toBe(expectedJobMatches)
      const vacancies = await post('/employees/e-deep-1/matching_vacancies?min_score=0&limit=5', {})
      expect(vacancies.status, vacancies.text).toBe(200)
      expect(vacancies.text).toBe(expectedVacancyMatches)
    })

    it('answers 422 naming the field for a range of section 8, and 404 for an unknown employee', async () => {
      expectError(
        await post('/job_architecture/export/jobs/matching_employees', {
          filters: [],
          weights: [],
          limit: 80,
        }),
        422,
        'limit',
      )
      expectError(await post('/employees/e-deep-1/matching_vacancies?limit=500', {}), 422, 'limit')
      expectError(await post('/employees/nobody/matching_vacancies', {}), 404)
    })
  })

  describe('4.1 create domain', () => {
    it('creates a domain with 204 and refuses the same external_id with 409', async () => {
      const created = await post('/taxonomy/domains', { external_id: 'dom-1', domain_name: 'Robotics' })
      expect(created.status).toBe(204)
      expect(created.text).toBe('')
      expectError(
        await post('/taxonomy/domains', { external_id: 'dom-1', domain_name: 'Again' }),
        409,
        "'dom-1' already exists",
      )
      const stored = await get('/taxonomy/domains/dom-1')
      expect(stored.json).toMatchObject({ external_id: 'dom-1', domain_name: 'Robotics' })
    })

    it('answers 400 for malformed JSON, a wrong structure, invalid values and other content (4.1 lists neither 422 nor 415)', async () => {
      expectError(await post('/taxonomy/domains', '{"external_id": '), 400, 'not valid JSON')
      expectError(await post('/taxonomy/domains', { external_id: 'dom-2' }), 400, 'domain_name: is required')
      expectError(await post('/taxonomy/domains', [1, 2]), 400)
      expectError(
        await post('/taxonomy/domains', { external_id: 'dom-2', domain_name: 'X', colour: 'red' }),
        400,
        'colour: is not a field',
      )
      expectError(
        await post('/taxonomy/domains', { external_id: 'dom 2', domain_name: 'X' }),
        400,
        'external_id:',
      )
      expectError(
        await post('/taxonomy/domains', { external_id: 'dom-2', domain_name: '' }),
        400,
        'domain_name:',
      )
      expectError(
        await post('/taxonomy/domains', 'external_id=dom-2', {
          'content-type': 'application/x-www-form-urlencoded',
        }),
        400,
        'application/json',
      )
      expectError(await call(`${base}/taxonomy/domains`, { method: 'POST', token }), 400, 'no body')
    })

    it('answers 405 with Allow for a method the path does not take', async () => {
      const answer = await call(`${base}/taxonomy/domains`, { method: 'DELETE', token })
      expectError(answer, 405)
      expect(answer.headers.get('allow')).toBe('GET, HEAD, POST')
      const literal = await call(`${base}/employees/custom_properties`, { method: 'DELETE', token })
      expectError(literal, 405)
      expect(literal.headers.get('allow')).toBe('GET, HEAD, POST')
      const put = await call(`${base}/employees/e-a`, { method: 'PUT', token })
      expectError(put, 405)
      expect(put.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE')
      const health = await call(`${server.url}/healthz`, { method: 'POST' })
      expectError(health, 405)
      expect(health.headers.get('allow')).toBe('GET, HEAD')
    })

    it('answers HEAD wherever it answers GET, and lists HEAD in Allow exactly there', async () => {
      const head = await call(`${base}/taxonomy/domains`, { method: 'HEAD', token })
      expect(head.status).toBe(200)
      expect(head.text).toBe('')
      const health = await call(`${server.url}/healthz`, { method: 'HEAD' })
      expect(health.status).toBe(200)
      const postOnly = await call(`${base}/taxonomy/changes`, { method: 'HEAD', token })
      expect(postOnly.status).toBe(405)
      expect(postOnly.headers.get('allow')).toBe('POST')
    })

    it('answers 404 for a path that is no endpoint', async () => {
      expectError(await get('/nothing/here'), 404, 'no endpoint')
    })
  })

  describe('4.3 create company and the body limit', () => {
    it('creates a company with 204, 409 on re-create, 400 for a VAT number over 15 characters (4.3 lists no 422)', async () => {
      expect(
        (await post('/companies', { external_id: 'co-1', name: 'Acme NV', vat: 'BE0123456789' })).status,
      ).toBe(204)
      expectError(await post('/companies', { external_id: 'co-1', name: 'Other', vat: 'BE1' }), 409)
      expectError(
        await post('/companies', { external_id: 'co-2', name: 'Long', vat: 'BE01234567890123' }),
        400,
        'vat',
      )
      expectError(
        await post('/companies', {
          external_id: 'co-2',
          name: 'X',
          vat: 'BE1',
          languages: [{ language: 'nl', level: 6 }],
        }),
        400,
        'languages.0.level',
      )
      expect((await get('/companies/co-1')).json).toEqual({
        external_id: 'co-1',
        name: 'Acme NV',
        vat: 'BE0123456789',
      })
    })

    it('answers 413 over the default limit of 1 MiB, and over a configured one', async () => {
      const big = { external_id: 'co-big', name: 'Big', vat: 'BE1', padding: 'x'.repeat(1024 * 1024) }
      expectError(await post('/companies', big), 413, '1048576 bytes')
      const small = await startTestServer(dataDir, { bodyLimit: 64 })
      try {
        const answer = await call(`${small.url}/acme/eu/companies`, {
          method: 'POST',
          token,
          body: { external_id: 'co-small', name: 'A name long enough to pass 64 bytes', vat: 'BE1' },
        })
        expectError(answer, 413, 'limit of 64 bytes')
      } finally {
        await small.close()
      }
    })
  })

  describe('4.4 job change preview', () => {
    it('answers 202 with a change_id, which GET /job_architecture/changes/{change_id} shows', async () => {
      const answer = await post('/job_architecture/changes/preview', {
        change_type: 'add_job_description',
        job_id: 'job-dev',
        context: { sections_to_include: ['summary'] },
      })
      expect(answer.status).toBe(202)
      const { change_id } = answer.json as { change_id: string }
      expect(change_id).toMatch(/^jcp-/)
      const preview = await get(`/job_architecture/changes/${change_id}`)
      expect(preview.status).toBe(200)
      expect(preview.json).toMatchObject({ change_id, job_id: 'job-dev', status: 'previewed' })
      expectError(await get('/job_architecture/changes/jcp-unknown'), 404)
    })

    it('answers 400 for a wrong structure, a bad change_type and an unknown job (4.4 lists only 400)', async () => {
      expectError(
        await post('/job_architecture/changes/preview', {
          change_type: 'add_job_description',
          job_id: 'job-dev',
        }),
        400,
        'context',
      )
      expectError(
        await post('/job_architecture/changes/preview', {
          change_type: 'rename',
          job_id: 'job-dev',
          context: {},
        }),
        400,
        'change_type',
      )
      expectError(
        await post('/job_architecture/changes/preview', {
          change_type: 'add_job_description',
          job_id: 'job-none',
          context: {},
        }),
        400,
        'job-none',
      )
    })
  })

  describe('4.5 skill gap and 4.6 organisational export', () => {
    it('answers the gap as the library computes it, names in the vocabulary language', async () => {
      const answer = await get('/employees/e-deep-1/vacancies/vac-1/gap?vocab_language=nl')
      expect(answer.status).toBe(200)
      expect(answer.text).toBe(expectedGap)
    })

    it('answers 404 naming an unknown employee or vacancy, 422 for an unknown vocabulary language', async () => {
      expectError(await get('/employees/nobody/vacancies/vac-1/gap'), 404, "employee 'nobody'")
      expectError(await get('/employees/e-deep-1/vacancies/nothing/gap'), 404, "vacancy 'nothing'")
      expectError(
        await get('/employees/e-deep-1/vacancies/vac-1/gap?vocab_language=xx'),
        422,
        'vocab_language',
      )
    })

    it('exports the hierarchy with include=low_data_availability_flag as the library writes it', async () => {
      const answer = await get('/organisational_units/export?include=low_data_availability_flag')
      expect(answer.status).toBe(200)
      expect(answer.text).toBe(expectedTree)
      const filtered = await get('/organisational_units/export?skill_id=skl-python')
      // Derived from entities without skill events, no employee holds Python.
      expect(filtered.json).toEqual({ organisational_structure: [] })
      // 4.6 lists 400 for a request that is not right, and neither 404 nor 422.
      expectError(await get('/organisational_units/export?skill_id=skl-nothing'), 400, 'skl-nothing')
      expectError(await get('/organisational_units/export?include=everything'), 400, 'include')
      expectError(await get('/organisational_units/export?external_vendor=vendor_b'), 403, 'not activated')
    })
  })

  describe('4.7 subdomain, 4.8 custom property definitions, 4.9 skill cluster count', () => {
    it('defines custom properties with 204, lists them, and refuses a second definition with 409', async () => {
      expect((await get('/taxonomy/subdomains/custom_properties')).json).toEqual([])
      expect(
        (
          await post('/taxonomy/subdomains/custom_properties', {
            property_name: 'owner',
            property_type: 'text',
          })
        ).status,
      ).toBe(204)
      expect((await get('/taxonomy/subdomains/custom_properties')).json).toEqual([
        { property_name: 'owner', property_type: 'text' },
      ])
      expectError(
        await post('/taxonomy/subdomains/custom_properties', {
          property_name: 'owner',
          property_type: 'number',
        }),
        409,
      )
      expectError(
        await post('/employees/custom_properties', { property_name: 'a__b', property_type: 'text' }),
        422,
        '__',
      )
      expectError(
        await post('/employees/custom_properties', { property_name: 'grade', property_type: 'integer' }),
        422,
        'property_type',
      )
      expectError(
        await post('/employees/custom_properties', { property_name: 'grade' }),
        400,
        'property_type',
      )
    })

    it('shows a subdomain, with its custom properties only when include=custom_properties', async () => {
      expect(
        (await post('/taxonomy/domains', { external_id: 'dom-sub', domain_name: 'Parent' })).status,
      ).toBe(204)
      const created = await post('/taxonomy/subdomains', {
        external_id: 'sub-1',
        domain_id: 'dom-sub',
        subdomain_name: 'Child',
        custom_properties: { owner: 'Ops' },
      })
      expect(created.status).toBe(204)
      const plain = (await get('/taxonomy/subdomains/sub-1')).json as Record<string, unknown>
      expect(plain).toMatchObject({ external_id: 'sub-1', domain_id: 'dom-sub', subdomain_name: 'Child' })
      expect(plain.last_updated).toMatch(/Z$/)
      expect(plain).not.toHaveProperty('custom_properties')
      const full = (await get('/taxonomy/subdomains/sub-1?include=custom_properties')).json
      expect(full).toMatchObject({ custom_properties: { owner: 'Ops' } })
      expectError(await get('/taxonomy/subdomains/sub-none'), 404)
      expectError(await get('/taxonomy/subdomains/sub-1?include=everything'), 422, 'include')
      // The server reads a level from memory while the data holds: a change is seen at once.
      const renamed = await call(`${base}/taxonomy/subdomains/sub-1`, {
        method: 'PATCH',
        token,
        body: { subdomain_name: 'Renamed' },
      })
      expect(renamed.status).toBe(204)
      expect((await get('/taxonomy/subdomains/sub-1')).json).toMatchObject({ subdomain_name: 'Renamed' })
      expect((await call(`${base}/taxonomy/subdomains/sub-1`, { method: 'DELETE', token })).status).toBe(204)
      expectError(await get('/taxonomy/subdomains/sub-1'), 404)
      expectError(
        await post('/taxonomy/subdomains', {
          external_id: 'sub-2',
          domain_id: 'dom-none',
          subdomain_name: 'X',
        }),
        404,
        'dom-none',
      )
    })

    it('counts skill clusters with a Deprecation header', async () => {
      const answer = await get('/skill_clusters/metrics/count')
      expect(answer.status).toBe(200)
      expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/)
      expect(answer.json).toMatchObject({
        entity_type: 'SkillCluster',
        entity_id: 'acme',
        metric_name: 'count',
      })
      expect((answer.json as { metric_value: number }).metric_value).toBeGreaterThan(0)
    })
  })

  describe('4.13 endpoints', () => {
    it('shows skill profiles of employees, jobs and courses; 404 for unknown ones', async () => {
      const employee = await get('/employees/e-deep-1/skill_profile?vocab_language=de')
      expect(employee.status).toBe(200)
      expect(employee.json).toMatchObject({ external_id: 'e-deep-1', external_vendor: 'vendor_default' })
      const job = await get('/job_architecture/jobs/job-dev/skill_profile')
      expect((job.json as { skills: unknown[] }).skills.length).toBeGreaterThan(0)
      expectError(await get('/courses/none/skill_profile'), 404, "course 'none'")
      const family = await get(
        '/job_architecture/job_families/jf-eng/skill_profile?include=proficiency_level',
      )
      expect(family.json).toMatchObject({ external_id: 'jf-eng' })
      expectError(await get('/job_architecture/job_families/jf-none/skill_profile'), 404, 'jf-none')
      expectError(await get('/job_architecture/job_families/jf-eng/skill_profile?format=tree'), 422, 'format')
      expectError(
        await get('/employees/e-deep-1/skill_profile?external_vendor=vendor_x'),
        422,
        'external_vendor',
      )
    })

    it('shows a skill by vendor, the languages, and the taxonomy changes', async () => {
      const skill = await get('/taxonomy/skills/skl-python?external_vendor=vendor_default')
      expect(skill.json).toMatchObject({ external_id: 'skl-python', skill_name: 'Python' })
      expectError(await get('/taxonomy/skills/skl-nothing'), 404)
      expectError(await get('/taxonomy/skills/skl-python?external_vendor=vendor_b'), 403, 'not activated')
      const languages = (await get('/taxonomy/skills/languages')).json as {
        vendors: { external_vendor: string }[]
      }
      expect(languages.vendors.map((vendor) => vendor.external_vendor)).toEqual([
        'vendor_default',
        'vendor_a',
        'vendor_b',
      ])
      const changes = await post('/taxonomy/changes', { operation_type: 'domain_created' })
      const page = changes.json as { records: { entity_external_id: string }[]; has_next: boolean }
      expect(page.records.map((record) => record.entity_external_id)).toContain('dom-1')
      const all = await call(`${base}/taxonomy/changes`, { method: 'POST', token })
      expect(all.status).toBe(200)
      expectError(await post('/taxonomy/changes', { operation_type: 'everything' }), 422, 'operation_type')
    })
  })

  describe('the resource pattern', () => {
    it('creates, reads, changes, lists and deletes an organisational unit and an employee', async () => {
      expect(
        (await post('/organisational_units', { external_id: 'ou-new', name: 'New', parent_id: 'ou-b' }))
          .status,
      ).toBe(204)
      expectError(await post('/organisational_units', { external_id: 'ou-new', name: 'New' }), 409)
      expect(
        (
          await post('/employees', {
            external_id: 'e-new',
            first_name: 'Ada',
            organisational_unit_id: 'ou-new',
          })
        ).status,
      ).toBe(204)
      expect((await get('/employees/e-new')).json).toEqual({
        external_id: 'e-new',
        first_name: 'Ada',
        organisational_unit_id: 'ou-new',
      })
      const patched = await call(`${base}/employees/e-new`, {
        method: 'PATCH',
        token,
        body: { last_name: 'Lovelace', first_name: null },
      })
      expect(patched.status).toBe(204)
      expect((await get('/employees/e-new')).json).toEqual({
        external_id: 'e-new',
        organisational_unit_id: 'ou-new',
        last_name: 'Lovelace',
      })
      expectError(
        await call(`${base}/organisational_units/ou-new`, { method: 'DELETE', token }),
        409,
        'e-new',
      )
      expect((await call(`${base}/employees/e-new`, { method: 'DELETE', token })).status).toBe(204)
      expectError(await get('/employees/e-new'), 404)
      expect((await call(`${base}/organisational_units/ou-new`, { method: 'DELETE', token })).status).toBe(
        204,
      )
    })

    it('pages a collection in external_id order', async () => {
      const first = (await get('/organisational_units?limit=4')).json as {
        records: { external_id: string }[]
        has_next: boolean
        next_starting_after: string
      }
      expect(first.records.map((record) => record.external_id)).toEqual([
        'ou-a',
        'ou-a1',
        'ou-a1x',
        'ou-a1x1',
      ])
      expect(first).toMatchObject({ has_next: true, next_starting_after: 'ou-a1x1' })
      const rest = (await get(`/organisational_units?limit=100&starting_after=${first.next_starting_after}`))
        .json as {
        records: unknown[]
        has_next: boolean
        next_starting_after: string | null
      }
      expect(rest.records).toHaveLength(6)
      expect(rest).toMatchObject({ has_next: false, next_starting_after: null })
      expectError(await get('/organisational_units?limit=0'), 422, 'query parameter limit')
    })

    it('checks references and the hierarchy as ingest does: 404 for an unknown unit, 422 for a cycle', async () => {
      expectError(
        await post('/employees', { external_id: 'e-x', organisational_unit_id: 'ou-none' }),
        404,
        "'ou-none'",
      )
      expectError(
        await post('/organisational_units', { external_id: 'ou-x', name: 'X', parent_id: 'ou-none' }),
        404,
      )
      expectError(
        await call(`${base}/organisational_units/ou-a`, {
          method: 'PATCH',
          token,
          body: { parent_id: 'ou-a1x1' },
        }),
        422,
        'cycle',
      )
      expectError(
        await call(`${base}/employees/e-a`, { method: 'PATCH', token, body: { external_id: 'e-b' } }),
        422,
        'cannot change',
      )
      expectError(
        await call(`${base}/employees/e-a`, {
          method: 'PATCH',
          token,
          body: { custom_properties: { grade: 3 } },
        }),
        422,
        'grade',
      )
      expectError(await call(`${base}/vacancies/none`, { method: 'PATCH', token, body: { title: 'X' } }), 404)
    })

    it('creates jobs and job families below job_architecture', async () => {
      expect(
        (await post('/job_architecture/job_families', { external_id: 'jf-new', name: 'Data' })).status,
      ).toBe(204)
      expect(
        (
          await post('/job_architecture/jobs', {
            external_id: 'job-new',
            title: 'Data Analyst',
            job_family_id: 'jf-new',
          })
        ).status,
      ).toBe(204)
      expectError(
        await post('/job_architecture/jobs', { external_id: 'job-x', title: 'X', job_family_id: 'jf-none' }),
        404,
      )
      expectError(
        await call(`${base}/job_architecture/job_families/jf-new`, { method: 'DELETE', token }),
        409,
        'job-new',
      )
      expect((await get('/job_architecture/jobs/job-new')).json).toMatchObject({ job_family_id: 'jf-new' })
    })
  })

  describe('operations', () => {
    it('logs one JSON line per request with its request id, method, path, status and duration', async () => {
      const answer = await call(`${base}/employees/e-a`, { token, headers: { 'x-request-id': 'req-42' } })
      expect(answer.headers.get('x-request-id')).toBe('req-42')
      const line = logs.find((entry) => entry.request_id === 'req-42')
      expect(line).toMatchObject({
        msg: 'request',
        method: 'GET',
        path: '/acme/eu/employees/e-a',
        status: 200,
        tenant: 'acme',
      })
      expect(typeof line?.ms).toBe('number')
      const generated = await get('/employees/e-b')
      expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    })

    it.each([
      ['a GET answered afresh', '/taxonomy/skills/languages', {}],
      ['the same GET answered from the cache', '/taxonomy/skills/languages', {}],
      ['a 404 of the route', '/employees/e-ghost', {}],
      ['a 404 of no route', '/no/such/path', {}],
      ['a 405', '/employees/custom_properties', { method: 'DELETE' }],
      ['a 401', '/employees/e-b', { token: 'not-a-token' }],
    ])('sends the request id back with %s', async (_, path, options) => {
      const answer = await call(`${base}${path}`, {
        token,
        ...options,
        headers: { 'x-request-id': 'req-id-back' },
      })
      expect(answer.headers.get('x-request-id')).toBe('req-id-back')
    })

    it('sends the request id back with a 204', async () => {
      const answer = await call(`${base}/employees`, {
        method: 'POST',
        token,
        body: { external_id: 'e-id-back' },
        headers: { 'x-request-id': 'req-204' },
      })
      expect(answer.status).toBe(204)
      expect(answer.headers.get('x-request-id')).toBe('req-204')
    })

    it('sends the request id back from /healthz and /oauth/token', async () => {
      const root = base.replace(/\/acme\/eu$/, '')
      const health = await call(`${root}/healthz`, { headers: { 'x-request-id': 'req-health' } })
      expect(health.headers.get('x-request-id')).toBe('req-health')
      const refused = await call(`${root}/oauth/token`, {
        method: 'POST',
        body: 'grant_type=client_credentials',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': 'req-token' },
      })
      expect(refused.headers.get('x-request-id')).toBe('req-token')
    })

    it('answers 503 while another process holds the tenant database, and serves it once released', async () => {
      const heldToken = await tokenFor(dataDir, 'held')
      const holder = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { DuckDBInstance } = await import('@duckdb/node-api');
           const instance = await DuckDBInstance.create(process.argv[1]);
           await instance.connect();
           process.stdout.write('ready\\n');
           process.stdin.on('data', () => process.exit(0));`,
          tenantDatabaseFile(dataDir, 'held'),
        ],
        { cwd: projectRoot(), stdio: ['pipe', 'pipe', 'inherit'] },
      )
      await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()))
      try {
        const refused = await call(`${server.url}/held/eu/employees`, { token: heldToken })
        expectError(refused, 503, 'in use by another skillhouse process')
      } finally {
        holder.stdin.write('stop\n')
        await new Promise((resolve) => holder.once('exit', resolve))
      }
      expect((await call(`${server.url}/held/eu/employees`, { token: heldToken })).status).toBe(200)
    })
  })
})

describe('the connection limit', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer

  beforeAll(async () => {
    server = await startTestServer(dataDir, { maxConnections: 1 })
  })
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  const open = () =>
    new Promise<Socket>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => resolve(socket))
    })
  const exchange = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (chunk) => {
        text += chunk.toString()
      })
      socket.on('close', () => resolve(text))
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    })

  it('answers the connection over the limit with the plain-text 503 and serves again once one closes', async () => {
    const first = await open()
    const second = await open()
    const refused = await exchange(second)
    expect(refused).toMatch(/^HTTP\/1\.1 503 /)
    expect(refused).toContain('content-type: text/plain')
    expect(refused.endsWith('\r\n\r\nmax connections reached: 1')).toBe(true)
    const closed = new Promise((resolve) => first.once('close', resolve))
    first.end()
    await closed
    // The server sees the close a moment after the client does.
    let answer = ''
    for (let attempt = 0; attempt < 20 && !answer.startsWith('HTTP/1.1 200'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
      answer = await exchange(await open())
    }
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
  })
})
