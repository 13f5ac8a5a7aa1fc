import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  zodToOpenAPIRegistry,
} from '@asteasolutions/zod-to-openapi'
import { type ApiRoute, answeredStatus, routeScope } from '../api/api-route.js'
import { apiRoutes } from '../api/api-routes.js'
import { DOC_ERROR_STATUSES, type DocErrorStatus, type RouteDoc, TAGS } from '../api/route-docs.js'
import { SCOPES } from '../auth/access-tokens.js'
import { VacancyMatchingResponse } from '../matching/vacancy-match-schema.js'
import * as schemas from '../schemas/index.js'
import { DEFAULT_SERVER_ORIGIN } from '../tenants/tenant-service.js'
import { writeFileAtomic } from '../util/atomic-file.js'
import { projectRoot } from '../util/project-paths.js'
import { z } from '../vendor/zod.js'
import { type ErrorExample, type ExamplesFile, loadExamples } from './examples-file.js'

/**
 * The OpenAPI 3.1 document of the HTTP server, generated from the zod schemas the library
 * validates with and from the server's own route list: every route `apiRoutes()` answers, each
 * with the documentation it carries (`ApiRoute.doc`), plus `/healthz` and `/oauth/token`,
 * the webhooks of section 6, the OAuth 2.0 client credentials scheme with a scope per operation,
 * and the examples of fixtures/openapi/examples.json.
 */

/** The document as the generator returns it. */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>

export interface OpenApiOptions {
  /** The examples to embed; default the checked-in ones (none when the file does not exist yet). */
  examples?: ExamplesFile | undefined
}

/** Component names of the schemas that make the document readable (and the recursive OrgNode possible). */
const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  CollectionMetric: schemas.CollectionMetric,
  Company: schemas.Company,
  Course: schemas.Course,
  CustomProperties: schemas.CustomProperties,
  CustomPropertyDefinition: schemas.CustomPropertyDefinition,
  Domain: schemas.Domain,
  DomainPatch: schemas.DomainPatch,
  DomainResponse: schemas.DomainResponse,
  Employee: schemas.Employee,
  EmployeeMatch: schemas.EmployeeMatch,
  ErrorBody: schemas.ErrorBody,
  ExplainedSkill: schemas.ExplainedSkill,
  HealthStatus: schemas.HealthStatus,
  Job: schemas.Job,
  JobChangePreview: schemas.JobChangePreview,
  JobChangePreviewRequest: schemas.JobChangePreviewRequest,
  JobFamily: schemas.JobFamily,
  JobFamilyProfileHierarchy: schemas.JobFamilyProfileHierarchy,
  JobFamilyProfileList: schemas.JobFamilyProfileList,
  JobFamilySkillEntry: schemas.JobFamilySkillEntry,
  JobMatchFilter: schemas.JobMatchFilter,
  JobMatchingRequest: schemas.JobMatchingRequest,
  JobMatchingResponse: schemas.JobMatchingResponse,
  JobMatchWeight: schemas.JobMatchWeight,
  LocationOrAddress: schemas.LocationOrAddress,
  MatchExplanation: schemas.MatchExplanation,
  OrganisationalUnit: schemas.OrganisationalUnit,
  OrgExportResponse: schemas.OrgExportResponse,
  OrgNode: schemas.OrgNode,
  Skill: schemas.Skill,
  SkillCluster: schemas.SkillCluster,
  SkillClusterPatch: schemas.SkillClusterPatch,
  SkillClusterResponse: schemas.SkillClusterResponse,
  SkillDetailResponse: schemas.SkillDetailResponse,
  SkillEvent: schemas.SkillEvent,
  SkillGapEntry: schemas.SkillGapEntry,
  SkillPatch: schemas.SkillPatch,
  SkillProfileResponse: schemas.SkillProfileResponse,
  Subdomain: schemas.Subdomain,
  SubdomainPatch: schemas.SubdomainPatch,
  SubdomainResponse: schemas.SubdomainResponse,
  TaxonomyChange: schemas.TaxonomyChange,
  TaxonomyChangesPage: schemas.TaxonomyChangesPage,
  TaxonomyChangesRequest: schemas.TaxonomyChangesRequest,
  TokenRequest: schemas.TokenRequest,
  TokenResponse: schemas.TokenResponse,
  Vacancy: schemas.Vacancy,
  VacancyMatchFilter: schemas.VacancyMatchFilter,
  VacancyMatchingRequest: schemas.VacancyMatchingRequest,
  VacancyMatchingResponse,
  VacancyMatchWeight: schemas.VacancyMatchWeight,
  VocabularyLanguagesResponse: schemas.VocabularyLanguagesResponse,
  WebhookDelivery: schemas.WebhookDelivery,
  WebhookDeliveryPage: schemas.WebhookDeliveryPage,
  WebhookReplay: schemas.WebhookReplay,
  WebhookReplayRequest: schemas.WebhookReplayRequest,
  WebhookRetryPolicy: schemas.WebhookRetryPolicy,
  WebhookSubscription: schemas.WebhookSubscription,
  WebhookSubscriptionList: schemas.WebhookSubscriptionList,
  WebhookSubscriptionRequest: schemas.WebhookSubscriptionRequest,
}

