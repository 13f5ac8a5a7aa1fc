import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportJWK, generateKeyPair } from 'jose'
import type { z } from 'zod'
import { apiRoutes } from '../src/api/api-routes.js'
import { mintLocalToken } from '../src/auth/oauth-clients.js'
import { readEvents } from '../src/events/outbox.js'
import type { ErrorExample, ExamplesFile, OperationExample } from '../src/openapi/examples-file.js'
import { answeredErrors, documentPath, routeDocs } from '../src/openapi/openapi-document.js'
import { runDemo } from '../src/pipeline/demo-tenant.js'
import { CLOUD_EVENT_TYPES, type CloudEventType, cloudEventOf } from '../src/schemas/events.js'
import { ErrorBody, TokenResponse } from '../src/schemas/server.js'
import { silentLogger } from '../src/server/request-log.js'
import { type RunningServer, startServer } from '../src/server/start-server.js'
import { DEFAULT_SERVER_ORIGIN, withTenant } from '../src/tenants/tenant-service.js'

/**
 * Collects the examples of the OpenAPI document by running our own code: the `demo` tenant is
 * created from fixtures/demo as `skillhouse demo` creates it, the nightly job runs on it (ingest,
 * derive, match) as of the demo's own date, then a real server on a free port answers a fixed
 * sequence of requests, each built from earlier answers (the first employee, that employee's
 * best vacancy, …). Every answer is checked with the route's zod schema.
 *
 * The run is repeatable: the same code and fixtures give the same file. What cannot repeat is
 * replaced, and nothing else: times set by the clock (keys in VOLATILE_TIME_KEYS), random ids
 * (CloudEvent UUIDs, taxonomy change ids `chg-…`, webhook ids `wh_…`, numbered in order of first
 * appearance) and the port of the local webhook consumer.
 */

/** The demo tenant's "today" (fixtures/demo-source/make-demo.mjs, TODAY): derivation runs as of it. */
export const DEMO_AS_OF = '2026-11-20'
const FIXED_TIME = `${DEMO_AS_OF}T09:00:00.000Z`
const CONSUMER_ORIGIN = 'http://127.0.0.1:9000'
const VOLATILE_TIME_KEYS = new Set([
  'computed_at',
  'created_at',
  'delivered_at',
  'last_update',
  'last_updated',
  'next_attempt_at',
  'time',
  'updated_at',
])

interface Call {
  params?: Record<string, string>
  query?: Record<string, string | string[]>
  body?: unknown
}

interface Operation {
  method: string
  /** The document's path, `{param}` form. */
  path: string
  /** Below the server itself rather than below the tenant's base URL. */
  root: boolean
  status: number
  schema?: z.ZodType
  /** Its path and query parameters, whether it takes a body, and the input errors it documents. */
  params: string[]
  query: string[]
  body: boolean
  inputErrors: number[]
}

/** The statuses of bad requests each operation gets an example answer of its own for. */
const INPUT_ERRORS = [400, 404, 422]

/** Every documented operation by operationId, as the document names it. */
function operationIndex(): Map<string, Operation> {
  const docs = routeDocs()
  const index = new Map<string, Operation>()
  for (const route of apiRoutes()) {
    const doc = docs.get(`${route.method} ${route.path}`)
    if (!doc) continue
    index.set(doc.operationId, {
      method: route.method,
      path: documentPath(route.path, doc.params),
      root: false,
      status: doc.success.status,
      ...(doc.success.schema ? { schema: doc.success.schema } : {}),
      params: Object.keys(doc.params?.shape ?? {}),
      query: Object.keys(doc.query?.shape ?? {}),
      body: doc.body !== undefined,
      inputErrors: answeredErrors(route, doc).filter((status) => INPUT_ERRORS.includes(status)),
    })
  }
  const root = { root: true, params: [], query: [] }
  index.set('getHealth', {
    method: 'GET',
    path: '/healthz',
    status: 200,
    body: false,
    inputErrors: [],
    ...root,
  })
  index.set('issueToken', {
    method: 'POST',
    path: '/oauth/token',
    status: 200,
    schema: TokenResponse,
    body: true,
    inputErrors: [400, 404],
    ...root,
  })
  return index
}

export interface CollectOptions {
  /** Progress lines (stderr of `npm run examples`). */
  log?: (line: string) => void
}

