import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { type AddressInfo, connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiRoute } from '../../src/api/api-route.js'
import type { LogEntry } from '../../src/server/request-log.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { tenantDatabaseFile } from '../../src/tenants/data-directory.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { type ApiAnswer, call, startTestServer, tokenFor, workingHistory } from './server-helpers.js'

/**
 * Every status of every endpoint, as a table: one row per request that provokes a status, over
 * the endpoints of spec section 4 (4.1–4.13) and the resource pattern of docs/api.md, on one server
 * with a small body limit. Statuses that do not depend on the endpoint are checked route by route
 * over the server's own route list: 401 in auth.test.ts; 403 (another tenant's token), 405 (PUT),
 * 503 (database held by another process) and the plain-text `max connections reached` here.
 *
 * Section 7 ends "Which status belongs to which endpoint is listed in section 4". So where an
 * endpoint lists 400 and not 422 (4.1, 4.3, 4.4, 4.6), a value outside its rules is a 400 here,
 * and where it lists no 404 (4.4, 4.6, 4.8), a path or parameter naming nothing is not a 404.
 * 413 and 415 are expected of every endpoint that reads a body, listed or not.
 */

const BODY_LIMIT = 4096
/** In every name of tenant acme's records: an answer that leaks them to another tenant shows it. */
const MARKER = 'acmeonly'

/** Section 7's titles, written out here rather than taken from the code under test. */
const SPEC_TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable entity',
  503: 'Service Unavailable',
}