/** Gives a schema instance its component name: every use of that very instance becomes a `$ref`. */
function nameSchema<T extends z.ZodType>(name: string, schema: T): T {
  const current = zodToOpenAPIRegistry.get(schema) as { _internal?: Record<string, unknown> } | undefined
  if (current?._internal?.refId !== name) {
    zodToOpenAPIRegistry.add(schema, { ...current, _internal: { ...current?._internal, refId: name } })
  }
  return schema
}

/** Statuses of section 7 with their component name and meaning. */
const ERROR_RESPONSES: Record<DocErrorStatus, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'The request body was not structured correctly (not JSON, a field missing or of the wrong type, a field that does not exist).',
  },
  401: { name: 'Unauthorized', description: 'The OAuth access token is missing, invalid or expired.' },
  403: {
    name: 'Forbidden',
    description:
      'No access to the resource: a token of another tenant or without the scope, a vendor not activated on the tenant, an entity of an imported vocabulary.',
  },
  404: {
    name: 'NotFound',
    description:
      'The external_id of the resource is unknown (the resource must be created first), or no tenant has this name and region.',
  },
  405: {
    name: 'MethodNotAllowed',
    description: 'The method is not allowed for the URL; `Allow` lists the ones that are.',
  },
  409: {
    name: 'Conflict',
    description: 'The resource already exists (or, for a delete, is still referred to).',
  },
  413: {
    name: 'PayloadTooLarge',
    description:
      'The request payload is larger than the server accepts (1 MiB unless `serve --body-limit` says otherwise).',
  },
  415: { name: 'UnsupportedMediaType', description: 'The content type must be `application/json`.' },
  422: {
    name: 'UnprocessableEntity',
    description:
      'Fields or query parameters hold invalid data (an invalid date or enumeration value, a value out of range), or an outdated model configuration for ticket and merge_request events; each entry names the field.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The server is unavailable: it is full (the plain-text `max connections reached: <limit>`) or shutting down. Retry later.',
  },
}

const JSON_TYPE = 'application/json'
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })

/** `/employees/:external_id/skill_profile` with params {employee_external_id} → `/employees/{employee_external_id}/skill_profile`. */
export function documentPath(honoPath: string, params?: z.ZodObject): string {
  const names = Object.keys(params?.shape ?? {})
  let index = 0
  const path = honoPath.replace(/:([A-Za-z0-9_]+)/g, () => {
    const name = names[index++]
    if (name === undefined)
      throw new Error(`${honoPath}: the route doc names fewer path parameters than the path has`)
    return `{${name}}`
  })
  if (index !== names.length)
    throw new Error(`${honoPath}: the route doc names more path parameters than the path has`)
  return path
}