/** Runs the demo tenant and a server, and returns the examples (see the module comment). */
export async function collectExamples(options: CollectOptions = {}): Promise<ExamplesFile> {
  const log = options.log ?? (() => undefined)
  const temp = mkdtempSync(join(tmpdir(), 'skillhouse-examples-'))
  try {
    const dataDir = join(temp, 'data')
    log(`creating the demo tenant as \`skillhouse demo\` does, its nightly job as of ${DEMO_AS_OF}`)
    const demo = await runDemo({ dataDir, out: join(temp, 'out'), asOf: DEMO_AS_OF })
    if (!demo.created) throw new Error('the demo tenant existed before the examples run')
    const client = { id: demo.created.client_id, secret: demo.created.client_secret }
    const outbox = await withTenant(dataDir, 'demo', (tenant) => readEvents(tenant.database))
    const webhooks: Record<string, Record<string, unknown>> = {}
    for (const event of outbox) webhooks[event.type] ??= event
    const collected = await requestExamples(dataDir, webhooks, client, log)
    const examples: ExamplesFile = {
      about:
        "Generated by `npm run examples` (tools/example-run.ts) from a real server over the demo tenant; do not edit. Times set by the clock, random ids, the webhook consumer's port and the demo's OAuth client are replaced by fixed values; the access token keeps its header and claims (times and ids fixed) with a stand-in signature.",
      tenant: { name: 'demo', region: 'eu', as_of: DEMO_AS_OF },
      operations: collected.operations,
      errors: collected.errors,
      variants: collected.variants,
      operation_errors: collected.operationErrors,
      webhooks: Object.fromEntries(
        Object.keys(CLOUD_EVENT_TYPES)
          .filter((type) => webhooks[type] !== undefined)
          .map((type) => [type, webhooks[type] as Record<string, unknown>]),
      ),
    }
    const normalised = normalise(examples, [
      [collected.consumerOrigin, CONSUMER_ORIGIN],
      [client.id, DEMO_CLIENT.id],
      [client.secret, DEMO_CLIENT.secret],
    ]) as ExamplesFile
    checkExamples(normalised)
    return normalised
  } finally {
    rmSync(temp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
  }
}

/** What `requestExamples` answers: the examples of every kind, and where the webhook consumer listened. */
interface RecordedExamples {
  operations: Record<string, OperationExample>
  errors: Record<string, ErrorExample>
  variants: Record<string, Record<string, OperationExample>>
  operationErrors: Record<string, Record<string, ErrorExample>>
  consumerOrigin: string
}

/** The requests, in order; each answer must have the documented status. */
async function requestExamples(
  dataDir: string,
  webhooks: Record<string, Record<string, unknown>>,
  client: { id: string; secret: string },
  log: (line: string) => void,
): Promise<RecordedExamples> {
  const index = operationIndex()
  const temps: (() => Promise<void>)[] = []
  const consumer = await startConsumer()
  // No background derivation while the examples are taken: it would run as of today, not DEMO_AS_OF.
  // The events' sources on the default origin, not on the port the server happens to get.
  const server = await startServer({
    dataDir,
    port: 0,
    logger: silentLogger,
    deriveDelayMs: 24 * 3_600_000,
    deriveMaxDelayMs: 24 * 3_600_000,
    origin: DEFAULT_SERVER_ORIGIN,
  })
  try {
    const token = (await mintLocalToken(dataDir, 'demo', ['read', 'write'])).access_token
    const readToken = (await mintLocalToken(dataDir, 'demo', ['read'])).access_token
    const recorder = new ExampleRecorder(index, server.url, `${server.url}/demo/eu`, token, log)
    const ids = await recordEntities(recorder)
    const skillId = await recordProfiles(recorder, ids)
    const taxonomy = await recordTaxonomy(recorder, skillId)
    await recorder.call('getRelatedSkills', { params: { skill_id: skillId }, query: { limit: '5' } })
    await recordMatching(recorder, ids.employee)
    await recordTokenAndPreview(recorder, client, ids.job)
    await recordWebhooks(recorder, consumer, webhooks, taxonomy.skill_cluster_id)
    await recordErrorAnswers(recorder, ids.employee, taxonomy.domain_id, readToken)
    const { operations, variants, errors } = recorder
    const operationErrors = await operationErrorExamples(index, { ...operations }, variants, {
      base: recorder.base,
      root: server.url,
      token,
      client,
      jwksRoot: await jwksServerUrl(dataDir, temps),
      log,
    })
    server.app.drain()
    await recorder.error(503, 'GET', '/healthz')
    errors['503-text'] = await fullServerAnswer(dataDir)
    return { operations, errors, variants, operationErrors, consumerOrigin: consumer.origin }
  } finally {
    await server.close()
    await consumer.close()
    for (const close of temps.splice(0)) await close()
  }
}

/**
 * Sends requests to the demo tenant's server and records the answers: good requests as an
 * operation's example or a named variant of it, bad ones as the example of their status.
 */
class ExampleRecorder {
  readonly operations: Record<string, OperationExample> = {}
  readonly variants: Record<string, Record<string, OperationExample>> = {}
  readonly errors: Record<string, ErrorExample> = {}

  constructor(
    /** Every documented operation by operationId. */
    readonly index: ReadonlyMap<string, Operation>,
    private readonly root: string,
    /** The demo tenant's base URL. */
    readonly base: string,
    readonly token: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Sends a good request and records its answer: as the operation's example, or as a named variant. */
  async call(operationId: string, request: Call = {}, variant?: string): Promise<unknown> {
    const operation = this.index.get(operationId)
    if (!operation) throw new Error(`no documented operation ${operationId}`)
    this.log(`${operation.method} ${operation.path}${variant ? ` (${variant})` : ''}`)
    const answer = await send(operation.root ? this.root : this.base, operation, request, this.token)
    if (answer.status !== operation.status) {
      throw new Error(`${operationId}: expected ${operation.status}, got ${answer.status}: ${answer.text}`)
    }
    const recorded = variant ? (this.variants[operationId] ??= {}) : this.operations
    recorded[variant ?? operationId] = {
      request: {
        ...(request.params ? { params: request.params } : {}),
        ...(request.query ? { query: request.query } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
      },
      response: { status: answer.status, ...(answer.json !== undefined ? { body: answer.json } : {}) },
    }
    return answer.json
  }

  /** Lists two records of a kind, gets the first one, and returns it. */
  async first(
    listOperation: string,
    getOperation: string,
    param: string,
  ): Promise<Record<string, unknown> & { external_id: string }> {
    const page = (await this.call(listOperation, { query: { limit: '2' } })) as {
      records: { external_id: string }[]
    }
    const record = page.records[0]
    if (!record) throw new Error(`${listOperation}: the demo tenant has no records`)
    await this.call(getOperation, { params: { [param]: record.external_id } })
    return record as Record<string, unknown> & { external_id: string }
  }

  /** Sends a request that must be refused with `status` and records the answer as that status's example. */
  async error(status: number, method: string, path: string, init: RequestInit = {}): Promise<void> {
    const response = await fetch(`${path.startsWith('/healthz') ? this.root : this.base}${path}`, {
      method,
      ...init,
    })
    const text = await response.text()
    if (response.status !== status)
      throw new Error(`${method} ${path}: expected ${status}, got ${response.status}: ${text}`)
    this.errors[String(status)] = {
      request: `${method} ${path}`,
      content_type: (response.headers.get('content-type') ?? '').split(';')[0] as string,
      body: JSON.parse(text),
    }
  }
}

/** The ids of the demo's records that later requests are about. */
interface DemoIds {
  employee: string
  family: string
  job: string
  course: string
}

/** The health check, the vocabulary languages, and a list and a get of every kind of entity. */
async function recordEntities(recorder: ExampleRecorder): Promise<DemoIds> {
  const employee = (await recorder.first('listEmployees', 'getEmployee', 'employee_external_id')).external_id
  await recorder.call('getHealth')
  await recorder.call('listVocabularyLanguages')
  await recorder.first('listCompanies', 'getCompany', 'company_external_id')
  await recorder.first('listOrganisationalUnits', 'getOrganisationalUnit', 'organisational_unit_external_id')
  const family = (await recorder.first('listJobFamilies', 'getJobFamily', 'job_family_external_id'))
    .external_id
  const job = (await recorder.first('listJobs', 'getJob', 'job_external_id')).external_id
  const course = (await recorder.first('listCourses', 'getCourse', 'course_external_id')).external_id
  await recorder.first('listVacancies', 'getVacancy', 'vacancy_external_id')
  return { employee, family, job, course }
}

/** The skill profiles of an employee, a job, a course and a job family; returns a skill the employee holds. */
async function recordProfiles(recorder: ExampleRecorder, ids: DemoIds): Promise<string> {
  const profile = (await recorder.call('getEmployeeSkillProfile', {
    params: { employee_external_id: ids.employee },
  })) as {
    skills: { skill_id: string }[]
  }
  await recorder.call('getJobSkillProfile', { params: { job_external_id: ids.job } })
  await recorder.call('getCourseSkillProfile', { params: { course_external_id: ids.course } })
  const familyProfile = {
    params: { job_family_external_id: ids.family },
    query: { include: ['proficiency_level', 'critical'] },
  }
  await recorder.call('getJobFamilySkillProfile', familyProfile)
  await recorder.call(
    'getJobFamilySkillProfile',
    { ...familyProfile, query: { ...familyProfile.query, format: 'hierarchy' } },
    'hierarchy',
  )
  const skillId = profile.skills[0]?.skill_id
  if (!skillId) throw new Error(`employee ${ids.employee} of the demo tenant has an empty profile`)
  return skillId
}

/** The vocabulary from `skillId` up to its domain, the lists of each level, and the custom property lists. */
async function recordTaxonomy(
  recorder: ExampleRecorder,
  skillId: string,
): Promise<{ skill_cluster_id: string; domain_id: string }> {
  const skill = (await recorder.call('getSkill', {
    params: { skill_id: skillId },
    query: { vocab_language: 'nl' },
  })) as {
    skill_cluster_id: string
  }
  const cluster = (await recorder.call('getSkillCluster', {
    params: { skill_cluster_external_id: skill.skill_cluster_id },
  })) as { subdomain_id: string }
  const subdomain = (await recorder.call('getSubdomain', {
    params: { subdomain_external_id: cluster.subdomain_id },
    query: { include: ['custom_properties'] },
  })) as { domain_id: string }
  await recorder.call('getDomain', { params: { domain_external_id: subdomain.domain_id } })
  for (const operationId of ['listDomains', 'listSubdomains', 'listSkillClusters', 'listSkills']) {
    await recorder.call(operationId, { query: { limit: '2' } })
  }
  await recorder.call('getSkillClusterCount')
  for (const [operationId, operation] of recorder.index) {
    if (operation.method === 'GET' && /^list\w+CustomProperties$/.test(operationId))
      await recorder.call(operationId)
  }
  return { skill_cluster_id: skill.skill_cluster_id, domain_id: subdomain.domain_id }
}

/** Vacancies for the employee (4.11) and the gap to the best one, the org export, employees for jobs (4.10). */
async function recordMatching(recorder: ExampleRecorder, employee: string): Promise<void> {
  const vacancyMatching = {
    params: { employee_external_id: employee },
    query: { limit: '3', include: ['score_breakdown', 'location'] },
    body: {
      weights: [
        { weight: 'skills_match', value: 1 },
        { weight: 'geo_distance', value: 0.5, full_score_distance: 10, zero_score_distance: 80 },
      ],
    },
  }
  const matches = (await recorder.call('matchVacanciesForEmployee', vacancyMatching)) as {
    records: { vacancy_id: string }[]
  }
  await recorder.call(
    'matchVacanciesForEmployee',
    { ...vacancyMatching, query: { limit: '2', response_format: 'explained' } },
    'explained',
  )
  const vacancy = matches.records[0]?.vacancy_id
  if (!vacancy) throw new Error(`employee ${employee} of the demo tenant matches no vacancy`)
  await recorder.call('getSkillGap', {
    params: { employee_external_id: employee, vacancy_external_id: vacancy },
  })
  await recorder.call('getCourseRecommendations', {
    params: { employee_external_id: employee },
    query: { vacancy_id: vacancy, limit: '3' },
  })
  await recorder.call('exportOrganisationalStructure', { query: { include: ['low_data_availability_flag'] } })
  const jobMatching = {
    body: {
      filters: [],
      weights: [{ weight: 'skills_match', value: 1 }],
      limit: 2,
      match_limit_per_entity: 3,
    },
  }
  await recorder.call('matchEmployeesForJobs', jobMatching)
  await recorder.call(
    'matchEmployeesForJobs',
    { ...jobMatching, query: { response_format: 'explained' }, body: { ...jobMatching.body, limit: 1 } },
    'explained',
  )
}

/** An access token for the demo's OAuth client, and a job description preview of `job`. */
async function recordTokenAndPreview(
  recorder: ExampleRecorder,
  client: { id: string; secret: string },
  job: string,
): Promise<void> {
  await recorder.call('issueToken', {
    body: { grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret },
  })
  const preview = (await recorder.call('previewJobChange', {
    body: {
      change_type: 'add_job_description',
      job_id: job,
      context: { sections_to_include: ['summary', 'requirements'], use_internal_job_data: true },
    },
  })) as { change_id: string }
  await recorder.call('getJobChangePreview', { params: { change_id: preview.change_id } })
}

/**
 * A webhook subscription of the consumer, a custom skill created, changed and deleted (whose
 * events the consumer receives: they become the webhook examples), then the subscription's
 * deliveries, a replay, and its removal.
 */
async function recordWebhooks(
  recorder: ExampleRecorder,
  consumer: Consumer,
  webhooks: Record<string, Record<string, unknown>>,
  skillClusterId: string,
): Promise<void> {
  // A subscription first, so that the consumer receives the events of the changes that follow.
  const subscription = (await recorder.call('createWebhook', {
    body: { url: `${consumer.origin}/hooks`, event_types: [] },
  })) as { id: string }
  const healthCheck = consumer.received.find((event) => event.type === 'ai.vendor.health_check')
  if (healthCheck) webhooks['ai.vendor.health_check'] = healthCheck
  const custom = 'skl-custom-route-planning'
  await recorder.call('createSkill', {
    body: {
      external_id: custom,
      skill_name: 'Route planning',
      skill_cluster_id: skillClusterId,
      skill_type: 'hard_skill',
      names: { nl: 'Routeplanning', de: 'Routenplanung', fr: 'Planification des itinéraires' },
    },
  })
  await recorder.call('updateSkill', {
    params: { skill_id: custom },
    body: { aliases: { en_uk: ['route optimisation'] } },
  })
  await recorder.call('deleteSkill', { params: { skill_id: custom } })
  await recorder.call('listTaxonomyChanges', { body: { operation_type: 'skill_created' } })
  for (const type of [
    'ai.vendor.taxonomy.skill.created.v1',
    'ai.vendor.taxonomy.skill.updated.v1',
    'ai.vendor.taxonomy.skill.deleted.v1',
  ]) {
    const event = await consumer.next(type)
    webhooks[type] = event
  }
  await consumer.settled(6)
  await waitForDeliveries(recorder.base, subscription.id, recorder.token, 6)
  await recorder.call('listWebhooks')
  await recorder.call('getWebhook', { params: { webhook_id: subscription.id } })
  await recorder.call('listWebhookDeliveries', { params: { webhook_id: subscription.id } })
  await recorder.call('replayWebhookDeliveries', {
    params: { webhook_id: subscription.id },
    body: { since: DEMO_AS_OF },
  })
  await recorder.call('deleteWebhook', { params: { webhook_id: subscription.id } })
}

/** The example answer of each error status the API gives (4xx), each from a request it refuses. */
async function recordErrorAnswers(
  recorder: ExampleRecorder,
  employee: string,
  domainId: string,
  readToken: string,
): Promise<void> {
  const bearer = { authorization: `Bearer ${recorder.token}` }
  const json = { ...bearer, 'content-type': 'application/json' }
  await recorder.error(400, 'POST', '/companies', { headers: json, body: JSON.stringify({ name: 'Acme' }) })
  await recorder.error(401, 'GET', `/employees/${employee}`)
  await recorder.error(403, 'POST', '/taxonomy/domains', {
    headers: { authorization: `Bearer ${readToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ external_id: 'dom-example', domain_name: 'Example' }),
  })
  await recorder.error(404, 'GET', '/employees/emp-does-not-exist', { headers: bearer })
  await recorder.error(405, 'PUT', `/employees/${employee}`, { headers: bearer })
  await recorder.error(409, 'POST', '/taxonomy/domains', {
    headers: json,
    body: JSON.stringify({ external_id: domainId, domain_name: 'Again' }),
  })
  await recorder.error(413, 'POST', '/companies', {
    headers: json,
    body: JSON.stringify({ padding: 'x'.repeat(1_100_000) }),
  })
  await recorder.error(415, 'POST', '/companies', {
    headers: { ...bearer, 'content-type': 'text/plain' },
    body: 'Acme',
  })
  await recorder.error(422, 'POST', '/job_architecture/export/jobs/matching_employees', {
    headers: json,
    body: JSON.stringify({ filters: [], weights: [], score_min_threshold: 1.5 }),
  })
}

/** What the bad requests of the operations need: where to send them, and with what. */
interface ErrorRun {
  base: string
  root: string
  token: string
  client: { id: string; secret: string }
  /** A server that takes the tokens of an external authorization server (its /oauth/token is a 404). */
  jwksRoot: string
  log: (line: string) => void
}

/** A bad request of an operation: a Call, sent below the base URL of `tenant` (default the demo's). */
interface BadCall extends Call {
  tenant?: string
  /** Sent to the server that issues no tokens. */
  jwks?: boolean
}

/** A path parameter value that names nothing, of the shape the parameter takes. */
const unknownId = (name: string) => (name === 'webhook_id' ? 'wh_000000000000000000000999' : 'nothing-here')

/** The query value, of the parameters an operation takes, that its checks refuse with a 422. */
const INVALID_QUERY: [string, string][] = [
  ['limit', '0'],
  ['include', 'everything'],
  ['state', 'lost'],
  ['format', 'tree'],
  ['response_format', 'fancy'],
  ['strict', 'maybe'],
  ['external_vendor', 'vendor_x'],
  ['vocab_language', 'klingon'],
]

/**
 * The bad requests whose answers are each operation's examples of 400, 404 and 422: made from
 * the operation's parameters (an id that names nothing; a query value its checks refuse; a field
 * the body does not have; an unknown tenant where the operation has no id), or, where that
 * request is not refused with the status, written out in BAD_REQUESTS.
 */
function badRequest(
  operationId: string,
  operation: Operation,
  status: number,
  values: ReadonlyMap<string, string>,
): BadCall | undefined {
  const id = (name: string) => values.get(name) ?? unknownId(name)
  const known = Object.fromEntries(operation.params.map((name) => [name, id(name)]))
  const own = writtenOut(operationId, status, id)
  if (own) return { params: known, ...own }
  switch (status) {
    case 404:
      if (operationId === 'issueToken') return { jwks: true, body: { grant_type: 'client_credentials' } }
      return operation.params.length > 0
        ? {
            params: Object.fromEntries(operation.params.map((name) => [name, unknownId(name)])),
            ...(operation.body ? { body: {} } : {}),
          }
        : { tenant: 'nobody', ...(operation.body ? { body: {} } : {}) }
    case 400:
    case 422: {
      if (status === 400 && operation.body) return { params: known, body: { colour: 'red' } }
      // Else a query value its checks refuse: a 422, or a 400 where the operation folds its
      // 422s into 400 (4.6).
      const invalid = INVALID_QUERY.find(([name]) => operation.query.includes(name))
      return invalid
        ? { params: known, query: { [invalid[0]]: invalid[1] }, ...(operation.body ? { body: {} } : {}) }
        : undefined
    }
  }
  return undefined
}

/**
 * Bad requests written out, where the one made from the parameters is not refused with the
 * status: values the body's checks refuse (`id` gives an id of the demo tenant that exists).
 */
function writtenOut(operationId: string, status: number, id: (name: string) => string): BadCall | undefined {
  if (operationId === 'createSkillEvent' && status === 400) {
    return {
      body: {
        external_id: 'evt-new',
        event_type: 'working_history',
        timestamp: DEMO_AS_OF,
        source: 'hr-system',
      },
    }
  }
  if (status !== 422) return undefined
  if (/^create\w+CustomProperty$/.test(operationId))
    return { body: { property_name: 'a__b', property_type: 'text' } }
  if (/^update(Company|OrganisationalUnit|JobFamily|Job|Course|Vacancy|Employee)$/.test(operationId)) {
    return { body: { external_id: 'someone-else' } }
  }
  const bodies: Record<string, unknown> = {
    createWebhook: { url: 'ftp://hooks.example.com/skills' },
    replayWebhookDeliveries: { since: DEMO_AS_OF, event_id: 'evt-unknown' },
    listTaxonomyChanges: { operation_type: 'everything' },
    createSubdomain: { external_id: 'sub-new', domain_id: id('domain_external_id'), subdomain_name: '' },
    createSkillCluster: {
      external_id: 'cluster new',
      subdomain_id: id('subdomain_external_id'),
      skill_cluster_name: 'New cluster',
    },
    createSkill: { external_id: 'skl-new', skill_name: 'New skill', skill_type: 'magic' },
    createOrganisationalUnit: { external_id: 'ou-new', name: '' },
    createJobFamily: {
      external_id: 'jf-new',
      name: 'New family',
      skills: [{ skill_id: id('skill_id'), proficiency_level: 9 }],
    },
    createJob: { external_id: 'job-new', title: '' },
    createCourse: { external_id: 'course-new', title: 'New course', language: 'english' },
    createVacancy: { external_id: 'vac-new', title: 'New vacancy', status: 'open' },
    createEmployee: { external_id: 'emp-new', email: 'not-an-email' },
  }
  return operationId in bodies ? { body: bodies[operationId] } : undefined
}

async function operationErrorExamples(
  index: ReadonlyMap<string, Operation>,
  operations: Record<string, OperationExample>,
  variants: Record<string, Record<string, OperationExample>>,
  run: ErrorRun,
): Promise<Record<string, Record<string, ErrorExample>>> {
  // A path parameter takes the value a recorded example gave it: an id that exists.
  const values = new Map<string, string>()
  const recorded: OperationExample[] = [
    ...Object.values(operations),
    ...Object.values(variants).flatMap((named) => Object.values(named)),
  ]
  for (const example of recorded) {
    for (const [name, value] of Object.entries(example.request.params ?? {})) {
      if (!values.has(name)) values.set(name, value)
    }
  }
  const out: Record<string, Record<string, ErrorExample>> = {}
  const wrong: string[] = []
  for (const [operationId, operation] of index) {
    for (const status of operation.inputErrors) {
      const request = badRequest(operationId, operation, status, values)
      if (!request) {
        wrong.push(`${operationId} ${status}: no bad request`)
        continue
      }
      const origin = request.jwks
        ? run.jwksRoot
        : operation.root
          ? run.root
          : request.tenant
            ? `${run.root}/${request.tenant}/eu`
            : run.base
      const answer = await send(origin, operation, request, run.token, false)
      const shown = `${operation.method} ${new URL(answer.url).pathname.replace(/^\/demo\/eu\//, '/')}${new URL(answer.url).search}`
      run.log(`${shown} → ${answer.status}`)
      if (answer.status !== status) {
        wrong.push(
          `${operationId} ${status}: ${shown} answered ${answer.status}: ${answer.text.slice(0, 300)}`,
        )
        continue
      }
      ;(out[operationId] ??= {})[String(status)] = {
        request: shown,
        content_type: 'application/json',
        body: answer.json,
      }
    }
  }
  if (wrong.length > 0)
    throw new Error(`bad requests that were not refused as documented:\n${wrong.join('\n')}`)
  return out
}

/** A second server over the data directory that takes the tokens of an external key set. */
async function jwksServerUrl(dataDir: string, closers: (() => Promise<void>)[]): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'skillhouse-examples-jwks-'))
  const { publicKey } = await generateKeyPair('ES256')
  const jwksFile = join(folder, 'jwks.json')
  writeFileSync(
    jwksFile,
    JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'example', alg: 'ES256' }] }),
  )
  const server = await startServer({ dataDir, port: 0, logger: silentLogger, jwks: { jwksFile } })
  closers.push(async () => {
    await server.close()
    rmSync(folder, { recursive: true, force: true })
  })
  return server.url
}

