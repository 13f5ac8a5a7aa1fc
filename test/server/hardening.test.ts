import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../src/server/start-server.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { type ApiAnswer, call, errorTitles, startTestServer, tokenFor } from './server-helpers.js'

/**
 * Requests a review of the HTTP server found answered wrongly (500s, a 405 that listed the method
 * it refused, text stored other than sent, records no path could reach, repeated or misleading
 * messages, one read per skill of a page): each test says what the spec (or the HTTP standard)
 * requires and failed before its fix, except the last, which keeps the faster page read right.
 */

/** The spec's error body (section 7): an array of {title, description}, every title of `status`. */
function expectSpecError(answer: ApiAnswer, statuses: number[]) {
  expect(statuses, `${answer.status}: ${answer.text}`).toContain(answer.status)
  expect(Array.isArray(answer.json), answer.text).toBe(true)
  for (const title of errorTitles(answer)) expect(title.startsWith(`${answer.status} `)).toBe(true)
}

const descriptions = (answer: ApiAnswer) =>
  ((answer.json as { description: string }[] | undefined) ?? []).map((entry) => entry.description)

describe('review findings: the HTTP server', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let base: string
  let token: string

  beforeAll(async () => {
    for (const name of ['acme', 'beta']) (await createOpenTenant(dataDir, name)).database.close()
    server = await startTestServer(dataDir)
    base = `${server.url}/acme/eu`
    token = await tokenFor(dataDir, 'acme')
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    temp.cleanup()
  })

  const send = (method: string, path: string, body?: unknown) =>
    call(`${base}${path}`, { method, token, ...(body !== undefined ? { body } : {}) })

  // Security / robustness. A tenant or region that does not exist answers 404 with a spec error
  // body (docs/api.md). TenantRegistry.find looks the name up as a plain object key, so names of
  // Object.prototype members resolve to a function or the prototype and TenantPool.resolve throws
  // a TypeError: any unauthenticated client gets a 500 (and an error-level log line) at will.
  it('answers 404 with the spec body, not 500, for tenant names that are Object.prototype members (401 without a token)', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expectSpecError(await call(`${server.url}/${name}/eu/employees`, { token }), [404])
      expectSpecError(await call(`${server.url}/${name}/eu/employees`), [401])
    }
  })

  // Spec conformance (405). RFC 9110 15.5.6: 405 means the target resource does not support the
  // method, and Allow lists the methods it does support. For a path with a trailing slash the
  // router finds no route, and the notFound handler (whose patterns accept an optional trailing
  // slash) answers 405 with an Allow that lists the very method that was refused.
  it('never answers 405 with an Allow header that lists the method it refused (trailing slash)', async () => {
    await send('POST', '/employees', { external_id: 'slash-1' })
    const probes: [string, string][] = [
      ['GET', '/employees/'],
      ['GET', '/employees/slash-1/'],
      ['DELETE', '/employees/slash-1/'],
      ['GET', '/organisational_units/export/'],
    ]
    for (const [method, path] of probes) {
      const answer = await send(method, path)
      const allow = answer.headers.get('allow')?.split(', ') ?? []
      expect(
        answer.status === 405 && allow.includes(method),
        `${method} ${path}: ${answer.status} Allow: ${allow.join(', ')}`,
      ).toBe(false)
    }
  })

  // Robustness. Section 7: a body not structured correctly is a 400 (a value out of range a 422).
  // 4.10 and 4.11 build their messages with `shown(input)` (src/matching/request-issues.ts), which
  // JSON.stringifies the value sent: a deeply nested array (20 KB, far below the 1 MiB limit)
  // overflows the stack and the request answers 500. Every other body endpoint answers 400.
  it('answers a deeply nested JSON body on 4.10 and 4.11 with 400, not 500', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`
    for (const path of [
      '/job_architecture/export/jobs/matching_employees',
      '/employees/x/matching_vacancies',
    ]) {
      const whole = await send('POST', path, deep)
      expectSpecError(whole, [400])
      const field = await send('POST', path, `{"filters":${deep},"weights":[]}`)
      expectSpecError(field, [400])
    }
  })

  // Robustness / conformance. Section 7: invalid field data is a 422 (a 400 on 4.1, which lists no
  // 422). An unpaired surrogate escape ("\udc00") is refused with a 422 naming the field on every
  // entity of the resource pattern and on skill events (src/records/row-check.ts), but the taxonomy
  // create operations pass it to DuckDB, whose JSON cast of the change details fails: 500.
  it('answers a taxonomy name holding an unpaired surrogate with 400/422 naming the field, not 500', async () => {
    const bodies: [string, string, string][] = [
      ['/taxonomy/domains', '{"external_id":"sur-dom","domain_name":"\\udc00"}', 'domain_name'],
      [
        '/taxonomy/subdomains',
        '{"external_id":"sur-sub","domain_id":"dom-sales","subdomain_name":"\\udc00"}',
        'subdomain_name',
      ],
      [
        '/taxonomy/skill_clusters',
        '{"external_id":"sur-clu","subdomain_id":"sub-account-management","skill_cluster_name":"\\udc00"}',
        'skill_cluster_name',
      ],
      [
        '/taxonomy/skills',
        '{"external_id":"sur-skl","skill_name":"\\udc00","skill_type":"hard_skill","skill_cluster_id":"clu-account-management"}',
        'skill_name',
      ],
    ]
    for (const [path, body, field] of bodies) {
      const answer = await send('POST', path, body)
      expectSpecError(answer, [400, 422])
      expect(descriptions(answer).join(' | ')).toContain(field)
    }
  })

  // Data integrity. The same unpaired surrogate in a PATCH of a domain, in a skill description or
  // in a custom property definition's name is not refused: it is stored silently replaced by
  // U+FFFD, so the record read back is not what the client sent and was acknowledged with 204.
  // Entities refuse it with 422 (src/records/row-check.ts); these paths should too.
  it('refuses an unpaired surrogate in a taxonomy PATCH, a skill description and a property name instead of storing U+FFFD', async () => {
    expect(
      (await send('POST', '/taxonomy/domains', { external_id: 'sur-patch', domain_name: 'Fine' })).status,
    ).toBe(204)
    const patch = await send('PATCH', '/taxonomy/domains/sur-patch', '{"domain_name":"\\udc00"}')
    expectSpecError(patch, [400, 422])
    const skill = await send(
      'POST',
      '/taxonomy/skills',
      '{"external_id":"sur-desc","skill_name":"Fine","skill_type":"hard_skill","skill_cluster_id":"clu-account-management","description":"\\udc00"}',
    )
    expectSpecError(skill, [400, 422])
    const definition = await send(
      'POST',
      '/employees/custom_properties',
      '{"property_name":"p\\udc00","property_type":"text"}',
    )
    expectSpecError(definition, [400, 422])
  })

  // Data reachability. ExternalId (2.1) allows any [a-zA-Z0-9_-]{1,100}, and POST /organisational_units
  // accepts "export" (204), but GET/PATCH/DELETE /organisational_units/export are the org export
  // (4.6) or a 405: the unit can never be read, changed or deleted over the API. The same holds for
  // an employee (or any 2.9 entity type) called "custom_properties" and a skill called "languages".
  // Either the create must refuse such an id (422 naming external_id), or the record must be reachable.
  it('does not create records that no GET, PATCH or DELETE can reach (ids equal to fixed sub-paths)', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['/organisational_units', { external_id: 'export', name: 'Unit named export' }],
      ['/employees', { external_id: 'custom_properties' }],
    ]
    for (const [collection, body] of cases) {
      const created = await send('POST', collection, body)
      if (created.status === 204) {
        const removed = await send('DELETE', `${collection}/${String(body.external_id)}`)
        expect(
          removed.status,
          `${collection}/${String(body.external_id)} was created but: ${removed.text}`,
        ).toBe(204)
      } else {
        expectSpecError(created, [400, 422])
      }
    }
  })

  // Error bodies. Section 7 / STYLE.md: one description per problem. `limit: 1e308` yields the
  // same description twice (the int check and the range check each report it).
  it('does not repeat the same error description for one bad value', async () => {
    const answer = await send(
      'POST',
      '/job_architecture/export/jobs/matching_employees',
      '{"filters":[],"weights":[],"limit":1e308}',
    )
    expectSpecError(answer, [422])
    const list = descriptions(answer)
    expect(new Set(list).size, list.join(' | ')).toBe(list.length)
  })

  // Error messages. STYLE.md: the description names the field and what would be valid. A number
  // too large for a double (1e309 parses as Infinity) is answered "limit: must be a number; got
  // null": the client sent a number, not null, and is not told the valid range (1 to 50, section 8).
  it('describes an over-large numeric limit as out of its range, not as "got null"', async () => {
    const answer = await send(
      'POST',
      '/job_architecture/export/jobs/matching_employees',
      '{"filters":[],"weights":[],"limit":1e309}',
    )
    expectSpecError(answer, [400, 422])
    const text = descriptions(answer).join(' | ')
    expect(text).not.toContain('got null')
    expect(text).toMatch(/limit: .*1 and 50/)
  })

  // Validation. 4.2: 422 for "invalid field data such as an invalid date". A working history whose
  // end_date lies before its start_date was acknowledged with 204.
  it('refuses a working history whose end_date is before its start_date with 422 naming end_date', async () => {
    expect((await send('POST', '/employees', { external_id: 'emp-dates' })).status).toBe(204)
    const answer = await send('POST', '/employees/emp-dates/skill_events', {
      external_id: 'ev-backwards',
      event_type: 'working_history',
      timestamp: '2024-01-01',
      content: {
        job_title: 'Developer',
        start_date: '2021-01-01',
        end_date: '2020-01-01',
        company: 'Initech',
        job_description: 'python developer',
      },
      source: 'hr-system',
    })
    expectSpecError(answer, [422])
    expect(descriptions(answer).join(' | ')).toContain('end_date')
  })

  // Robustness. A page of skills was read one skill at a time (the list of
  // src/taxonomy/taxonomy-lists.ts): a page of 1,000 took about 4 s, holding the tenant's
  // writes meanwhile. It is now three reads; each record must still be what its GET answers.
  it('answers a page of skills with each skill as its GET answers it', async () => {
    const page = await send('GET', '/taxonomy/skills?limit=1000&vocab_language=fr&include=custom_properties')
    expect(page.status).toBe(200)
    const records = (page.json as { records: { external_id: string }[] }).records
    expect(records.length).toBe(1000)
    const ids = records.map((record) => record.external_id)
    expect(ids).toEqual([...ids].sort())
    for (const index of [0, 1, 17, 500, 999]) {
      const record = records[index] as { external_id: string }
      const one = await send(
        'GET',
        `/taxonomy/skills/${record.external_id}?vocab_language=fr&include=custom_properties`,
      )
      expect(one.status).toBe(200)
      expect(record).toEqual(one.json)
    }
    const missing = await send('GET', '/taxonomy/skills/no-such-skill')
    expectSpecError(missing, [404])
  })
})