/** The documentation of every route below the base URL, keyed `METHOD path` as `apiRoutes()` names them. */
export function routeDocs(routes: readonly ApiRoute[] = apiRoutes()): Map<string, RouteDoc> {
  const docs = new Map<string, RouteDoc>()
  for (const route of routes) {
    const key = `${route.method} ${route.path}`
    if (docs.has(key)) throw new Error(`two route docs for ${key}`)
    docs.set(key, route.doc)
  }
  return docs
}

/** Builds the document. Pure: the same schemas, routes and examples give the same document. */
export function openApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  for (const [name, schema] of Object.entries(NAMED_SCHEMAS)) nameSchema(name, schema)
  const examples = 'examples' in options ? options.examples : loadExamples()
  const registry = new OpenAPIRegistry()
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description:
      'OAuth 2.0 client credentials (section 5; docs/api.md). Get a client with `skillhouse tenant create` or `skillhouse client create`, then a token at `POST /oauth/token`; send it as `Authorization: Bearer <token>`. Missing, invalid or expired: 401; another tenant or without the scope: 403.',
    flows: {
      clientCredentials: {
        tokenUrl: `${DEFAULT_SERVER_ORIGIN}/oauth/token`,
        scopes: {
          read: 'Read the tenant: every GET, and the POSTs that only compute (matching, taxonomy changes).',
          write: 'Change the tenant: create, update and delete.',
        },
      },
    },
  })
  for (const [status, response] of Object.entries(ERROR_RESPONSES)) {
    registry.registerComponent('responses', response.name, errorResponse(Number(status), examples))
  }
  for (const route of apiRoutes()) registry.registerPath(operationOf(route, route.doc))
  registerTopLevel(registry)
  registerWebhooks(registry)
  // The error responses refer to ErrorBody by name only: it is handed to the generator itself.
  const document = new OpenApiGeneratorV31(
    [...registry.definitions, { type: 'schema', schema: schemas.ErrorBody }],
    {
      sortComponents: 'alphabetically',
    },
  ).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Skills Service API (skillhouse)',
      version: (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string })
        .version,
      description: INFO_DESCRIPTION,
      contact: { name: 'skillhouse' },
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [
      {
        url: `${DEFAULT_SERVER_ORIGIN}/{tenant}/{region}`,
        description: "A tenant's base URL on `skillhouse serve`: the tenant's name and its region",
        variables: { tenant: { default: 'demo' }, region: { default: 'eu', enum: [...schemas.REGIONS] } },
      },
    ],
    security: [{ oauth2: [...SCOPES] }],
    tags: TAGS.map((tag) => ({ ...tag })),
  })
  for (const path of ['/healthz', '/oauth/token']) {
    const item = document.paths?.[path]
    if (item)
      item.servers = [
        { url: DEFAULT_SERVER_ORIGIN, description: 'The server itself, outside every base URL' },
      ]
  }
  tidyDocument(document)
  if (examples) embedExamples(document, examples)
  dropUnusedResponses(document)
  return document
}

const INFO_DESCRIPTION = [
  "The Skills Service API as `skillhouse serve` answers it, generated from the zod schemas the server validates with (`skillhouse openapi`). Every path hangs below a tenant's base URL `http://HOST:PORT/{tenant}/{region}`; `/healthz` and `/oauth/token` sit at the root.",
  '',
  'Where the spec leaves a name or shape open, skillhouse decides (docs/api.md): the query parameters `language`, `strict`, `end_active_working_history` (4.2), `vocab_language`, `include` (repeatable); 4.11 is `POST /employees/{employee_external_id}/matching_vacancies`, 4.12 `GET /job_architecture/job_families/{job_family_external_id}/skill_profile`; the entities the spec names without describing them follow one resource pattern (`POST /collection` 204/409, `GET|PATCH|DELETE /collection/{id}`, `GET /collection?starting_after=&limit=`). Path parameter names follow the spec where it names them.',
  '',
  "Errors are always the spec's body, an array of `{title, description}` with `title` like `422 Unprocessable entity`, one entry per problem; the one exception is the plain-text `max connections reached: <limit>`, sent with 503. A body that is not structured correctly is a 400, a field with an invalid value a 422.",
  '',
  'The examples are real answers of a server over the demo tenant (`npm run examples`); values that change on every run (times, generated ids, the port of the webhook consumer) are replaced by fixed ones.',
].join('\n')