async function send(
  origin: string,
  operation: Operation,
  request: Call,
  token: string,
  checkSchema = true,
): Promise<{ status: number; text: string; json: unknown; url: string }> {
  let path = operation.path
  for (const [name, value] of Object.entries(request.params ?? {})) {
    path = path.replace(`{${name}}`, encodeURIComponent(value))
  }
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, item)
  }
  const query = search.size ? `?${search}` : ''
  const headers: Record<string, string> = operation.root ? {} : { authorization: `Bearer ${token}` }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${origin}${path}${query}`, {
    method: operation.method,
    headers,
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
  })
  const text = await response.text()
  const parsed =
    checkSchema && operation.schema && text ? operation.schema.safeParse(JSON.parse(text)) : undefined
  if (parsed && !parsed.success) {
    throw new Error(
      `${operation.method} ${operation.path}: the answer does not fit its schema: ${parsed.error.message}`,
    )
  }
  return { status: response.status, text, json: text ? JSON.parse(text) : undefined, url: response.url }
}

/** Polls the delivery log until `count` deliveries are delivered (the server delivers in the background). */
async function waitForDeliveries(base: string, id: string, token: string, count: number): Promise<void> {
  for (;;) {
    const response = await fetch(`${base}/webhooks/${id}/deliveries?state=delivered`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const page = (await response.json()) as { records: unknown[] }
    if (page.records.length >= count) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The plain-text 503 of a full server: a server of one connection, and a second connection. */
async function fullServerAnswer(dataDir: string): Promise<ErrorExample> {
  const server: RunningServer = await startServer({
    dataDir,
    port: 0,
    logger: silentLogger,
    maxConnections: 1,
  })
  const holder: Socket = connect(server.port, server.host)
  try {
    await new Promise<void>((resolve, reject) => {
      holder.once('connect', () => resolve())
      holder.once('error', reject)
    })
    const response = await fetch(`${server.url}/healthz`, { headers: { connection: 'close' } })
    const text = await response.text()
    if (response.status !== 503) throw new Error(`a full server answered ${response.status}: ${text}`)
    return {
      request: 'GET /healthz',
      content_type: (response.headers.get('content-type') ?? '').split(';')[0] as string,
      body: text,
    }
  } finally {
    holder.destroy()
    await server.close()
  }
}

interface Consumer {
  origin: string
  received: Record<string, unknown>[]
  /** The first received event of a type, waiting for it. */
  next(type: string): Promise<Record<string, unknown>>
  /** Resolves once `count` events besides the health check arrived. */
  settled(count: number): Promise<void>
  close(): Promise<void>
}

/** A webhook consumer on a free port that takes every event with 204. */
async function startConsumer(): Promise<Consumer> {
  const received: Record<string, unknown>[] = []
  const waiting: (() => void)[] = []
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>)
      response.writeHead(204).end()
      for (const wake of waiting.splice(0)) wake()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  const until = async (ready: () => boolean) => {
    while (!ready()) await new Promise<void>((resolve) => waiting.push(resolve))
  }
  return {
    origin: `http://127.0.0.1:${address.port}`,
    received,
    next: async (type) => {
      await until(() => received.some((event) => event.type === type))
      return received.find((event) => event.type === type) as Record<string, unknown>
    },
    settled: (count) =>
      until(() => received.filter((event) => event.type !== 'ai.vendor.health_check').length >= count),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const CHANGE_ID = /chg-[0-9a-f]{32}/g
