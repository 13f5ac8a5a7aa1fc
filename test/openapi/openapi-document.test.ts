import SwaggerParser from '@apidevtools/swagger-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRoutes } from '../../src/api/api-routes.js'
import { QUERY_EXAMPLES } from '../../src/mock/prism-mock.js'
import { loadExamples } from '../../src/openapi/examples-file.js'
import { type OpenApiDocument, openApiDocument, routeDocs } from '../../src/openapi/openapi-document.js'
import { CLOUD_EVENT_TYPES, HEALTH_CHECK_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../../src/schemas/index.js'
import { createApp, type SkillhouseApp } from '../../src/server/app.js'
import { silentLogger } from '../../src/server/request-log.js'
import { checkExamples } from '../../tools/example-run.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const METHODS = ['get', 'post', 'patch', 'delete', 'put'] as const

interface Operation {
  operationId: string
  deprecated?: boolean
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; example?: unknown; schema: Record<string, unknown> }[]
  responses: Record<string, { content?: Record<string, { examples?: Record<string, { value: unknown }> }> }>
}

/** Every operation of the document with its method, path and whether it sits below a base URL. */
function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => method in item).map((method) => ({
      method: method.toUpperCase(),
      path,
      root: Array.isArray(item.servers),
      operation: (item as Record<string, unknown>)[method] as Operation,
    })),
  )
}