/** A raw response object, as `registerComponent('responses', …)` takes it. */
type ResponseComponent = Parameters<OpenAPIRegistry['registerComponent']>[2] & { description: string }

function errorResponse(status: number, examples: ExamplesFile | undefined): ResponseComponent {
  const meaning = ERROR_RESPONSES[status as DocErrorStatus]
  const example = examples?.errors[String(status)]
  const json = {
    schema: ref('schemas', 'ErrorBody'),
    ...(example && example.content_type === JSON_TYPE
      ? { examples: { [exampleName(example.request)]: { summary: example.request, value: example.body } } }
      : {}),
  }
  const text = examples?.errors[`${status}-text`]
  const headers =
    status === 405
      ? {
          Allow: {
            description: 'The methods the URL allows.',
            schema: { type: 'string' as const },
            example: 'GET, HEAD, PATCH, DELETE',
          },
        }
      : status === 401
        ? {
            'WWW-Authenticate': {
              description: 'The authentication scheme to use.',
              schema: { type: 'string' as const },
            },
          }
        : undefined
  return {
    description: meaning.description,
    ...(headers ? { headers } : {}),
    content: {
      [JSON_TYPE]: json,
      ...(status === 503
        ? {
            'text/plain': {
              schema: { type: 'string' as const, pattern: '^max connections reached: \\d+$' },
              ...(text
                ? { examples: { [exampleName(text.request)]: { summary: text.request, value: text.body } } }
                : {}),
            },
          }
        : {}),
    },
  }
}

const exampleName = (request: string) =>
  request
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase()

/**
 * The error statuses of a route: its doc's and the ones section 4 lists for it (`route.statuses`).
 * Where an endpoint lists 400, the server answers the 422, 415 and 404 of its handler that the
 * list lacks with 400 (`answeredStatus`); the 404 of an unknown tenant stays.
 */
export function answeredErrors(
  route: Pick<ApiRoute, 'statuses'>,
  doc: Pick<RouteDoc, 'errors'>,
): DocErrorStatus[] {
  const listed = route.statuses ?? []
  // A 404 stays: the unknown tenant or region answers it before the route's list applies.
  const folded = (status: DocErrorStatus) => status !== 404 && answeredStatus(route, status) !== status
  return DOC_ERROR_STATUSES.filter(
    (status) => (doc.errors.includes(status) || listed.includes(status)) && !folded(status),
  )
}

function operationOf(route: ApiRoute, doc: RouteDoc) {
  const method = route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'
  const headers = {
    ...Object.fromEntries(
      Object.entries(doc.success.headers ?? {}).map(([name, header]) => [
        name,
        header.schema.meta({ description: header.description }),
      ]),
    ),
    ...(route.headers?.Deprecation
      ? {
          Deprecation: z.string().meta({
            description:
              'RFC 9745: the resource is deprecated (9.3), since this date (`@` and seconds since the epoch).',
            example: route.headers.Deprecation,
          }),
        }
      : {}),
  }
  const responses: Record<string, ResponseConfig | { $ref: string }> = {
    [doc.success.status]: {
      description: doc.success.description,
      ...(Object.keys(headers).length ? { headers: z.object(headers) } : {}),
      ...(doc.success.schema ? { content: { [JSON_TYPE]: { schema: doc.success.schema } } } : {}),
    },
  }
  for (const status of answeredErrors(route, doc))
    responses[status] = ref('responses', ERROR_RESPONSES[status].name)
  return {
    method,
    path: documentPath(route.path, doc.params),
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(doc.extension ? { 'x-skillhouse-extension': true } : {}),
    ...(route.headers?.Deprecation ? { deprecated: true } : {}),
    security: [{ oauth2: [routeScope(route)] }],
    request: {
      ...(doc.params ? { params: doc.params } : {}),
      ...(doc.query ? { query: doc.query } : {}),
      ...(doc.body
        ? {
            body: {
              description: doc.body.description,
              required: doc.body.required,
              content: { [JSON_TYPE]: { schema: doc.body.schema } },
            },
          }
        : {}),
    },
    responses,
  }
}

