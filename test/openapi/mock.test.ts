import { createServer } from 'node:net'
import { join } from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import { execa, type ResultPromise } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRoutes } from '../../src/api/api-routes.js'
import { mockDocument } from '../../src/mock/prism-mock.js'
import { openApiDocument } from '../../src/openapi/openapi-document.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { freePort } from '../helpers/ports.js'
import { openPage } from '../report/report-browser.js'

/** Whether something can listen on the port again. */
async function canListen(port: number): Promise<boolean> {
  const server = createServer()
  return new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

const MOCK_OPTIONS = { reject: false, cwd: projectRoot(), env: { NO_COLOR: '1' } } as const

interface GetOperation {
  parameters?: { name: string; in: string; example?: unknown }[]
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }>
}

describe('skillhouse mock', () => {
  const document = openApiDocument()
  let port: number
  let url: string
  let mock: ResultPromise<typeof MOCK_OPTIONS>
  const auth = { authorization: 'Bearer any-token' }
  let banner = ''
  let stderr = ''

  beforeAll(async () => {
    port = await freePort()
    mock = execa('node', [join(projectRoot(), 'bin', 'run.js'), 'mock', '--port', String(port)], MOCK_OPTIONS)
    url = await new Promise<string>((resolve, reject) => {
      mock.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
      })
      mock.stdout?.on('data', (chunk: Buffer) => {
        banner += chunk.toString('utf8')
        const match = /on (http:\/\/\S+)\n(?:.*\n){2}/.exec(banner)
        if (match?.[1]) resolve(match[1])
      })
      void mock.then((result) =>
        reject(new Error(`the mock exited early: ${String(result.stderr).slice(-2000)}`)),
      )
    })
  })

  afterAll(async () => {
    if (mock.exitCode === null) {
      mock.kill('SIGTERM')
      await mock
    }
  })

  it('serves a valid document whose paths spell out the base URL', async () => {
    const served = mockDocument(document)
    await expect(SwaggerParser.validate(structuredClone(served) as never)).resolves.toBeDefined()
    const paths = Object.keys(served.paths ?? {})
    expect(paths).toContain('/{tenant}/{region}/employees/{employee_external_id}/skill_profile')
    expect(paths).toContain('/healthz')
    expect(paths.filter((path) => !path.startsWith('/{tenant}/{region}/')).sort()).toEqual([
      '/healthz',
      '/oauth/token',
    ])
    expect(paths).toHaveLength(Object.keys(document.paths ?? {}).length)
  })

  it('prints the address it listens on', () => {
    expect(url).toBe(`http://127.0.0.1:${port}`)
  })

  it('answers every GET path of the document with its example, below the base URL as serve does', async () => {
    const answered: string[] = []
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      const operation = (item as { get?: GetOperation }).get
      if (!operation) continue
      // /healthz and /oauth/token have a server of their own, at the root; the rest hang below a base URL.
      let path = item.servers ? template : `/demo/eu${template}`
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path')
          path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(parameter.example)))
      }
      const response = await fetch(`${url}${path}`, { headers: auth })
      const body = await response.json()
      expect(response.status, `GET ${path}`).toBeGreaterThanOrEqual(200)
      expect(response.status, `GET ${path}`).toBeLessThan(300)
      expect(body, `GET ${path}`).toEqual(
        operation.responses['200']?.content?.['application/json']?.examples?.demo?.value,
      )
      answered.push(path)
    }
    expect(answered).toContain('/demo/eu/employees/emp-10001/skill_profile')
    expect(answered).toContain('/healthz')
  })

  it('takes any tenant name and region in the base URL, and nothing outside one', async () => {
    const other = await fetch(`${url}/bench/us/taxonomy/skills/languages`, { headers: auth })
    expect(other.status).toBe(200)
    const bare = await fetch(`${url}/taxonomy/skills/languages`, { headers: auth })
    expect(bare.status).toBe(404)
  })

  it('answers a computed POST with its example', async () => {
    const response = await fetch(`${url}/demo/eu/job_architecture/export/jobs/matching_employees`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ filters: [], weights: [] }),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { records: unknown[] }
    expect(body.records.length).toBeGreaterThan(0)
  })

  it('refuses bad parameters with 422', async () => {
    const limit = await fetch(`${url}/demo/eu/employees?limit=0`, { headers: auth })
    expect(limit.status).toBe(422)
    const id = await fetch(`${url}/demo/eu/employees/${encodeURIComponent('not an id!')}`, { headers: auth })
    expect(id.status).toBe(422)
  })

  it('asks for a bearer token with 401', async () => {
    const response = await fetch(`${url}/demo/eu/employees/emp-10001`)
    expect(response.status).toBe(401)
  })

  it('generates an answer from the schema with Prefer: dynamic=true', async () => {
    const operation = document.paths?.['/skill_clusters/metrics/count']?.get as GetOperation
    const example = operation.responses['200']?.content?.['application/json']?.examples?.demo?.value
    const response = await fetch(`${url}/demo/eu/skill_clusters/metrics/count`, {
      headers: { ...auth, prefer: 'dynamic=true' },
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(body).not.toEqual(example)
    expect(body).toMatchObject({ entity_type: 'SkillCluster', metric_name: 'count' })
  })

  it("answers a bad request with the server's error for it, not another operation's", async () => {
    const matching = await fetch(
      `${url}/demo/eu/job_architecture/export/jobs/matching_employees?response_format=fancy`,
      {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ filters: [], weights: [] }),
      },
    )
    expect(matching.status).toBe(422)
    expect(await matching.json()).toEqual([
      {
        title: '422 Unprocessable entity',
        description: expect.stringMatching(
          /response_format: must be one of 'simple', 'explained'; got 'fancy'/,
        ),
      },
    ])
    const limit = await fetch(`${url}/demo/eu/employees?limit=0`, { headers: auth })
    expect(limit.status).toBe(422)
    expect(JSON.stringify(await limit.json())).toMatch(/limit/)
    const company = await fetch(`${url}/demo/eu/companies`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ colour: 'red' }),
    })
    expect(company.status).toBe(400)
    expect(JSON.stringify(await company.json())).toMatch(/vat: is required/)
    const token = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password' }),
    })
    expect(token.status).toBe(400)
    const tokenError = JSON.stringify(await token.json())
    expect(tokenError).toMatch(/grant_type/)
    expect(tokenError).not.toMatch(/external_id|vat/)
  })

  it('answers /oauth/token with a token of the shape the server issues, valid for an hour', async () => {
    const response = await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=any&client_secret=any',
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' })
    const [header, claims, signature] = String(body.access_token).split('.')
    expect(signature).toMatch(/^[\w-]{40,}$/)
    const decode = (part: string | undefined) =>
      JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'))
    expect(decode(header)).toMatchObject({ alg: 'ES256', typ: 'JWT' })
    const payload = decode(claims) as { exp: number; iat: number }
    expect(payload).toMatchObject({ tenant: 'demo', scope: 'read write' })
    expect(payload.exp - payload.iat).toBe(3600)
  })

  it('answers a region that does not exist with 404 once a token is sent, and 401 without one, as serve does', async () => {
    const unknown = await fetch(`${url}/demo/xx/employees`, { headers: auth })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual([
      { title: '404 Not Found', description: expect.stringMatching(/^region 'xx' does not exist/) },
    ])
    expect((await fetch(`${url}/demo/xx/employees`)).status).toBe(401)
  })

  it('answers the explained (4.10, 4.11) and hierarchy (4.12) shapes: by the query, or by Prefer: example=NAME', async () => {
    const post = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${url}/demo/eu${path}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ filters: [], weights: [] }),
      }).then((response) => response.json() as Promise<Record<string, unknown>>)
    const explained = (body: Record<string, unknown>) =>
      JSON.stringify(body).includes('"explanation":{"matched_skills"')
    const jobs = '/job_architecture/export/jobs/matching_employees'
    expect(explained(await post(jobs))).toBe(false)
    expect(explained(await post(`${jobs}?response_format=explained`))).toBe(true)
    expect(explained(await post(jobs, { prefer: 'example=explained' }))).toBe(true)
    expect(explained(await post('/employees/emp-10001/matching_vacancies?response_format=explained'))).toBe(
      true,
    )
    const family = `${url}/demo/eu/job_architecture/job_families/jf-customer-service/skill_profile`
    const list = (await (await fetch(family, { headers: auth })).json()) as Record<string, unknown>
    const hierarchy = (await (await fetch(`${family}?format=hierarchy`, { headers: auth })).json()) as Record<
      string,
      unknown
    >
    const preferred = await (
      await fetch(family, { headers: { ...auth, prefer: 'example=hierarchy' } })
    ).json()
    expect(list).toHaveProperty('skills')
    expect(hierarchy).toHaveProperty('domains')
    expect(hierarchy).not.toHaveProperty('skills')
    expect(preferred).toEqual(hierarchy)
  })

  it("answers what the server refuses in the spec's shape and the server's words, never Prism's", async () => {
    const matching = `${url}/demo/eu/job_architecture/export/jobs/matching_employees`
    const post = (target: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
      fetch(target, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', ...headers },
        body,
      })
    const answers = [
      [await post(matching, '{bad'), 400, /^the request body is not valid JSON/],
      [await post(matching, '{}'), 400, /^filters: is required \(array\)$/],
      [
        await post(`${matching}?limit=2`, JSON.stringify({ filters: [], weights: [] })),
        422,
        /^query parameter limit: is not a parameter of this endpoint .*; limit is a field of the request body$/,
      ],
      [
        await post(matching, 'x', { 'content-type': 'text/plain' }),
        415,
        /content type must be application\/json/,
      ],
      [
        await fetch(`${url}/demo/eu/nothing/here`, { headers: auth }),
        404,
        /^no endpoint \/demo\/eu\/nothing\/here/,
      ],
      [await fetch(`${url}/nothing`), 404, /^no endpoint \/nothing/],
      [
        await fetch(`${url}/demo/eu/employees/custom_properties`, { method: 'DELETE', headers: auth }),
        405,
        /^method DELETE is not allowed/,
      ],
      [await post(matching, new Uint8Array(2 * 1024 * 1024).fill(32)), 413, /larger than the limit/],
    ] as const
    for (const [response, status, description] of answers) {
      expect(response.status, response.url).toBe(status)
      expect(response.headers.get('content-type'), response.url).toBe('application/json')
      const body = (await response.json()) as { title: string; description: string }[]
      expect(body[0]?.title, response.url).toMatch(new RegExp(`^${status} `))
      expect(body[0]?.description, response.url).toMatch(description)
    }
  })

  it("generates dynamic answers within the schemas' ranges", async () => {
    const routes = apiRoutes()
    const schemaOf = (operationId: string) => {
      const schema = routes.find((route) => route.doc.operationId === operationId)?.doc.success.schema
      if (!schema) throw new Error(`no schema for ${operationId}`)
      return schema
    }
    // Every rule but one: Prism makes up the keys of a record (custom property names) without
    // reading the schema's propertyNames, so a made-up name may hold the "__" that names refuse.
    const issuesOf = (result: { error?: { issues: { code: string }[] } }) =>
      (result.error?.issues ?? []).filter((issue) => issue.code !== 'invalid_key')
    for (let attempt = 0; attempt < 5; attempt++) {
      const vacancies = await fetch(
        `${url}/demo/eu/employees/emp-10001/matching_vacancies?include=location&include=score_breakdown&response_format=explained`,
        {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', prefer: 'dynamic=true' },
          body: '{}',
        },
      )
      expect(vacancies.status).toBe(200)
      const matches = schemaOf('matchVacanciesForEmployee').safeParse(await vacancies.json())
      expect(issuesOf(matches)).toEqual([])
      const profile = await fetch(`${url}/demo/eu/employees/emp-10001/skill_profile`, {
        headers: { ...auth, prefer: 'dynamic=true' },
      })
      const parsed = schemaOf('getEmployeeSkillProfile').safeParse(await profile.json())
      expect(issuesOf(parsed)).toEqual([])
    }
  })

  it("serves the API reference and its document, and says where in one banner without Prism's log", async () => {
    expect(banner).toContain(`API reference  ${url}/docs`)
    expect(stderr).not.toMatch(/\[CLI\]|GET |POST /)
    const baseUrl = await fetch(`${url}/demo/eu`, { redirect: 'manual' })
    expect(baseUrl.status).toBe(302)
    expect(baseUrl.headers.get('location')).toBe('/docs')
    const page = await fetch(`${url}/docs`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('swagger-ui-bundle.js')
    const served = await (await fetch(`${url}/openapi.json`)).json()
    expect(served).toEqual(JSON.parse(JSON.stringify(mockDocument(document))))
    const opened = await openPage(`${url}/docs`)
    try {
      await opened.page.waitForSelector('.opblock', { timeout: 30_000 })
      const shown = await opened.page.$$eval('.opblock', (blocks) => blocks.length)
      const operations =
        Object.values(mockDocument(document).paths ?? {}).flatMap((item) =>
          ['get', 'post', 'patch', 'delete', 'put'].filter((method) => method in (item as object)),
        ).length + Object.keys(mockDocument(document).webhooks ?? {}).length
      expect(shown).toBe(operations)
      expect(
        opened.requests.filter((request) => !request.startsWith(url) && !request.startsWith('data:')),
      ).toEqual([])
      expect(opened.errors).toEqual([])
    } finally {
      await opened.close()
    }
  })

  it('stops on SIGTERM and frees its port', async () => {
    mock.kill('SIGTERM')
    const result = await mock
    expect(result.exitCode, String(result.stderr).slice(-2000)).toBe(0)
    expect(await canListen(port)).toBe(true)
  })
})