/** `METHOD path` with every parameter as `{}`, so that `:id` and `{employee_external_id}` compare equal. */
const shape = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}|:[A-Za-z0-9_]+/g, '{}')}`

describe('the OpenAPI document', () => {
  const document = openApiDocument()
  const operations = operationsOf(document)
  const temp = tempDir()
  let app: SkillhouseApp
  beforeAll(async () => {
    app = await createApp({ dataDir: temp.dir, logger: silentLogger })
  })
  afterAll(async () => {
    await app.close()
    temp.cleanup()
  })

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined()
    expect(document.openapi).toBe('3.1.0')
  })

  it('documents every route the server answers and nothing it does not serve', () => {
    // The API reference (the page, its files, the document itself) is served beside the API, not part of it.
    const reference = ['/', '/openapi.json', '/docs', '/docs/:asset', '/:tenant/:region']
    const served = app.app.routes
      .filter((route) => route.method !== 'ALL' && !reference.includes(route.path))
      .map((route) =>
        route.path.startsWith('/:tenant/:region/')
          ? shape(route.method, route.path.slice('/:tenant/:region'.length))
          : `root ${shape(route.method, route.path)}`,
      )
      .sort()
    const documented = operations
      .map(({ method, path, root }) => (root ? `root ${shape(method, path)}` : shape(method, path)))
      .sort()
    expect(
      documented.filter((route) => !served.includes(route)),
      'documented but not served',
    ).toEqual([])
    expect(
      served.filter((route) => !documented.includes(route)),
      'served but not documented',
    ).toEqual([])
    expect(new Set(documented).size).toBe(documented.length)
  })

  it('has a route doc only for routes the server has', () => {
    const routes = new Set(apiRoutes().map((route) => `${route.method} ${route.path}`))
    expect([...routeDocs().keys()].filter((key) => !routes.has(key))).toEqual([])
  })

  it('puts /healthz and /oauth/token at the root and everything else below a tenant base URL', () => {
    expect(document.servers?.[0]?.url).toBe('http://127.0.0.1:8080/{tenant}/{region}')
    expect(Object.keys(document.servers?.[0]?.variables ?? {})).toEqual(['tenant', 'region'])
    const root = operations.filter((entry) => entry.root).map((entry) => shape(entry.method, entry.path))
    expect(root.sort()).toEqual(['GET /healthz', 'POST /oauth/token'])
    expect(document.paths?.['/healthz']?.servers).toEqual([
      { url: 'http://127.0.0.1:8080', description: expect.any(String) },
    ])
  })

  it('asks for the read scope on GETs and the POSTs that only compute, and write on the rest', () => {
    const readPosts = [
      'POST /taxonomy/changes',
      'POST /job_architecture/export/jobs/matching_employees',
      'POST /employees/{employee_external_id}/matching_vacancies',
    ]
    for (const { method, path, root, operation } of operations) {
      if (root) {
        expect(operation.security, `${method} ${path}`).toEqual([])
        continue
      }
      const expected = method === 'GET' || readPosts.includes(`${method} ${path}`) ? 'read' : 'write'
      expect(operation.security, `${method} ${path}`).toEqual([{ oauth2: [expected] }])
    }
    const scheme = document.components?.securitySchemes?.oauth2 as {
      flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } }
    }
    expect(scheme.flows.clientCredentials.tokenUrl).toBe('http://127.0.0.1:8080/oauth/token')
    expect(Object.keys(scheme.flows.clientCredentials.scopes)).toEqual(['read', 'write'])
  })

  it('lists on each endpoint of section 4 the errors the spec gives it, with the spec error body', () => {
    const docs = routeDocs()
    const listing = apiRoutes().filter((route) => route.statuses)
    // 4.1 to 4.9: the routes carry the statuses of their section.
    expect(listing.length).toBeGreaterThanOrEqual(9 + 11)
    for (const route of listing) {
      const key = `${route.method} ${route.path}`
      const operationId = docs.get(key)?.operationId
      const found = operations.find((entry) => entry.operation.operationId === operationId)
      expect(found, key).toBeDefined()
      expect(shape(found?.method ?? '', found?.path ?? '')).toBe(shape(route.method, route.path))
      const documented = Object.keys(found?.operation.responses ?? {})
      for (const status of route.statuses ?? []) expect(documented, key).toContain(String(status))
      // Where the section lists 400, the server answers the 422 and 415 it does not list with 400.
      if (route.statuses?.includes(400)) {
        for (const folded of [422, 415]) {
          if (!route.statuses.includes(folded)) expect(documented, key).not.toContain(String(folded))
        }
      }
    }
    for (const { operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (!/^4/.test(status)) continue
        const own = response as { $ref?: string; content?: Record<string, { schema?: unknown }> }
        const body = own.$ref
          ? (document.components?.responses?.[own.$ref.split('/').pop() ?? ''] as typeof own | undefined)
          : own
        expect(body?.content?.['application/json']?.schema, `${operation.operationId} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        })
      }
    }
    expect(document.components?.schemas?.ErrorBody).toMatchObject({
      type: 'array',
      items: { required: ['title', 'description'] },
    })
  })

  it('types the matches of 4.10 as the records of 4.11 are, with the explanation they share', () => {
    const schemas = document.components?.schemas as Record<string, Record<string, unknown>>
    expect(schemas.EmployeeMatch).toMatchObject({
      properties: {
        employee_id: expect.anything(),
        score: expect.anything(),
        overqualified: { type: 'boolean' },
        critical_skills_match_ratio: { type: 'number', minimum: 0, maximum: 1 },
        explanation: { $ref: '#/components/schemas/MatchExplanation' },
      },
      required: ['employee_id', 'score'],
    })
    expect(JSON.stringify(schemas.EmployeeMatch)).not.toContain('additionalProperties')
    expect(JSON.stringify(schemas.JobMatchingResponse)).toContain('#/components/schemas/EmployeeMatch')
    expect(JSON.stringify(schemas.VacancyMatchingResponse)).toContain('#/components/schemas/MatchExplanation')
    const description = operations.find((entry) => entry.operation.operationId === 'matchEmployeesForJobs')
      ?.operation as unknown as { description: string }
    expect(description.description).toContain('The filters select the employees that are matched')
  })

  it('says what 4.4 and 4.6 answer for an unknown job or skill: a 400, which is all they list', () => {
    for (const operationId of ['previewJobChange', 'exportOrganisationalStructure']) {
      const operation = operations.find((entry) => entry.operation.operationId === operationId)
        ?.operation as unknown as { description: string }
      expect(operation.description, operationId).not.toMatch(/is a 404|404 names/)
      expect(operation.description, operationId).toMatch(/is a 400 naming it/)
    }
  })

  it('has, for every query value the mock turns into Prefer: example=NAME, that named answer on each operation taking the parameter', () => {
    let checked = 0
    for (const { operation } of operations) {
      for (const entry of QUERY_EXAMPLES) {
        if (!operation.parameters?.some((parameter) => parameter.name === entry.parameter)) continue
        const named = operation.responses['200']?.content?.['application/json']?.examples ?? {}
        expect(Object.keys(named), `${operation.operationId} ${entry.parameter}`).toContain(entry.example)
        checked++
      }
    }
    expect(checked).toBe(3)
  })

  it("gives each operation its own examples of 400, 404 and 422, answers of the server to that operation's bad requests", () => {
    const examples = loadExamples()
    let own = 0
    for (const { operation } of operations) {
      for (const status of ['400', '404', '422']) {
        const response = operation.responses[status] as
          | { $ref?: string; content?: Record<string, { examples?: Record<string, { summary?: string }> }> }
          | undefined
        if (!response) continue
        expect(response.$ref, `${operation.operationId} ${status}`).toBeUndefined()
        const example = Object.values(response.content?.['application/json']?.examples ?? {})[0]
        expect(example?.summary, `${operation.operationId} ${status}`).toBe(
          examples?.operation_errors[operation.operationId]?.[status]?.request,
        )
        own++
      }
    }
    expect(own).toBeGreaterThan(200)
  })

  it('marks only the Skill Cluster count (4.9) deprecated', () => {
    const deprecated = operations.filter((entry) => entry.operation.deprecated).map((entry) => entry.path)
    expect(deprecated).toEqual(['/skill_clusters/metrics/count'])
  })

  it('documents each event type of section 6 as a webhook, the same list subscriptions filter on', () => {
    const webhooks = Object.keys(document.webhooks ?? {}).sort()
    expect(webhooks).toEqual(Object.keys(CLOUD_EVENT_TYPES).sort())
    expect(webhooks).toEqual([...WEBHOOK_EVENT_TYPES, HEALTH_CHECK_EVENT_TYPE].sort())
  })

  it('carries the limits of the zod schemas on the parameters', () => {
    const parameter = (operationId: string, name: string) =>
      operations
        .find((entry) => entry.operation.operationId === operationId)
        ?.operation.parameters?.find((candidate) => candidate.name === name)
    expect(parameter('matchVacanciesForEmployee', 'limit')?.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    })
    expect(parameter('matchVacanciesForEmployee', 'min_score')?.schema).toMatchObject({
      type: 'number',
      minimum: 0,
      maximum: 1,
    })
    expect(parameter('listEmployees', 'limit')?.schema).toMatchObject({
      minimum: 1,
      maximum: 1000,
      default: 100,
    })
    expect(parameter('getSubdomain', 'subdomain_external_id')?.schema).toMatchObject({
      minLength: 1,
      maxLength: 100,
      pattern: '^[a-zA-Z0-9_-]+$',
    })
    expect(parameter('createSkillEvent', 'strict')?.schema).toMatchObject({ type: 'boolean', default: false })
  })

  it('gives every GET an example answer and every path parameter an example value', () => {
    for (const { method, path, operation } of operations) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') expect(parameter.example, `${path} ${parameter.name}`).toBeDefined()
      }
      if (method !== 'GET') continue
      const examples = operation.responses['200']?.content?.['application/json']?.examples
      expect(examples?.demo?.value, `${method} ${path}`).toBeDefined()
    }
  })

  it('holds examples that fit the schemas they illustrate', () => {
    const examples = loadExamples()
    expect(examples).toBeDefined()
    expect(() => checkExamples(examples as NonNullable<typeof examples>)).not.toThrow()
  })

  it('is what `skillhouse openapi` writes', async () => {
    const result = await runCli(['openapi'])
    expect(result.exitCode, String(result.stderr)).toBe(0)
    expect(JSON.parse(String(result.stdout))).toEqual(JSON.parse(JSON.stringify(document)))
  })
})