function registerTopLevel(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Check the health of the server',
    description:
      'Needs no token. 503 while the server shuts down (it finishes the requests in flight first).',
    tags: ['Operations'],
    security: [],
    responses: {
      200: { description: 'The server serves.', content: { [JSON_TYPE]: { schema: schemas.HealthStatus } } },
      405: ref('responses', ERROR_RESPONSES[405].name),
      503: ref('responses', ERROR_RESPONSES[503].name),
    },
  })
  const tokenRequest = { schema: schemas.TokenRequest }
  registry.registerPath({
    method: 'post',
    path: '/oauth/token',
    operationId: 'issueToken',
    summary: 'Get an access token (OAuth 2.0 client credentials)',
    description:
      "RFC 6749 4.4: the client's credentials in the body or as HTTP Basic credentials (`client_id:client_secret`, each form-urlencoded). The token is a JWT for the client's tenant with the scopes asked for (default: all of the client's), valid for an hour. 404 when the server accepts the tokens of an external authorization server instead (`serve --jwks-file|--jwks-url`).",
    tags: ['Auth'],
    security: [],
    request: {
      body: {
        description: 'The token request, as a form (RFC 6749) or as JSON.',
        required: true,
        content: { 'application/x-www-form-urlencoded': tokenRequest, [JSON_TYPE]: tokenRequest },
      },
    },
    responses: {
      200: {
        description: 'The access token.',
        headers: z.object({
          'Cache-Control': z
            .literal('no-store')
            .meta({ description: 'Tokens are never cached (RFC 6749 5.1).' }),
        }),
        content: { [JSON_TYPE]: { schema: schemas.TokenResponse } },
      },
      400: ref('responses', ERROR_RESPONSES[400].name),
      401: ref('responses', ERROR_RESPONSES[401].name),
      404: ref('responses', ERROR_RESPONSES[404].name),
      405: ref('responses', ERROR_RESPONSES[405].name),
      413: ref('responses', ERROR_RESPONSES[413].name),
      415: ref('responses', ERROR_RESPONSES[415].name),
      503: ref('responses', ERROR_RESPONSES[503].name),
    },
  })
}

/** What triggers each event type (6.2), for the webhook's description. */
const EVENT_TRIGGERS: Record<schemas.CloudEventType, string> = {
  'ai.vendor.employee.skill_profile.updated.v1':
    'Inference completed for the Employee (the first one after creation too, possibly an empty profile), Skills were validated or rejected, or attributes such as the proficiency of validated Skills changed. Fetch the profile by external_id.',
  'ai.vendor.employee.skill_profile.suggested_updated.v1':
    'The set of suggested Skills of the Employee changed; fetch the profile and select the Skills whose validation_state is `suggested`.',
  'ai.vendor.job_architecture.job.skill_profile.updated.v1':
    'Inference completed for the Job (the first one too, possibly empty), Skills were validated or rejected, or attributes such as proficiency or criticality changed.',
  'ai.vendor.job_architecture.job.skill_profile.suggested_updated.v1':
    'The set of suggested Skills of the Job changed.',
  'ai.vendor.course.skill_profile.updated.v1':
    'Skills were added to or removed from the Course Skill Profile.',
  'ai.vendor.taxonomy.skill.created.v1': 'A Skill entered the vocabulary or a custom Skill was created.',
  'ai.vendor.taxonomy.skill.updated.v1': 'A Skill of the vocabulary or a custom Skill was updated.',
  'ai.vendor.taxonomy.skill.deleted.v1':
    'A Skill was removed from the vocabulary or a custom Skill was deleted; fetching it now answers 404.',
  'ai.vendor.taxonomy.updated.v1':
    "The tenant's taxonomy changed or the vocabulary was updated: one event per operation, pointing at the change (`POST /taxonomy/changes` with its external_id).",
  'ai.vendor.health_check':
    'Sent when a consumer subscribes: it answers with a 2XX, no further logic needed (6, rule 4).',
}