const WEBHOOK_ID = /wh_[0-9a-f]{24}/g

/**
 * An access token of the shape the server issues (an ES256 JWT), its times, ids and key id fixed:
 * the header and claims are the token's, the signature stands in for one (it does not verify).
 */
function fixedToken(token: string, replace: (text: string) => string): string {
  const [header, claims] = token.split('.')
  const decode = (part: string | undefined) =>
    JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const issued = Date.parse(FIXED_TIME) / 1000
  const payload = decode(claims)
  const lifetime = Number(payload.exp) - Number(payload.iat)
  return [
    encode({ ...decode(header), kid: 'demo-signing-key' }),
    encode({
      ...JSON.parse(replace(JSON.stringify(payload))),
      iat: issued,
      exp: issued + lifetime,
      jti: '00000000-0000-4000-8000-000000000000',
    }),
    Buffer.alloc(64, 1).toString('base64url'),
  ].join('.')
}

/** The demo's OAuth client as the examples show it (its real id and secret change on every run). */
const DEMO_CLIENT = { id: 'client-0123456789abcdef', secret: 'demo-client-secret' }

/**
 * Replaces what cannot repeat (see the module comment) and the texts of `replacements`; ids keep
 * their shape and their identity across the file.
 */
function normalise(value: unknown, replacements: readonly [string, string][]): unknown {
  const ids = new Map<string, string>()
  const numbered = (pattern: RegExp, make: (n: number) => string) => (text: string) =>
    text.replace(pattern, (found) => {
      let mapped = ids.get(found)
      if (!mapped) {
        mapped = make(ids.size + 1)
        ids.set(found, mapped)
      }
      return mapped
    })
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')
  const uuid = numbered(UUID, (n) => `00000000-0000-4000-8000-${hex(n, 12)}`)
  const change = numbered(CHANGE_ID, (n) => `chg-${hex(n, 32)}`)
  const webhook = numbered(WEBHOOK_ID, (n) => `wh_${hex(n, 24)}`)
  const replaced = (input: string) =>
    replacements.reduce((result, [from, to]) => result.replaceAll(from, to), input)
  const text = (input: string) => webhook(change(uuid(replaced(input))))
  const walk = (node: unknown, key?: string): unknown => {
    if (typeof node === 'string') {
      if (key === 'access_token') return fixedToken(node, replaced)
      return key !== undefined && VOLATILE_TIME_KEYS.has(key) ? FIXED_TIME : text(node)
    }
    if (Array.isArray(node)) return node.map((item) => walk(item))
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([name, item]) => [name, walk(item, name)]))
    }
    return node
  }
  return walk(value)
}

/** Every example still fits its schema after normalisation; a mismatch names the example. */
export function checkExamples(examples: ExamplesFile): void {
  const index = operationIndex()
  for (const [operationId, example] of Object.entries(examples.operations)) {
    const schema = index.get(operationId)?.schema
    if (schema && example.response.body !== undefined) {
      const parsed = schema.safeParse(example.response.body)
      if (!parsed.success) throw new Error(`example ${operationId}: ${parsed.error.message}`)
    }
  }
  for (const [status, example] of Object.entries(examples.errors)) {
    if (example.content_type === 'application/json' && !ErrorBody.safeParse(example.body).success) {
      throw new Error(`error example ${status} is not an error body`)
    }
  }
  for (const [type, event] of Object.entries(examples.webhooks)) {
    const parsed = cloudEventOf(type as CloudEventType).safeParse(event)
    if (!parsed.success) throw new Error(`webhook example ${type}: ${parsed.error.message}`)
  }
}