/** Statuses checked on every route at once rather than by a row of each endpoint. */
const ROUTE_WIDE: Record<number, string> = {
  401: 'auth.test.ts: every route without a token, or with a malformed, expired or forged one',
  403: "below: every route with another tenant's token",
  405: 'below: PUT on every path (and rows of their own with the Allow header)',
  503: 'below: every route while another process holds the database, and over the connection limit',
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'
type Tenant = 'acme' | 'old'

/** One row: a request and the status it provokes. */
interface Probe {
  status: number
  /** The request in words; with the status, the name of the test. */
  what: string
  method: Method
  /** Below the tenant's base URL; `{…}` placeholders stand for what beforeAll made (PLACES). */
  path: string
  /** Sent as JSON, a string as it is; placeholders are filled in either. */
  body?: unknown
  headers?: Record<string, string>
  /** The tenant whose base URL and token are used; acme unless said. */
  tenant?: Tenant
  /** Error rows: text one description contains (the field, parameter or id it is about). */
  names?: string | RegExp
  /** 405 rows: the Allow header, exactly. */
  allow?: string
  /** Success rows: what else holds (the answer's shape, the state afterwards). */
  check?: (answer: ApiAnswer, api: Api) => Promise<void> | void
  /** Sends the request itself (a streamed body). */
  send?: (url: string, token: string) => Promise<ApiAnswer>
}

/** One endpoint: as the server registers it, the statuses its definition lists, its rows. */
interface Endpoint {
  /** Where it is defined: a section of the spec or of docs/api.md. */
  source: string
  /** `METHOD /hono/path` below the base URL, as in `app.routes`. */
  route: string
  listed: readonly number[]
  probes: Probe[]
}

/** Requests on acme as its own client, for the checks of success rows. */
interface Api {
  call(method: Method, path: string, body?: unknown): Promise<ApiAnswer>
}

const SUCCESS = new Set([200, 201, 202, 204])

// ---------------------------------------------------------------------------------------------
// Tenant acme's records, made through the API in beforeAll. `…-doomed` ones are deleted by a row.

const CUSTOM_PROPERTY_TYPES = [
  'taxonomy/domains',
  'taxonomy/subdomains',
  'taxonomy/skill_clusters',
  'taxonomy/skills',
  'employees',
  'organisational_units',
  'job_architecture/job_families',
  'job_architecture/jobs',
  'vacancies',
  'courses',
  'skill_clusters',
  'companies',
] as const

const SEED: { path: string; records: Record<string, unknown>[] }[] = [
  ...CUSTOM_PROPERTY_TYPES.map((type) => ({
    path: `/${type}/custom_properties`,
    records: [{ property_name: 'owner', property_type: 'text' }],
  })),
  {
    path: '/taxonomy/domains',
    records: [
      { external_id: 'dom-1', domain_name: `Robotics ${MARKER}` },
      { external_id: 'dom-doomed', domain_name: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/taxonomy/subdomains',
    records: [
      { external_id: 'sub-1', domain_id: 'dom-1', subdomain_name: `Arms ${MARKER}` },
      { external_id: 'sub-doomed', domain_id: 'dom-1', subdomain_name: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/taxonomy/skill_clusters',
    records: [
      { external_id: 'cl-1', subdomain_id: 'sub-1', skill_cluster_name: `Grippers ${MARKER}` },
      { external_id: 'cl-doomed', subdomain_id: 'sub-1', skill_cluster_name: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/taxonomy/skills',
    records: [
      { external_id: 'sk-1', skill_name: `Gripper tuning ${MARKER}`, skill_cluster_id: 'cl-1' },
      { external_id: 'sk-doomed', skill_name: `Doomed ${MARKER}`, skill_cluster_id: 'cl-1' },
      { external_id: 'sk-gone', skill_name: `Gone ${MARKER}`, skill_cluster_id: 'cl-1' },
    ],
  },
  {
    path: '/organisational_units',
    records: [
      { external_id: 'ou-1', name: `Head office ${MARKER}` },
      { external_id: 'ou-2', name: `Plant ${MARKER}`, parent_id: 'ou-1' },
      { external_id: 'ou-doomed', name: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/companies',
    records: [
      { external_id: 'co-1', name: `Acme NV ${MARKER}`, vat: 'BE0123456789' },
      { external_id: 'co-doomed', name: `Doomed ${MARKER}`, vat: 'BE1' },
    ],
  },
  {
    path: '/job_architecture/job_families',
    records: [
      { external_id: 'jf-1', name: `Engineering ${MARKER}` },
      { external_id: 'jf-doomed', name: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/job_architecture/jobs',
    records: [
      {
        external_id: 'job-1',
        title: `Python Developer ${MARKER}`,
        description: 'Builds Python services and writes SQL reports.',
        job_family_id: 'jf-1',
      },
      { external_id: 'job-doomed', title: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/courses',
    records: [
      { external_id: 'course-1', title: `SQL for analysts ${MARKER}` },
      { external_id: 'course-doomed', title: `Doomed ${MARKER}` },
    ],
  },
  {
    path: '/vacancies',
    records: [
      {
        external_id: 'vac-1',
        title: `Python Developer ${MARKER}`,
        status: 'active',
        job_id: 'job-1',
        company_id: 'co-1',
        organisational_unit_id: 'ou-1',
      },
      { external_id: 'vac-doomed', title: `Doomed ${MARKER}`, status: 'active' },
    ],
  },
  {
    path: '/employees',
    records: [
      {
        external_id: 'e-1',
        first_name: `Ada ${MARKER}`,
        organisational_unit_id: 'ou-1',
        job_id: 'job-1',
        custom_properties: { owner: 'HR' },
      },
      { external_id: 'e-doomed', first_name: `Doomed ${MARKER}` },
    ],
  },
]

const seeded = (path: string, index = 0): Record<string, unknown> => {
  const record = SEED.find((entry) => entry.path === path)?.records[index]
  if (!record) throw new Error(`no seeded record ${index} of ${path}`)
  return record
}

const SEEDED_EVENT = workingHistory('evt-1', 'Built Python services and tuned SQL queries.')

/** What beforeAll makes and rows name by placeholder: `{change_id}` in a path or body. */
const PLACES = { change_id: '', webhook_id: '', doomed_webhook_id: '', receiver: '' }
const fill = (text: string) =>
  text.replace(/\{(change_id|webhook_id|doomed_webhook_id|receiver)\}/g, (_, name: keyof typeof PLACES) => {
    if (!PLACES[name]) throw new Error(`placeholder {${name}} used before beforeAll set it`)
    return PLACES[name]
  })

/** The id a route's `:external_id` stands for, by the path before it. */
const ITEM_IDS: Record<string, string> = {
  '/taxonomy/domains': 'dom-1',
  '/taxonomy/subdomains': 'sub-1',
  '/taxonomy/skill_clusters': 'cl-1',
  '/taxonomy/skills': 'sk-1',
  '/organisational_units': 'ou-1',
  '/companies': 'co-1',
  '/job_architecture/job_families': 'jf-1',
  '/job_architecture/jobs': 'job-1',
  '/courses': 'course-1',
  '/vacancies': 'vac-1',
  '/employees': 'e-1',
}

/** A concrete path of a route, its parameters naming acme's seeded records. */
function concretePath(route: Pick<ApiRoute, 'path'>): string {
  return (
    route.path
      .replace(':employee_external_id', 'e-1')
      .replace(':vacancy_external_id', 'vac-1')
      .replace(':change_id', PLACES.change_id)
      .replace(':webhook_id', PLACES.webhook_id)
      // A skill of the default vocabulary, which every tenant holds.
      .replace(':skill_id', 'skl-python')
      .replace(/^(.*)\/:external_id/, (_, prefix: string) => {
        const id = ITEM_IDS[prefix]
        if (!id) throw new Error(`no seeded id for ${prefix}/:external_id: add one to ITEM_IDS`)
        return `${prefix}/${id}`
      })
  )
}

/** A row as it reads in the table: status, method, path, the request in words, the rest. */
const row = (
  status: number,
  method: Method,
  path: string,
  what: string,
  more: Omit<Probe, 'status' | 'method' | 'path' | 'what'> = {},
): Probe => ({ status, method, path, what, ...more })

// ---------------------------------------------------------------------------------------------
// Rows every endpoint that reads a body shares.

const malformed = (method: Method, path: string) =>
  row(400, method, path, 'malformed JSON', { body: '{"external_id": ', names: 'not valid JSON' })
const noBody = (method: Method, path: string) =>
  row(400, method, path, 'no body at all', { names: 'no body' })
const tooLarge = (method: Method, path: string) =>
  row(413, method, path, `a body over the server's ${BODY_LIMIT}-byte limit`, {
    body: { padding: 'x'.repeat(BODY_LIMIT) },
    names: `limit of ${BODY_LIMIT} bytes`,
  })
/**
 * "An unsupported content type gives 415 where that error is listed" (section 4): 4.1 and 4.4
 * list 400 but not 415, so there another content type is a request not structured correctly.
 */
const LISTS_400_NOT_415 = new Set(['POST /taxonomy/domains', 'POST /job_architecture/changes/preview'])
const wrongType = (method: Method, path: string, body: unknown) =>
  row(
    LISTS_400_NOT_415.has(`${method} ${path}`) ? 400 : 415,
    method,
    path,
    'a JSON body sent as text/plain',
    {
      body: JSON.stringify(body),
      headers: { 'content-type': 'text/plain' },
      names: 'content type must be application/json; got text/plain',
    },
  )
/** 400 malformed, 413 and 415 for a route that reads a body, `valid` being one it accepts. */
const bodyProbes = (method: Method, path: string, valid: unknown): Probe[] => [
  malformed(method, path),
  tooLarge(method, path),
  wrongType(method, path, valid),
]
const notAllowed = (method: Method, path: string, allow: string, why = '') =>
  row(405, method, path, `${method} on ${path}${why}`, { allow, names: `method ${method} is not allowed` })

/** A streamed body without Content-Length that grows past the limit. */
async function streamed(url: string, token: string): Promise<ApiAnswer> {
  const chunk = new TextEncoder().encode(`"${'x'.repeat(BODY_LIMIT / 2)}",`)
  let sent = 0
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"padding": ['))
      if (sent < 3) controller.enqueue(chunk)
      else {
        controller.enqueue(new TextEncoder().encode('"end"]}'))
        controller.close()
      }
      sent++
    },
  })
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit)
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

// ---------------------------------------------------------------------------------------------
// the resource pattern of docs/api.md, the same for every collection.

interface CollectionCase {
  /** Below the base URL, e.g. `/employees`. */
  path: string
  /** The seeded record rows read, patch and re-create; the one the DELETE row removes. */
  seeded: string
  doomed: string
  /** A new record, and a field of it that is required. */
  create: Record<string, unknown>
  required: string
  /** A new record with a value its rules refuse, and the field the 422 names. */
  invalid: Record<string, unknown>
  invalidField: string
  /** A new record referring to one that does not exist, and the id the 404 names. */
  unknownReference?: { body: Record<string, unknown>; names: string }
  patch: Record<string, unknown>
  invalidPatch: { body: Record<string, unknown>; names: string }
  /** A seeded record others still refer to: its DELETE is a 409 naming one of them. */
  referred?: { id: string; names: string }
  /** Entity collections refuse a PATCH that changes external_id; taxonomy levels have no such field. */
  entity: boolean
  /** Rows of these routes are in section 4's endpoints (4.1, 4.3, 4.7, 4.13), not here. */
  elsewhere?: ('POST' | 'GET item')[]
}

function resourcePattern(c: CollectionCase): Endpoint[] {
  const source = 'resource pattern (docs/api.md)'
  const item = `${c.path}/${c.seeded}`
  const endpoints: Endpoint[] = []
  const get = (api: Api, id: string) => api.call('GET', `${c.path}/${id}`)
  if (!c.elsewhere?.includes('POST')) {
    endpoints.push({
      source,
      route: `POST ${c.path}`,
      listed: [204, 409],
      probes: [
        row(204, 'POST', c.path, 'a new record', {
          body: c.create,
          check: async (answer, api) => {
            expect(answer.text).toBe('')
            const stored = await get(api, String(c.create.external_id))
            expect(stored.status).toBe(200)
            expect(stored.json).toMatchObject(c.create)
          },
        }),
        row(409, 'POST', c.path, 'the external_id of an existing record again', {
          body: { ...c.create, external_id: c.seeded },
          names: `'${c.seeded}' already exists`,
        }),
        row(400, 'POST', c.path, `a record without ${c.required}`, {
          body: Object.fromEntries(Object.entries(c.create).filter(([field]) => field !== c.required)),
          names: `${c.required}: is required`,
        }),
        row(400, 'POST', c.path, 'a field the record does not have', {
          body: { ...c.create, colour: 'red' },
          names: 'colour: is not a field',
        }),
        row(400, 'POST', c.path, 'a JSON array instead of an object', {
          body: [c.create],
          names: 'must be of type object',
        }),
        noBody('POST', c.path),
        row(422, 'POST', c.path, `an invalid ${c.invalidField}`, {
          body: c.invalid,
          names: `${c.invalidField}:`,
        }),
        ...(c.unknownReference
          ? [
              row(404, 'POST', c.path, 'a reference to a record that does not exist', {
                body: c.unknownReference.body,
                names: `'${c.unknownReference.names}' does not exist`,
              }),
            ]
          : []),
        ...bodyProbes('POST', c.path, c.create),
      ],
    })
  }
  endpoints.push({
    source,
    route: `GET ${c.path}`,
    listed: [200],
    probes: [
      row(200, 'GET', `${c.path}?limit=1`, 'a page of one record, then the page after it', {
        check: async (answer, api) => {
          const page = answer.json as {
            records: { external_id: string }[]
            has_next: boolean
            next_starting_after: string | null
          }
          expect(Object.keys(page).sort()).toEqual(['has_next', 'next_starting_after', 'records'])
          expect(page.records).toHaveLength(1)
          expect(page.has_next).toBe(true)
          const first = page.records[0]?.external_id
          expect(page.next_starting_after).toBe(first)
          const next = await api.call('GET', `${c.path}?limit=1000&starting_after=${first}`)
          const rest = (next.json as { records: { external_id: string }[] }).records
          expect(rest.length).toBeGreaterThan(0)
          expect(rest.every((record) => String(record.external_id) > String(first))).toBe(true)
        },
      }),
      row(422, 'GET', `${c.path}?limit=0`, 'limit=0', { names: 'limit' }),
      notAllowed('PUT', c.path, 'GET, HEAD, POST'),
    ],
  })
  if (!c.elsewhere?.includes('GET item')) {
    endpoints.push({
      source,
      route: `GET ${c.path}/:external_id`,
      listed: [200, 404],
      probes: [
        row(200, 'GET', item, 'a seeded record', {
          check: (answer) => expect(answer.json).toMatchObject(seeded(c.path)),
        }),
        row(404, 'GET', `${c.path}/nothing-here`, 'an unknown external_id', {
          names: "'nothing-here' does not exist",
        }),
        notAllowed('PUT', item, 'GET, HEAD, PATCH, DELETE'),
      ],
    })
  }
  endpoints.push({
    source,
    route: `PATCH ${c.path}/:external_id`,
    listed: [204, 404],
    probes: [
      row(204, 'PATCH', item, 'a change of one field', {
        body: c.patch,
        check: async (answer, api) => {
          expect(answer.text).toBe('')
          expect((await get(api, c.seeded)).json).toMatchObject(c.patch)
        },
      }),
      row(404, 'PATCH', `${c.path}/nothing-here`, 'an unknown external_id', {
        body: c.patch,
        names: "'nothing-here' does not exist",
      }),
      row(400, 'PATCH', item, 'a JSON array instead of an object', { body: [c.patch], names: /object/ }),
      row(400, 'PATCH', item, 'a field the record does not have', {
        body: { colour: 'red' },
        names: 'colour: is not a field',
      }),
      noBody('PATCH', item),
      row(422, 'PATCH', item, 'an invalid value', { body: c.invalidPatch.body, names: c.invalidPatch.names }),
      ...(c.entity
        ? [
            row(422, 'PATCH', item, 'a change of external_id', {
              body: { external_id: 'someone-else' },
              names: 'external_id: cannot change',
            }),
          ]
        : []),
      ...bodyProbes('PATCH', item, c.patch),
    ],
  })
  endpoints.push({
    source,
    route: `DELETE ${c.path}/:external_id`,
    listed: [204, 404],
    probes: [
      row(204, 'DELETE', `${c.path}/${c.doomed}`, 'a record nothing refers to', {
        check: async (answer, api) => {
          expect(answer.text).toBe('')
          expect((await get(api, c.doomed)).status).toBe(404)
        },
      }),
      row(404, 'DELETE', `${c.path}/nothing-here`, 'an unknown external_id', {
        names: "'nothing-here' does not exist",
      }),
      ...(c.referred
        ? [
            row(409, 'DELETE', `${c.path}/${c.referred.id}`, 'a record others still refer to', {
              names: c.referred.names,
            }),
          ]
        : []),
    ],
  })
  return endpoints
}

const COLLECTIONS: CollectionCase[] = [
  {
    path: '/taxonomy/domains',
    seeded: 'dom-1',
    doomed: 'dom-doomed',
    create: { external_id: 'dom-new', domain_name: `New domain ${MARKER}` },
    required: 'domain_name',
    invalid: { external_id: 'dom-x', domain_name: '' },
    invalidField: 'domain_name',
    patch: { domain_name: `Robotics renamed ${MARKER}` },
    invalidPatch: { body: { domain_name: '' }, names: 'domain_name:' },
    referred: { id: 'dom-1', names: 'sub-1' },
    entity: false,
    elsewhere: ['POST'],
  },
  {
    path: '/taxonomy/subdomains',
    seeded: 'sub-1',
    doomed: 'sub-doomed',
    create: { external_id: 'sub-new', domain_id: 'dom-1', subdomain_name: `New ${MARKER}` },
    required: 'domain_id',
    invalid: { external_id: 'sub-x', domain_id: 'dom-1', subdomain_name: '' },
    invalidField: 'subdomain_name',
    unknownReference: {
      body: { external_id: 'sub-x', domain_id: 'dom-none', subdomain_name: 'X' },
      names: 'dom-none',
    },
    patch: { subdomain_name: `Arms renamed ${MARKER}` },
    invalidPatch: { body: { subdomain_name: '' }, names: 'subdomain_name:' },
    referred: { id: 'sub-1', names: 'cl-1' },
    entity: false,
    elsewhere: ['GET item'],
  },
  {
    path: '/taxonomy/skill_clusters',
    seeded: 'cl-1',
    doomed: 'cl-doomed',
    create: { external_id: 'cl-new', subdomain_id: 'sub-1', skill_cluster_name: `New ${MARKER}` },
    required: 'skill_cluster_name',
    invalid: { external_id: 'cl x', subdomain_id: 'sub-1', skill_cluster_name: 'X' },
    invalidField: 'external_id',
    unknownReference: {
      body: { external_id: 'cl-x', subdomain_id: 'sub-none', skill_cluster_name: 'X' },
      names: 'sub-none',
    },
    patch: { skill_cluster_name: `Grippers renamed ${MARKER}` },
    invalidPatch: { body: { subdomain_id: 'sub 1' }, names: 'subdomain_id:' },
    referred: { id: 'cl-1', names: 'sk-1' },
    entity: false,
  },
  {
    path: '/taxonomy/skills',
    seeded: 'sk-1',
    doomed: 'sk-doomed',
    create: { external_id: 'sk-new', skill_name: `Kitesurfing ${MARKER}`, skill_cluster_id: 'cl-1' },
    required: 'skill_name',
    invalid: { external_id: 'sk-x', skill_name: 'X', skill_type: 'magic' },
    invalidField: 'skill_type',
    unknownReference: {
      body: { external_id: 'sk-x', skill_name: 'X', skill_cluster_id: 'cl-none' },
      names: 'cl-none',
    },
    patch: { description: 'Tunes the grip of robot hands.' },
    invalidPatch: { body: { skill_type: 'magic' }, names: 'skill_type:' },
    entity: false,
    elsewhere: ['GET item'],
  },
  {
    path: '/organisational_units',
    seeded: 'ou-1',
    doomed: 'ou-doomed',
    create: { external_id: 'ou-new', name: `New unit ${MARKER}` },
    required: 'name',
    invalid: { external_id: 'ou-x', name: '' },
    invalidField: 'name',
    unknownReference: { body: { external_id: 'ou-x', name: 'X', parent_id: 'ou-none' }, names: 'ou-none' },
    patch: { name: `Head office renamed ${MARKER}` },
    invalidPatch: { body: { parent_id: 'ou-2' }, names: 'cycle' },
    referred: { id: 'ou-1', names: 'ou-2' },
    entity: true,
  },
  {
    path: '/companies',
    seeded: 'co-1',
    doomed: 'co-doomed',
    create: { external_id: 'co-new', name: `New company ${MARKER}`, vat: 'NL1' },
    required: 'vat',
    invalid: { external_id: 'co-x', name: 'X', vat: 'BE01234567890123' },
    invalidField: 'vat',
    patch: { location: { lat: 51.05, lng: 3.72 } },
    invalidPatch: { body: { languages: [{ language: 'nl', level: 6 }] }, names: 'languages.0.level' },
    referred: { id: 'co-1', names: 'vac-1' },
    entity: true,
    elsewhere: ['POST'],
  },
  {
    path: '/job_architecture/job_families',
    seeded: 'jf-1',
    doomed: 'jf-doomed',
    create: { external_id: 'jf-new', name: `New family ${MARKER}` },
    required: 'name',
    invalid: { external_id: 'jf-x', name: 'X', skills: [{ skill_id: 'skl-python', proficiency_level: 9 }] },
    invalidField: 'skills.0.proficiency_level',
    patch: { description: 'Builds and runs the software.' },
    invalidPatch: { body: { name: '' }, names: 'name:' },
    referred: { id: 'jf-1', names: 'job-1' },
    entity: true,
  },
  {
    path: '/job_architecture/jobs',
    seeded: 'job-1',
    doomed: 'job-doomed',
    create: { external_id: 'job-new', title: `Data Analyst ${MARKER}`, job_family_id: 'jf-1' },
    required: 'title',
    invalid: { external_id: 'job-x', title: '' },
    invalidField: 'title',
    unknownReference: {
      body: { external_id: 'job-x', title: 'X', job_family_id: 'jf-none' },
      names: 'jf-none',
    },
    patch: { description: 'Builds Python services, writes SQL reports and reviews code.' },
    invalidPatch: { body: { title: '' }, names: 'title:' },
    referred: { id: 'job-1', names: 'e-1' },
    entity: true,
  },
  {
    path: '/courses',
    seeded: 'course-1',
    doomed: 'course-doomed',
    create: { external_id: 'course-new', title: `Kubernetes basics ${MARKER}` },
    required: 'title',
    invalid: { external_id: 'course-x', title: 'X', language: 'english' },
    invalidField: 'language',
    patch: { duration_hours: 12 },
    invalidPatch: { body: { duration_hours: -1 }, names: 'duration_hours:' },
    entity: true,
  },
  {
    path: '/vacancies',
    seeded: 'vac-1',
    doomed: 'vac-doomed',
    create: { external_id: 'vac-new', title: `Analyst ${MARKER}`, status: 'active', company_id: 'co-1' },
    required: 'title',
    invalid: { external_id: 'vac-x', title: 'X', status: 'open' },
    invalidField: 'status',
    unknownReference: {
      body: { external_id: 'vac-x', title: 'X', company_id: 'co-none' },
      names: 'co-none',
    },
    patch: { status: 'on_hold' },
    invalidPatch: { body: { published_date: '2024-02-30' }, names: 'published_date:' },
    entity: true,
  },
  {
    path: '/employees',
    seeded: 'e-1',
    doomed: 'e-doomed',
    create: { external_id: 'e-new', first_name: `Eve ${MARKER}`, organisational_unit_id: 'ou-1' },
    required: 'external_id',
    invalid: { external_id: 'e-x', email: 'not-an-email' },
    invalidField: 'email',
    unknownReference: {
      body: { external_id: 'e-x', organisational_unit_id: 'ou-none' },
      names: 'ou-none',
    },
    patch: { last_name: `Lovelace ${MARKER}` },
    invalidPatch: { body: { custom_properties: { owner: 3 } }, names: 'custom_properties.owner' },
    entity: true,
  },
]

// ---------------------------------------------------------------------------------------------
// Section 4, endpoint by endpoint.

const oldTicket = {
  external_id: 'tkt-old',
  event_type: 'ticket',
  timestamp: '2024-06-01',
  content: { title: 'Fix the Kubernetes ingress' },
  source: 'jira',
}
const oldMergeRequest = {
  external_id: 'mr-old',
  event_type: 'merge_request',
  timestamp: '2024-06-01',
  content: { title: 'Add retries', repository: 'platform', changed_files: ['src/retry.py'] },
  source: 'gitlab',
}
const oldDynamic = {
  external_id: 'dyn-old',
  event_type: 'dynamic',
  timestamp: '2024-06-01',
  content: { title: 'Paired on the Rust parser' },
  source: 'collab',
}
const OUTDATED = 'model configuration is outdated and should be upgraded'

const newCompany = {
  external_id: 'co-spec',
  name: `Spec company ${MARKER}`,
  vat: 'BE0999999999',
  location: { country: 'BE', postal_code: '9000' },
  languages: [{ language: 'nl', level: 5 }, { language: 'en' }],
}
const preview = { change_type: 'add_job_description', job_id: 'job-1', context: { instructions: 'Short.' } }
const jobMatching = { filters: [], weights: [], score_min_threshold: 0 }

const expectJsonArrayOf = (answer: ApiAnswer, keys: string[]) => {
  expect(Array.isArray(answer.json)).toBe(true)
  for (const entry of answer.json as Record<string, unknown>[])
    expect(Object.keys(entry).sort()).toEqual(keys)
}

const SPEC_ENDPOINTS: Endpoint[] = [
  {
    source: '4.1',
    route: 'POST /taxonomy/domains',
    listed: [204, 400, 401, 403, 405, 409, 503],
    probes: [
      row(204, 'POST', '/taxonomy/domains', 'a domain with both fields', {
        body: { external_id: 'dom-spec', domain_name: `Spec domain ${MARKER}` },
        check: async (answer, api) => {
          expect(answer.text).toBe('')
          expect((await api.call('GET', '/taxonomy/domains/dom-spec')).json).toMatchObject({
            external_id: 'dom-spec',
            domain_name: `Spec domain ${MARKER}`,
          })
        },
      }),
      row(409, 'POST', '/taxonomy/domains', 'a domain whose external_id exists', {
        body: { external_id: 'dom-1', domain_name: 'Again' },
        names: "domain 'dom-1' already exists",
      }),
      row(400, 'POST', '/taxonomy/domains', 'a domain without domain_name', {
        body: { external_id: 'dom-2' },
        names: 'domain_name: is required',
      }),
      row(400, 'POST', '/taxonomy/domains', 'a field a domain does not have', {
        body: { external_id: 'dom-2', domain_name: 'X', colour: 'red' },
        names: 'colour: is not a field',
      }),
      row(
        400,
        'POST',
        '/taxonomy/domains',
        'an external_id outside [a-zA-Z0-9_-]+ (4.1 lists 400, not 422)',
        { body: { external_id: 'dom 2', domain_name: 'X' }, names: 'external_id:' },
      ),
      noBody('POST', '/taxonomy/domains'),
      ...bodyProbes('POST', '/taxonomy/domains', { external_id: 'dom-2', domain_name: 'X' }),
      // The resource pattern (docs/api.md): the collection is also listed with GET.
      notAllowed('PATCH', '/taxonomy/domains', 'GET, HEAD, POST'),
    ],
  },
  {
    source: '4.2',
    route: 'POST /employees/:employee_external_id/skill_events',
    listed: [204, 400, 401, 403, 404, 405, 409, 415, 422, 503],
    probes: [
      row(
        204,
        'POST',
        '/employees/e-1/skill_events?language=en&strict=false&end_active_working_history=false',
        'a working_history event of a known employee',
        {
          body: workingHistory('evt-new', 'Ran the Kubernetes platform.'),
          check: (answer) => expect(answer.text).toBe(''),
        },
      ),
      row(404, 'POST', '/employees/nobody/skill_events', 'an event of an employee that does not exist', {
        body: workingHistory('evt-x', 'Anything.'),
        names: "employee 'nobody' does not exist",
      }),
      row(
        409,
        'POST',
        '/employees/e-1/skill_events',
        'an event whose external_id exists with other content',
        { body: workingHistory('evt-1', 'Something else entirely.'), names: "'evt-1' already exists" },
      ),
      row(409, 'POST', '/employees/e-1/skill_events', 'the stored event sent again, the same content', {
        body: SEEDED_EVENT,
        names: "'evt-1' already exists with the same content",
      }),
      row(400, 'POST', '/employees/e-1/skill_events', 'an event without content', {
        body: { ...workingHistory('evt-x', 'x'), content: undefined },
        names: 'content: is required',
      }),
      row(400, 'POST', '/employees/e-1/skill_events', 'an event naming its employee in the body', {
        body: { ...workingHistory('evt-x', 'x'), employee_id: 'e-1' },
        names: 'employee_id',
      }),
      noBody('POST', '/employees/e-1/skill_events'),
      row(422, 'POST', '/employees/e-1/skill_events', 'a timestamp that is no calendar date', {
        body: { ...workingHistory('evt-x', 'x'), timestamp: '2024-02-30' },
        names: 'timestamp:',
      }),
      row(422, 'POST', '/employees/e-1/skill_events', 'an event_type that does not exist', {
        body: { ...workingHistory('evt-x', 'x'), event_type: 'gossip' },
        names: 'event_type',
      }),
      row(422, 'POST', '/employees/e-1/skill_events?strict=maybe', 'strict=maybe', {
        body: workingHistory('evt-x', 'x'),
        names: 'strict',
      }),
      row(
        422,
        'POST',
        '/employees/e-old/skill_events',
        'a ticket event on a tenant with model configuration MC_2024_Q3_V1',
        { tenant: 'old', body: oldTicket, names: OUTDATED },
      ),
      row(
        422,
        'POST',
        '/employees/e-old/skill_events',
        'a merge_request event on a tenant with model configuration MC_2024_Q3_V1',
        { tenant: 'old', body: oldMergeRequest, names: OUTDATED },
      ),
      row(
        422,
        'POST',
        '/employees/e-old/skill_events',
        'a dynamic event on a tenant with model configuration MC_2024_Q3_V1',
        { tenant: 'old', body: oldDynamic, names: OUTDATED },
      ),
      ...bodyProbes('POST', '/employees/e-1/skill_events', workingHistory('evt-x', 'x')),
      notAllowed('GET', '/employees/e-1/skill_events', 'POST'),
    ],
  },
  {
    source: '4.3',
    route: 'POST /companies',
    listed: [204, 400, 401, 403, 405, 409, 413, 415, 503],
    probes: [
      row(204, 'POST', '/companies', 'a company with an address and languages', {
        body: newCompany,
        check: async (answer, api) => {
          expect(answer.text).toBe('')
          expect((await api.call('GET', '/companies/co-spec')).json).toMatchObject({
            external_id: 'co-spec',
            vat: 'BE0999999999',
            location: { country: 'BE', postal_code: '9000' },
          })
        },
      }),
      row(409, 'POST', '/companies', 'a company whose external_id exists', {
        body: { external_id: 'co-1', name: 'Other', vat: 'BE1' },
        names: "company 'co-1' already exists",
      }),
      row(400, 'POST', '/companies', 'a company without vat', {
        body: { external_id: 'co-x', name: 'X' },
        names: 'vat: is required',
      }),
      row(400, 'POST', '/companies', 'a location that is neither a point nor an address', {
        body: { external_id: 'co-x', name: 'X', vat: 'BE1', location: { city: 'Ghent' } },
        names: 'location',
      }),
      row(400, 'POST', '/companies', 'a VAT number of 16 characters (4.3 lists 400, not 422)', {
        body: { external_id: 'co-x', name: 'X', vat: 'BE01234567890123' },
        names: 'vat:',
      }),
      noBody('POST', '/companies'),
      ...bodyProbes('POST', '/companies', newCompany),
      row(413, 'POST', '/companies', 'a streamed body without Content-Length that passes the limit', {
        names: `limit of ${BODY_LIMIT} bytes`,
        send: streamed,
      }),
      notAllowed('PUT', '/companies', 'GET, HEAD, POST'),
    ],
  },
  {
    source: '4.4',
    route: 'POST /job_architecture/changes/preview',
    listed: [202, 400, 401, 403, 405, 503],
    probes: [
      row(
        202,
        'POST',
        '/job_architecture/changes/preview',
        'a preview of add_job_description for a known job',
        {
          body: preview,
          check: async (answer, api) => {
            expect(Object.keys(answer.json as object)).toEqual(['change_id'])
            const { change_id } = answer.json as { change_id: string }
            expect(change_id.length).toBeGreaterThan(0)
            expect((await api.call('GET', `/job_architecture/changes/${change_id}`)).status).toBe(200)
          },
        },
      ),
      row(400, 'POST', '/job_architecture/changes/preview', 'a request without context', {
        body: { change_type: 'add_job_description', job_id: 'job-1' },
        names: 'context',
      }),
      row(400, 'POST', '/job_architecture/changes/preview', 'change_type rename (4.4 lists 400, not 422)', {
        body: { ...preview, change_type: 'rename' },
        names: 'change_type',
      }),
      row(400, 'POST', '/job_architecture/changes/preview', 'a job_id of no job (4.4 lists 400, not 404)', {
        body: { ...preview, job_id: 'job-none' },
        names: 'job-none',
      }),
      noBody('POST', '/job_architecture/changes/preview'),
      ...bodyProbes('POST', '/job_architecture/changes/preview', preview),
      notAllowed('GET', '/job_architecture/changes/preview', 'POST'),
    ],
  },
  {
    source: 'skillhouse (the preview 4.4 names)',
    route: 'GET /job_architecture/changes/:change_id',
    listed: [200, 404],
    probes: [
      row(200, 'GET', '/job_architecture/changes/{change_id}', 'the preview made in beforeAll', {
        check: (answer) => expect(answer.json).toMatchObject({ job_id: 'job-1' }),
      }),
      row(404, 'GET', '/job_architecture/changes/jcp-unknown', 'a change_id that was never made', {
        names: "'jcp-unknown' does not exist",
      }),
    ],
  },
  {
    source: '4.5',
    route: 'GET /employees/:employee_external_id/vacancies/:vacancy_external_id/gap',
    listed: [200, 401, 403, 404, 405, 503],
    probes: [
      row(
        200,
        'GET',
        '/employees/e-1/vacancies/vac-1/gap?vocab_language=de',
        'the gap of a known employee and vacancy, in German',
        { check: (answer) => expectJsonArrayOf(answer, ['skill_id', 'skill_name']) },
      ),
      row(404, 'GET', '/employees/nobody/vacancies/vac-1/gap', 'an unknown employee', {
        names: "employee 'nobody'",
      }),
      row(404, 'GET', '/employees/e-1/vacancies/nothing/gap', 'an unknown vacancy', {
        names: "vacancy 'nothing'",
      }),
      notAllowed('POST', '/employees/e-1/vacancies/vac-1/gap', 'GET, HEAD'),
    ],
  },
  {
    source: '4.6',
    route: 'GET /organisational_units/export',
    listed: [200, 400, 401, 403, 405, 503],
    probes: [
      row(
        200,
        'GET',
        '/organisational_units/export?include=low_data_availability_flag',
        'the hierarchy with low_data_availability counts',
        {
          check: (answer) => {
            const roots = (
              answer.json as {
                organisational_structure: {
                  external_id: string
                  total_nr_of_employees: number
                  low_data_availability: number
                  children: { external_id: string }[]
                }[]
              }
            ).organisational_structure
            const head = roots.find((node) => node.external_id === 'ou-1')
            expect(head?.children.map((child) => child.external_id)).toContain('ou-2')
            expect(head?.total_nr_of_employees).toBeGreaterThanOrEqual(1)
            expect(typeof head?.low_data_availability).toBe('number')
            expect(roots.map((node) => node.external_id)).not.toContain('ou-2')
          },
        },
      ),
      row(
        400,
        'GET',
        '/organisational_units/export?include=everything',
        'include=everything (4.6 lists 400, not 422)',
        { names: 'include' },
      ),
      row(
        400,
        'GET',
        `/organisational_units/export?skill_id=${'s'.repeat(101)}`,
        'a skill_id of 101 characters (4.6 lists 400, not 422)',
        { names: 'skill_id' },
      ),
      row(
        400,
        'GET',
        '/organisational_units/export?external_vendor=vendor_x',
        'external_vendor=vendor_x (4.6 lists 400, not 422)',
        { names: 'external_vendor' },
      ),
      row(
        400,
        'GET',
        '/organisational_units/export?skill_id=skl-nothing',
        'a skill_id of no skill (4.6 lists 400, not 404)',
        { names: 'skl-nothing' },
      ),
      row(
        403,
        'GET',
        '/organisational_units/export?external_vendor=vendor_b',
        'a vendor not activated on the tenant',
        { names: 'vendor_b' },
      ),
      notAllowed('DELETE', '/organisational_units/export', 'GET, HEAD', ' (not a unit called export)'),
    ],
  },
  {
    source: '4.7',
    route: 'GET /taxonomy/subdomains/:external_id',
    listed: [200, 401, 403, 404, 405, 503],
    probes: [
      row(200, 'GET', '/taxonomy/subdomains/sub-1', 'a subdomain', {
        check: (answer) => {
          expect(Object.keys(answer.json as object).sort()).toEqual([
            'domain_id',
            'external_id',
            'last_updated',
            'subdomain_name',
          ])
          expect((answer.json as { last_updated: string }).last_updated).toMatch(/Z$/)
        },
      }),
      row(
        200,
        'GET',
        '/taxonomy/subdomains/sub-1?include=custom_properties',
        'a subdomain with include=custom_properties',
        { check: (answer) => expect(answer.json).toHaveProperty('custom_properties') },
      ),
      row(404, 'GET', '/taxonomy/subdomains/sub-none', 'an unknown subdomain', {
        names: "subdomain 'sub-none'",
      }),
      notAllowed('POST', '/taxonomy/subdomains/sub-1', 'GET, HEAD, PATCH, DELETE'),
    ],
  },
  ...CUSTOM_PROPERTY_TYPES.flatMap((type): Endpoint[] => [
    {
      source: '4.8',
      route: `GET /${type}/custom_properties`,
      listed: [200, 403, 405, 503],
      probes: [
        row(200, 'GET', `/${type}/custom_properties`, 'the definitions', {
          check: (answer) => {
            expectJsonArrayOf(answer, ['property_name', 'property_type'])
            expect(answer.json).toContainEqual({ property_name: 'owner', property_type: 'text' })
          },
        }),
        ...(type === 'employees'
          ? [notAllowed('DELETE', '/employees/custom_properties', 'GET, HEAD, POST', ' (not an employee)')]
          : []),
      ],
    },
    {
      source: 'custom property definitions (docs/api.md)',
      route: `POST /${type}/custom_properties`,
      listed: [204, 409],
      probes: [
        row(204, 'POST', `/${type}/custom_properties`, 'a new definition', {
          body: { property_name: 'grade', property_type: 'number' },
          check: async (answer, api) => {
            expect(answer.text).toBe('')
            expect((await api.call('GET', `/${type}/custom_properties`)).json).toContainEqual({
              property_name: 'grade',
              property_type: 'number',
            })
          },
        }),
        row(409, 'POST', `/${type}/custom_properties`, 'a definition whose name exists', {
          body: { property_name: 'owner', property_type: 'number' },
          names: "'owner' already exists",
        }),
        row(400, 'POST', `/${type}/custom_properties`, 'a definition without property_type', {
          body: { property_name: 'size' },
          names: 'property_type: is required',
        }),
        row(422, 'POST', `/${type}/custom_properties`, 'a property_name with __', {
          body: { property_name: 'a__b', property_type: 'text' },
          names: 'property_name:',
        }),
        row(422, 'POST', `/${type}/custom_properties`, 'property_type integer', {
          body: { property_name: 'size', property_type: 'integer' },
          names: 'property_type:',
        }),
        noBody('POST', `/${type}/custom_properties`),
        ...bodyProbes('POST', `/${type}/custom_properties`, { property_name: 'size', property_type: 'text' }),
      ],
    },
  ]),
  {
    source: '4.9',
    route: 'GET /skill_clusters/metrics/count',
    listed: [200, 401, 403, 405, 503],
    probes: [
      row(200, 'GET', '/skill_clusters/metrics/count', 'the count, marked deprecated', {
        check: (answer) => {
          expect(answer.headers.get('deprecation')).toMatch(/^@\d+$/)
          const metric = answer.json as Record<string, unknown>
          expect(Object.keys(metric).sort()).toEqual([
            'entity_id',
            'entity_type',
            'last_update',
            'metric_name',
            'metric_value',
          ])
          expect(metric).toMatchObject({ entity_type: 'SkillCluster', metric_name: 'count' })
          expect(metric.metric_value).toBeGreaterThan(0)
        },
      }),
      notAllowed('DELETE', '/skill_clusters/metrics/count', 'GET, HEAD'),
    ],
  },
  {
    source: '4.10',
    route: 'POST /job_architecture/export/jobs/matching_employees',
    // "not shown beyond the common errors of section 7"
    listed: [200, 400, 401, 403, 405, 413, 415, 422, 503],
    probes: [
      row(
        200,
        'POST',
        '/job_architecture/export/jobs/matching_employees?response_format=explained&vocab_language=nl',
        'empty filters and weights, explained',
        {
          body: jobMatching,
          check: (answer) => {
            const page = answer.json as { records: { job_id: string; matches: unknown[] }[] }
            expect(Object.keys(page).sort()).toEqual(['has_next', 'next_starting_after', 'records'])
            expect(page.records.map((record) => record.job_id)).toContain('job-1')
          },
        },
      ),
      row(
        400,
        'POST',
        '/job_architecture/export/jobs/matching_employees',
        'a body without the required weights',
        { body: { filters: [] }, names: 'weights' },
      ),
      noBody('POST', '/job_architecture/export/jobs/matching_employees'),
      row(
        422,
        'POST',
        '/job_architecture/export/jobs/matching_employees',
        'limit 80, over the range 1 to 50',
        { body: { ...jobMatching, limit: 80 }, names: 'limit' },
      ),
      row(
        422,
        'POST',
        '/job_architecture/export/jobs/matching_employees?response_format=fancy',
        'response_format=fancy',
        { body: jobMatching, names: 'response_format' },
      ),
      ...bodyProbes('POST', '/job_architecture/export/jobs/matching_employees', jobMatching),
      notAllowed('GET', '/job_architecture/export/jobs/matching_employees', 'POST'),
    ],
  },
  {
    source: '4.11 (path: docs/api.md)',
    route: 'POST /employees/:employee_external_id/matching_vacancies',
    listed: [200, 400, 401, 403, 404, 405, 413, 415, 422, 503],
    probes: [
      row(200, 'POST', '/employees/e-1/matching_vacancies?min_score=0&limit=5', 'an empty request', {
        body: {},
        check: (answer) => expect(Array.isArray((answer.json as { records: unknown[] }).records)).toBe(true),
      }),
      row(
        200,
        'POST',
        '/employees/e-1/matching_vacancies',
        'no body at all (filters, weights and event types are optional)',
      ),
      row(404, 'POST', '/employees/nobody/matching_vacancies', 'an unknown employee', {
        body: {},
        names: "employee 'nobody'",
      }),
      row(400, 'POST', '/employees/e-1/matching_vacancies', 'filters that are a string, not an array', {
        body: { filters: 'near' },
        names: 'filters',
      }),
      row(422, 'POST', '/employees/e-1/matching_vacancies?limit=500', 'limit=500', {
        body: {},
        names: 'limit',
      }),
      row(422, 'POST', '/employees/e-1/matching_vacancies', 'a filter kind that does not exist', {
        body: { filters: [{ filter: 'nearby' }] },
        names: 'filter',
      }),
      ...bodyProbes('POST', '/employees/e-1/matching_vacancies', {}),
      notAllowed('GET', '/employees/e-1/matching_vacancies', 'POST'),
    ],
  },
  {
    source: '4.12 (path: docs/api.md)',
    route: 'GET /job_architecture/job_families/:external_id/skill_profile',
    listed: [200, 401, 403, 404, 405, 422, 503],
    probes: [
      row(
        200,
        'GET',
        '/job_architecture/job_families/jf-1/skill_profile?include=proficiency_level&format=list',
        'the profile of a known family, with proficiency levels',
        {
          check: (answer) => {
            expect(answer.json).toMatchObject({ external_id: 'jf-1' })
            expect(Array.isArray((answer.json as { skills: unknown[] }).skills)).toBe(true)
          },
        },
      ),
      row(404, 'GET', '/job_architecture/job_families/jf-none/skill_profile', 'an unknown family', {
        names: "'jf-none'",
      }),
      row(422, 'GET', '/job_architecture/job_families/jf-1/skill_profile?format=tree', 'format=tree', {
        names: 'format',
      }),
      row(
        422,
        'GET',
        '/job_architecture/job_families/jf-1/skill_profile?domain_namespace=galaxy',
        'domain_namespace=galaxy',
        { names: 'domain_namespace' },
      ),
      notAllowed('POST', '/job_architecture/job_families/jf-1/skill_profile', 'GET, HEAD'),
    ],
  },
  ...(
    [
      ['employee', '/employees', 'e-1'],
      ['job', '/job_architecture/jobs', 'job-1'],
      ['course', '/courses', 'course-1'],
    ] as const
  ).map(
    ([noun, collection, id]): Endpoint => ({
      source: '4.13',
      route: `GET ${collection}/:external_id/skill_profile`,
      listed: [200, 401, 403, 404, 405, 503],
      probes: [
        row(
          200,
          'GET',
          `${collection}/${id}/skill_profile?vocab_language=de`,
          `the profile of a known ${noun}`,
          {
            check: (answer) => {
              expect(answer.json).toMatchObject({ external_id: id, external_vendor: 'vendor_default' })
              expect(Array.isArray((answer.json as { skills: unknown[] }).skills)).toBe(true)
            },
          },
        ),
        row(404, 'GET', `${collection}/nothing-here/skill_profile`, `an unknown ${noun}`, {
          names: `${noun} 'nothing-here'`,
        }),
        row(
          422,
          'GET',
          `${collection}/${id}/skill_profile?external_vendor=vendor_x`,
          'external_vendor=vendor_x',
          { names: 'external_vendor' },
        ),
        notAllowed('POST', `${collection}/${id}/skill_profile`, 'GET, HEAD'),
      ],
    }),
  ),
  {
    source: '4.13',
    route: 'GET /taxonomy/skills/:external_id',
    listed: [200, 401, 403, 404, 405, 503],
    probes: [
      row(
        200,
        'GET',
        '/taxonomy/skills/sk-1?external_vendor=vendor_default',
        'a custom skill of the vendor',
        {
          check: (answer) =>
            expect(answer.json).toMatchObject({ external_id: 'sk-1', external_vendor: 'vendor_default' }),
        },
      ),
      row(200, 'GET', '/taxonomy/skills/skl-python', 'a skill of the default vocabulary', {
        check: (answer) => expect(answer.json).toMatchObject({ external_id: 'skl-python', custom: false }),
      }),
      row(404, 'GET', '/taxonomy/skills/sk-gone', 'a skill deleted in beforeAll', {
        names: "skill 'sk-gone'",
      }),
      row(404, 'GET', '/taxonomy/skills/skl-nothing', 'a skill that never existed', {
        names: "skill 'skl-nothing'",
      }),
      row(
        403,
        'GET',
        '/taxonomy/skills/skl-python?external_vendor=vendor_b',
        'a vendor not activated on the tenant',
        { names: 'vendor_b' },
      ),
      notAllowed('PUT', '/taxonomy/skills/sk-1', 'GET, HEAD, PATCH, DELETE'),
    ],
  },
  {
    source: '4.13',
    route: 'GET /taxonomy/skills/languages',
    listed: [200, 401, 403, 405, 503],
    probes: [
      row(200, 'GET', '/taxonomy/skills/languages', 'the languages per vendor', {
        check: (answer) => {
          const vendors = (answer.json as { vendors: { external_vendor: string; languages: string[] }[] })
            .vendors
          expect(vendors.find((vendor) => vendor.external_vendor === 'vendor_default')?.languages).toContain(
            'en_uk',
          )
        },
      }),
      notAllowed('DELETE', '/taxonomy/skills/languages', 'GET, HEAD', ' (not a skill called languages)'),
    ],
  },
  {
    source: '4.13',
    route: 'POST /taxonomy/changes',
    listed: [200, 400, 401, 403, 405, 415, 422, 503],
    probes: [
      row(200, 'POST', '/taxonomy/changes', 'a filter by operation_type', {
        body: { operation_type: 'domain_created' },
        check: (answer) => {
          const page = answer.json as { records: { operation_type: string; entity_external_id: string }[] }
          expect(page.records.map((change) => change.entity_external_id)).toContain('dom-1')
          expect(page.records.every((change) => change.operation_type === 'domain_created')).toBe(true)
        },
      }),
      row(200, 'POST', '/taxonomy/changes', 'no body at all (every change)'),
      row(422, 'POST', '/taxonomy/changes', 'operation_type everything', {
        body: { operation_type: 'everything' },
        names: 'operation_type',
      }),
      row(400, 'POST', '/taxonomy/changes', 'a JSON array instead of an object', {
        body: [{ operation_type: 'domain_created' }],
        names: 'object',
      }),
      row(400, 'POST', '/taxonomy/changes', 'a field the request does not have', {
        body: { colour: 'red' },
        names: 'colour',
      }),
      ...bodyProbes('POST', '/taxonomy/changes', {}),
      notAllowed('GET', '/taxonomy/changes', 'POST'),
    ],
  },
]

/** Webhook subscriptions: not in the spec (6 leaves subscription open), skillhouse's README. */
const WEBHOOK_ENDPOINTS: Endpoint[] = [
  {
    source: 'skillhouse webhooks',
    route: 'POST /webhooks',
    listed: [201, 409, 422],
    probes: [
      row(201, 'POST', '/webhooks', 'a consumer that answers the health check', {
        body: { url: '{receiver}/new' },
        check: (answer) => {
          const { id } = answer.json as { id: string }
          expect(answer.headers.get('location')).toBe(`/acme/eu/webhooks/${id}`)
        },
      }),
      row(409, 'POST', '/webhooks', 'a URL subscribed already', {
        body: { url: '{receiver}/seeded' },
        names: '{webhook_id}',
      }),
      row(422, 'POST', '/webhooks', 'a consumer that answers the health check with 500', {
        body: { url: '{receiver}/refuse' },
        names: 'url:',
      }),
      row(400, 'POST', '/webhooks', 'a subscription without url', {
        body: { event_types: [] },
        names: 'url: is required',
      }),
      ...bodyProbes('POST', '/webhooks', { url: '{receiver}/other' }),
    ],
  },
  {
    source: 'skillhouse webhooks',
    route: 'GET /webhooks',
    listed: [200],
    probes: [
      row(200, 'GET', '/webhooks', 'the subscriptions', {
        check: (answer) =>
          expect((answer.json as { records: { id: string }[] }).records.map((record) => record.id)).toContain(
            PLACES.webhook_id,
          ),
      }),
    ],
  },
  {
    source: 'skillhouse webhooks',
    route: 'GET /webhooks/:webhook_id',
    listed: [200, 404],
    probes: [
      row(200, 'GET', '/webhooks/{webhook_id}', 'a subscription', {
        check: (answer) => expect(answer.json).toMatchObject({ id: PLACES.webhook_id }),
      }),
      row(404, 'GET', '/webhooks/wh-unknown', 'an unknown id', { names: 'wh-unknown' }),
    ],
  },
  {
    source: 'skillhouse webhooks',
    route: 'GET /webhooks/:webhook_id/deliveries',
    listed: [200, 404],
    probes: [
      { status: 200, what: 'the delivery log', method: 'GET', path: '/webhooks/{webhook_id}/deliveries' },
      row(404, 'GET', '/webhooks/wh-unknown/deliveries', 'an unknown id', { names: 'wh-unknown' }),
    ],
  },
  {
    source: 'skillhouse webhooks',
    route: 'POST /webhooks/:webhook_id/replay',
    listed: [202, 400, 404, 413, 415, 422],
    probes: [
      row(202, 'POST', '/webhooks/{webhook_id}/replay', 'the dead letters (none)', {
        check: (answer) =>
          expect(answer.json).toEqual({
            subscription_id: PLACES.webhook_id,
            replayed: 0,
            first_outbox_seq: null,
          }),
      }),
      row(202, 'POST', '/webhooks/{webhook_id}/replay', 'the events since a time', {
        body: { since: '2020-01-01' },
        check: (answer) => expect(answer.json).toMatchObject({ subscription_id: PLACES.webhook_id }),
      }),
      row(400, 'POST', '/webhooks/{webhook_id}/replay', 'a field that is not one', {
        body: { from: 'start' },
        names: 'from: is not a field here',
      }),
      row(422, 'POST', '/webhooks/{webhook_id}/replay', 'since and event_id both', {
        body: { since: '2020-01-01', event_id: 'x' },
        names: 'event_id: give since or event_id, not both',
      }),
      row(404, 'POST', '/webhooks/{webhook_id}/replay', 'an unknown event', {
        body: { event_id: 'evt-unknown' },
        names: "event 'evt-unknown' does not exist",
      }),
      row(404, 'POST', '/webhooks/wh-unknown/replay', 'an unknown id', { names: 'wh-unknown' }),
      ...bodyProbes('POST', '/webhooks/{webhook_id}/replay', { since: '2020-01-01' }),
    ],
  },
  {
    source: 'skillhouse webhooks',
    route: 'DELETE /webhooks/:webhook_id',
    listed: [204, 404],
    probes: [
      row(204, 'DELETE', '/webhooks/{doomed_webhook_id}', 'a subscription', {
        check: async (_, api) =>
          expect((await api.call('GET', `/webhooks/${PLACES.doomed_webhook_id}`)).status).toBe(404),
      }),
      row(404, 'DELETE', '/webhooks/wh-unknown', 'an unknown id', { names: 'wh-unknown' }),
    ],
  },
]

/** The extensions beyond the spec (docs/recommendations.md). */
const EXTENSION_ENDPOINTS: Endpoint[] = [
  {
    source: 'skillhouse extensions',
    route: 'GET /employees/:employee_external_id/course_recommendations',
    listed: [200, 401, 403, 404, 405, 422, 503],
    probes: [
      row(
        200,
        'GET',
        '/employees/e-1/course_recommendations?vacancy_id=vac-1',
        'the courses for the gap to a vacancy',
        {
          check: (answer) =>
            expect(Object.keys(answer.json as object)).toEqual([
              'employee_id',
              'target',
              'employee_has_profile',
              'gap',
              'gap_weight',
              'courses',
              'closed_share',
              'note',
            ]),
        },
      ),
      row(404, 'GET', '/employees/nobody/course_recommendations?vacancy_id=vac-1', 'an unknown employee', {
        names: "employee 'nobody'",
      }),
      row(404, 'GET', '/employees/e-1/course_recommendations?job_id=nothing', 'an unknown job', {
        names: "job 'nothing'",
      }),
      row(422, 'GET', '/employees/e-1/course_recommendations', 'no target', { names: '`vacancy_id`' }),
      row(422, 'GET', '/employees/e-1/course_recommendations?vacancy_id=vac-1&limit=0', 'a limit of 0', {
        names: '`limit`',
      }),
      notAllowed('POST', '/employees/e-1/course_recommendations', 'GET, HEAD'),
    ],
  },
  {
    source: 'skillhouse extensions',
    route: 'GET /taxonomy/skills/:skill_id/related',
    listed: [200, 401, 403, 404, 405, 422, 503],
    probes: [
      row(
        200,
        'GET',
        '/taxonomy/skills/skl-python/related?limit=3&min_support=1',
        'the skills related to a skill',
        {
          check: (answer) => expect((answer.json as { skill_id: string }).skill_id).toBe('skl-python'),
        },
      ),
      row(404, 'GET', '/taxonomy/skills/skl-nothing/related', 'an unknown skill', {
        names: "skill 'skl-nothing'",
      }),
      row(422, 'GET', '/taxonomy/skills/skl-python/related?min_support=0', 'a minimum support of 0', {
        names: '`min_support`',
      }),
      notAllowed('DELETE', '/taxonomy/skills/skl-python/related', 'GET, HEAD'),
    ],
  },
]

const ENDPOINTS: Endpoint[] = [
  ...SPEC_ENDPOINTS,
  ...COLLECTIONS.flatMap(resourcePattern),
  ...WEBHOOK_ENDPOINTS,
  ...EXTENSION_ENDPOINTS,
]

// ---------------------------------------------------------------------------------------------

/** The spec's error body (section 7): exactly `[{title, description}, …]`, one title for the status. */
function expectSpecError(answer: ApiAnswer, status: number, names?: string | RegExp) {
  expect(answer.status, answer.text).toBe(status)
  expect(answer.headers.get('content-type')).toBe('application/json')
  expect(Array.isArray(answer.json), answer.text).toBe(true)
  const entries = answer.json as Record<string, unknown>[]
  expect(entries.length).toBeGreaterThan(0)
  for (const entry of entries) {
    expect(Object.keys(entry).sort()).toEqual(['description', 'title'])
    expect(entry.title).toBe(`${status} ${SPEC_TITLES[status]}`)
    expect(typeof entry.description).toBe('string')
    expect((entry.description as string).length).toBeGreaterThan(0)
  }
  if (names !== undefined) {
    const descriptions = entries.map((entry) => entry.description as string).join(' | ')
    if (typeof names === 'string') expect(descriptions).toContain(names)
    else expect(descriptions).toMatch(names)
  }
}

const temp = tempDir()
const dataDir = join(temp.dir, 'data')
let server: RunningServer
/** A webhook consumer: 2XX to everything but `/refuse`. */
let receiver: Server | undefined
const tokens = { acme: '', old: '', beta: '', held: '' }

const baseOf = (tenant: string) => `${server.url}/${tenant}/eu`
const acme: Api = {
  call: (method, path, body) =>
    call(`${baseOf('acme')}${fill(path)}`, {
      method,
      token: tokens.acme,
      ...(body !== undefined ? { body } : {}),
    }),
}

/** A row's body as sent: JSON text with its placeholders filled in. */
const bodyText = (body: unknown) => fill(typeof body === 'string' ? body : JSON.stringify(body))

function send(probe: Probe, tenant: string = probe.tenant ?? 'acme', token?: string): Promise<ApiAnswer> {
  const url = `${baseOf(tenant)}${fill(probe.path)}`
  const bearer = token ?? tokens[probe.tenant ?? 'acme']
  if (probe.send) return probe.send(url, bearer)
  return call(url, {
    method: probe.method,
    token: bearer,
    ...(probe.body !== undefined ? { body: bodyText(probe.body) } : {}),
    ...(probe.headers ? { headers: probe.headers } : {}),
  })
}

/** The first success row of a route: the request that works on it. */
function workingRequest(route: ApiRoute): Probe {
  const endpoint = ENDPOINTS.find((candidate) => candidate.route === `${route.method} ${route.path}`)
  const probe = endpoint?.probes.find((candidate) => SUCCESS.has(candidate.status) && !candidate.tenant)
  if (!probe) throw new Error(`no success row for ${route.method} ${route.path}`)
  return probe
}

beforeAll(async () => {
  for (const name of ['acme', 'beta', 'held']) (await createOpenTenant(dataDir, name)).database.close()
  ;(await createOpenTenant(dataDir, 'old', { modelConfiguration: 'MC_2024_Q3_V1' })).database.close()
  server = await startTestServer(dataDir, { bodyLimit: BODY_LIMIT })
  tokens.acme = await tokenFor(dataDir, 'acme')
  tokens.old = await tokenFor(dataDir, 'old')
  tokens.beta = await tokenFor(dataDir, 'beta')
  tokens.held = await tokenFor(dataDir, 'held')
  const made = async (tenant: keyof typeof tokens, method: Method, path: string, body?: unknown) => {
    const answer = await call(`${baseOf(tenant)}${path}`, {
      method,
      token: tokens[tenant],
      ...(body !== undefined ? { body } : {}),
    })
    if (answer.status >= 300) throw new Error(`seeding ${method} ${path}: ${answer.status} ${answer.text}`)
    return answer
  }
  for (const { path, records } of SEED) {
    for (const record of records) await made('acme', 'POST', path, record)
  }
  await made('acme', 'DELETE', '/taxonomy/skills/sk-gone')
  await made('acme', 'POST', '/employees/e-1/skill_events', SEEDED_EVENT)
  PLACES.change_id = (
    (await made('acme', 'POST', '/job_architecture/changes/preview', preview)).json as {
      change_id: string
    }
  ).change_id
  receiver = createServer((request, response) => {
    request.resume()
    response.writeHead(request.url === '/refuse' ? 500 : 204).end()
  })
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()))
  PLACES.receiver = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  const subscribe = async (path: string) =>
    ((await made('acme', 'POST', '/webhooks', { url: `${PLACES.receiver}${path}` })).json as { id: string })
      .id
  PLACES.webhook_id = await subscribe('/seeded')
  PLACES.doomed_webhook_id = await subscribe('/doomed')
  await made('old', 'POST', '/employees', { external_id: 'e-old' })
  await made('beta', 'POST', '/employees', { external_id: 'e-beta', first_name: 'Bea' })
}, 120_000)

afterAll(async () => {
  await server?.close()
  receiver?.close()
  temp.cleanup()
})

describe('the status matrix itself', () => {
  it('has rows for every route the server registers, and the server registers every route of the matrix', () => {
    const registered = server.app.routes.map((route) => `${route.method} ${route.path}`)
    const tabled = ENDPOINTS.map((endpoint) => endpoint.route)
    expect(registered.filter((route) => !tabled.includes(route))).toEqual([])
    expect(tabled.filter((route) => !registered.includes(route))).toEqual([])
  })

  it('names a request for every status each endpoint lists, or a route-wide check of it', () => {
    const missing = ENDPOINTS.flatMap((endpoint) =>
      endpoint.listed
        .filter((status) => !(status in ROUTE_WIDE))
        .filter((status) => !endpoint.probes.some((probe) => probe.status === status))
        .map((status) => `${endpoint.source} ${endpoint.route}: ${status}`),
    )
    expect(missing).toEqual([])
    for (const endpoint of ENDPOINTS) {
      expect(
        endpoint.probes.some((probe) => SUCCESS.has(probe.status)),
        `${endpoint.route} has a success row`,
      ).toBe(true)
    }
  })
})

describe.each(ENDPOINTS)('$source $route', (endpoint) => {
  for (const probe of endpoint.probes) {
    it(`${probe.status}: ${probe.what}`, async () => {
      const answer = await send(probe)
      if (SUCCESS.has(probe.status)) {
        expect(answer.status, answer.text).toBe(probe.status)
        if (probe.status !== 204) expect(answer.headers.get('content-type')).toBe('application/json')
        await probe.check?.(answer, acme)
        return
      }
      expectSpecError(answer, probe.status, typeof probe.names === 'string' ? fill(probe.names) : probe.names)
      if (probe.allow !== undefined) expect(answer.headers.get('allow')).toBe(probe.allow)
    })
  }
})

describe('route-wide statuses', () => {
  it('answers 405 with an Allow header that lists the method of the route, for PUT on every path', async () => {
    const paths = new Map<string, string[]>()
    for (const route of server.app.routes) {
      const path = concretePath(route)
      paths.set(path, [...(paths.get(path) ?? []), route.method])
    }
    for (const [path, methods] of paths) {
      const answer = await call(`${baseOf('acme')}${path}`, { method: 'PUT', token: tokens.acme })
      expectSpecError(answer, 405, `method PUT is not allowed on /acme/eu${path}`)
      const allow = answer.headers.get('allow')?.split(', ') ?? []
      for (const method of methods) expect(allow, path).toContain(method)
    }
  })

  it('answers 503 on every route while another process holds the tenant database, and serves once it is released', async () => {
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
      for (const route of server.app.routes) {
        const answer = await send(workingRequest(route), 'held', tokens.held)
        expect(answer.status, `${route.method} ${route.path}: ${answer.text}`).toBe(503)
        expectSpecError(answer, 503, 'in use by another skillhouse process')
      }
    } finally {
      holder.stdin.write('stop\n')
      await new Promise((resolve) => holder.once('exit', resolve))
    }
    expect((await call(`${baseOf('held')}/employees`, { token: tokens.held })).status).toBe(200)
  })

  it('answers every route over the connection limit with the plain-text 503 and runs none of them', async () => {
    const logs: LogEntry[] = []
    const limited = await startTestServer(dataDir, { maxConnections: 1, logs })
    const occupied = connect(limited.port, '127.0.0.1')
    await new Promise((resolve) => occupied.once('connect', resolve))
    const exchange = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(limited.port, '127.0.0.1', () => socket.write(text))
        let answer = ''
        socket.on('data', (chunk) => {
          answer += chunk.toString()
        })
        socket.on('error', reject)
        socket.on('close', () => resolve(answer))
      })
    try {
      for (const route of server.app.routes) {
        const probe = workingRequest(route)
        const body = probe.body === undefined ? '' : bodyText(probe.body)
        const head = [
          `${probe.method} /acme/eu${fill(probe.path)} HTTP/1.1`,
          'Host: 127.0.0.1',
          `Authorization: Bearer ${tokens.acme}`,
          'Connection: close',
          ...(body ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`] : []),
        ]
        const answer = await exchange(`${head.join('\r\n')}\r\n\r\n${body}`)
        const label = `${route.method} ${route.path}`
        expect(answer, label).toMatch(/^HTTP\/1\.1 503 /)
        expect(answer.toLowerCase(), label).toContain('content-type: text/plain')
        expect(answer.endsWith('\r\n\r\nmax connections reached: 1'), `${label}: ${answer}`).toBe(true)
      }
    } finally {
      occupied.destroy()
      await limited.close()
    }
    // The server logged each of them as refused, and ran none.
    const requests = logs.filter((entry) => entry.msg === 'request')
    expect(requests).toHaveLength(server.app.routes.length)
    expect(requests.every((entry) => entry.refused === 'max connections' && entry.status === 503)).toBe(true)
  })
})

describe('cross-tenant access', () => {
  /** Ids of acme's records only: an answer to another tenant that holds one of them leaks it. */
  const ACME_IDS = [...Object.values(ITEM_IDS), 'ou-2', 'evt-1']
  const ENTITY_COLLECTIONS = [
    '/employees',
    '/organisational_units',
    '/companies',
    '/job_architecture/job_families',
    '/job_architecture/jobs',
    '/courses',
    '/vacancies',
  ]

  /** What acme holds that a request could change, read as acme's own client. */
  async function acmeState(): Promise<unknown[]> {
    const state: unknown[] = []
    for (const path of ENTITY_COLLECTIONS) state.push((await acme.call('GET', `${path}?limit=1000`)).json)
    for (const type of CUSTOM_PROPERTY_TYPES)
      state.push((await acme.call('GET', `/${type}/custom_properties`)).json)
    state.push((await acme.call('POST', '/taxonomy/changes', { limit: 1000 })).json)
    state.push(
      await server.app.pool.use('acme', (tenant) =>
        tenant.database.all(
          'SELECT external_id, content_hash, ended_on::VARCHAR AS ended_on FROM skill_events ORDER BY 1',
        ),
      ),
    )
    state.push(
      await server.app.pool.use('acme', (tenant) =>
        tenant.database.all('SELECT count(*)::INTEGER AS previews FROM job_change_previews'),
      ),
    )
    return state
  }

  /** A route's request naming acme's seeded records, with the body that works on it. */
  const requestOn = (route: ApiRoute): Probe => {
    const working = workingRequest(route)
    return { ...working, path: concretePath(route), method: route.method }
  }

  it("refuses a token of tenant beta with 403 on every route of tenant acme, and nothing of acme's changes", async () => {
    const before = await acmeState()
    expect(JSON.stringify(before)).toContain(MARKER)
    for (const route of server.app.routes) {
      const answer = await send(requestOn(route), 'acme', tokens.beta)
      const label = `${route.method} ${route.path}`
      expect(answer.status, `${label}: ${answer.text}`).toBe(403)
      expectSpecError(answer, 403, 'the access token is for tenant beta, not for acme')
      expect(answer.text, label).not.toContain(MARKER)
    }
    // Before the route is known: a path that is no endpoint tells beta nothing either.
    expectSpecError(await call(`${baseOf('acme')}/nothing/here`, { token: tokens.beta }), 403, 'tenant beta')
    expect(await acmeState()).toEqual(before)
  })

  it("answers tenant beta's reads on its own base URL without acme's records, whatever ids they name", async () => {
    const reads = server.app.routes.filter((route) => route.method === 'GET' || route.scope === 'read')
    expect(reads.length).toBeGreaterThan(20)
    for (const route of reads) {
      const answer = await send(requestOn(route), 'beta', tokens.beta)
      const label = `${route.method} ${route.path}: ${answer.text.slice(0, 300)}`
      expect([200, 404], label).toContain(answer.status)
      expect(answer.text, label).not.toContain(MARKER)
      if (answer.status === 200) {
        for (const id of [...ACME_IDS, PLACES.change_id, PLACES.webhook_id])
          expect(answer.text, label).not.toContain(`"${id}"`)
      }
    }
    const employees = await call(`${baseOf('beta')}/employees`, { token: tokens.beta })
    expect(employees.json).toEqual({
      records: [{ external_id: 'e-beta', first_name: 'Bea' }],
      has_next: false,
      next_starting_after: null,
    })
  })
})