function registerWebhooks(registry: OpenAPIRegistry): void {
  for (const [type, definition] of Object.entries(schemas.CLOUD_EVENT_TYPES) as [
    schemas.CloudEventType,
    (typeof schemas.CLOUD_EVENT_TYPES)[schemas.CloudEventType],
  ][]) {
    const name = `CloudEvent_${type.replace(/^ai\.vendor\./, '').replace(/[^A-Za-z0-9]+/g, '_')}`
    const schema = nameSchema(name, schemas.cloudEventOf(type))
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `on_${type.replace(/[^A-Za-z0-9]+/g, '_')}`,
      summary: type,
      description: `${EVENT_TRIGGERS[type]} A structured-mode CloudEvent 1.0 (6.1) whose \`source\` is the endpoint \`{base_url}${definition.source}\` of this API, on the origin the server is reached at (\`serve --origin\`, else the request's). Delivery is at least once, in any order: tolerate duplicates (by \`id\`), ignore unknown data fields.`,
      tags: ['Webhooks'],
      security: [],
      request: {
        body: {
          description: 'The CloudEvent.',
          required: true,
          content: { 'application/cloudevents+json': { schema } },
        },
      },
      responses: {
        '2XX': { description: 'The consumer took the event; any other answer (or none) is retried.' },
      },
    })
  }
}

interface ParameterLike {
  in?: string
  name?: string
  example?: unknown
  schema?: { type?: unknown; [key: string]: unknown }
}

/**
 * A query string or path segment is never JSON null: coerced numbers drop the `null` zod lets
 * through. A response header's example goes on the header itself, where Prism takes it from.
 */
function tidyDocument(document: OpenApiDocument): void {
  for (const operation of operations(document)) {
    for (const response of Object.values(operation.responses ?? {})) {
      for (const header of Object.values(response.headers ?? {})) {
        if (header.schema?.example !== undefined && header.example === undefined) {
          header.example = header.schema.example
          delete header.schema.example
        }
      }
    }
    for (const parameter of (operation.parameters ?? []) as ParameterLike[]) {
      const type = parameter.schema?.type
      if (parameter.schema && Array.isArray(type)) {
        const kept = type.filter((value) => value !== 'null')
        parameter.schema.type = kept.length === 1 ? kept[0] : kept
      }
    }
  }
}

type OperationLike = {
  operationId?: string
  parameters?: unknown[]
  requestBody?: { content?: Record<string, { examples?: unknown }> }
  responses?: Record<
    string,
    {
      content?: Record<string, { examples?: unknown }>
      headers?: Record<string, { example?: unknown; schema?: { example?: unknown } }>
    }
  >
}

function* operations(document: OpenApiDocument): Generator<OperationLike> {
  for (const item of Object.values(document.paths ?? {})) {
    for (const method of ['get', 'post', 'patch', 'delete', 'put'] as const) {
      const operation = (item as Record<string, unknown>)[method]
      if (operation) yield operation as OperationLike
    }
  }
}

/** A query value as the parameter's type has it (a query string holds only text). */
function typedValue(value: string | string[], type: unknown): unknown {
  if (Array.isArray(value)) return value
  if (type === 'integer' || type === 'number') return Number(value)
  if (type === 'boolean') return value === 'true'
  return value
}

/**
 * Puts the examples into the document: each operation's request body and success response, its
 * parameters' values (a path parameter also on the other operations that have it), and one
 * CloudEvent per webhook.
 */
function embedExamples(document: OpenApiDocument, examples: ExamplesFile): void {
  // A path parameter takes the value of its operation's example, else of the first example naming it.
  const pathValues = new Map<string, string>()
  for (const example of Object.values(examples.operations)) {
    for (const [name, value] of Object.entries(example.request.params ?? {})) {
      if (!pathValues.has(name)) pathValues.set(name, value)
    }
  }
  for (const operation of operations(document)) {
    const example = operation.operationId ? examples.operations[operation.operationId] : undefined
    for (const parameter of (operation.parameters ?? []) as ParameterLike[]) {
      const name = parameter.name ?? ''
      const value =
        parameter.in === 'path'
          ? (example?.request.params?.[name] ?? pathValues.get(name))
          : parameter.in === 'query'
            ? example?.request.query?.[name]
            : undefined
      if (value !== undefined) parameter.example = typedValue(value, parameter.schema?.type)
    }
    embedErrorExamples(operation, examples.operation_errors[operation.operationId ?? ''])
    if (!example) continue
    const summary = 'The demo tenant'
    const body = operation.requestBody?.content?.[JSON_TYPE]
    if (body && example.request.body !== undefined) {
      body.examples = { demo: { summary, value: example.request.body } }
    }
    const response = operation.responses?.[String(example.response.status)]?.content?.[JSON_TYPE]
    if (response && example.response.body !== undefined) {
      const named: Record<string, { summary: string; value: unknown }> = {
        demo: { summary, value: example.response.body },
      }
      response.examples = named
      // Other answers of the operation, by name: Prism answers one with `Prefer: example=NAME`.
      for (const [name, variant] of Object.entries(examples.variants[operation.operationId ?? ''] ?? {})) {
        const query = new URLSearchParams()
        for (const [parameter, value] of Object.entries(variant.request.query ?? {}))
          for (const one of Array.isArray(value) ? value : [value]) query.append(parameter, one)
        named[name] = {
          summary: `The demo tenant, ${query.size > 0 ? `?${query}` : name} (Prefer: example=${name})`,
          value: variant.response.body,
        }
      }
    }
  }
  for (const [type, item] of Object.entries(document.webhooks ?? {})) {
    const event = examples.webhooks[type]
    const content = (item as { post?: OperationLike }).post?.requestBody?.content?.[
      'application/cloudevents+json'
    ]
    if (event && content)
      content.examples = { demo: { summary: 'An event of the demo tenant', value: event } }
  }
}

/** Removes the shared error responses no operation refers to any more (each has its own example). */
function dropUnusedResponses(document: OpenApiDocument): void {
  const responses = document.components?.responses
  if (!responses) return
  const text = JSON.stringify({ paths: document.paths, webhooks: document.webhooks })
  for (const name of Object.keys(responses)) {
    if (!text.includes(`"#/components/responses/${name}"`)) delete responses[name]
  }
}

/** The names of an operation's own error examples, by status. */
const ERROR_EXAMPLE_NAMES: Record<string, string> = {
  '400': 'bad_request',
  '404': 'not_found',
  '422': 'unprocessable',
}

/**
 * Gives an operation its own examples of 400, 404 and 422 (the server's answer to a bad request
 * of that operation) in place of the shared response, whose example belongs to another one.
 */
function embedErrorExamples(operation: OperationLike, own: Record<string, ErrorExample> | undefined): void {
  for (const [status, example] of Object.entries(own ?? {})) {
    const meaning = ERROR_RESPONSES[Number(status) as DocErrorStatus]
    if (!operation.responses?.[status] || !meaning) continue
    operation.responses[status] = {
      description: meaning.description,
      content: {
        [JSON_TYPE]: {
          schema: ref('schemas', 'ErrorBody'),
          examples: {
            [ERROR_EXAMPLE_NAMES[status] ?? `status_${status}`]: {
              summary: example.request,
              value: example.body,
            },
          },
        },
      },
    } as never
  }
}

/** The document as the file `skillhouse openapi` writes: JSON, two-space indentation, a final newline. */
export function openApiJson(document: OpenApiDocument = openApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`
}

/** Writes the document to `path` whole or not at all (the folder must exist). */
export function writeOpenApiDocument(path: string, document: OpenApiDocument = openApiDocument()): void {
  writeFileAtomic(path, openApiJson(document))
}
