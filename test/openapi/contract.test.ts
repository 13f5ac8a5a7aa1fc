import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mockDocument } from '../../src/mock/prism-mock.js'
import {
  PRISM_ERROR_TYPE,
  PRISM_VIOLATIONS,
  prismParseErrorOf,
  prismProblemOf,
  type RunningProxy,
  startProxy,
  violationsOf,
} from '../../src/mock/prism-proxy.js'
import { CUSTOM_PROPERTY_ENTITY_TYPES, VACANCY_MATCH_INCLUDES } from '../../src/schemas/index.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant } from '../../src/tenants/tenant-service.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { call as callServer, startTestServer, tokenFor, workingHistory } from '../server/server-helpers.js'

/**
 * The contract test of issue 7 (item 5): the real server behind `prism proxy --errors`, checked
 * against the document `skillhouse mock` serves, for a session that calls every operation of the
 * document with good and bad requests.
 *
 * Every request is sent twice, with the same method, path below the base URL, query, headers and
 * body: through Prism to tenant `proxied`, and straight to the server for its twin `direct`,
 * seeded alike (a write cannot be repeated on one tenant and give the same answer). Then:
 * - no answer of the server breaks the document: Prism lists each violation of an answer under
 *   `response` in the `sl-violations` header, and `--errors` replaces an answer with an error among
 *   them by its 500 of type `…#VIOLATIONS`. A status the operation does not list is only a warning
 *   to Prism (the answer passes), so the header is checked whatever the severity;
 * - the document refuses no request the server accepts: every good request is forwarded, and
 *   where Prism answers a request itself (its 401 or 422 of request validation, or its body
 *   parser's 400) the server refuses the same request with a status the operation documents;
 * - where Prism forwards, its answer has the status the server gives directly.
 * The server echoes the `X-Request-Id` each request carries, Prism's own answers do not: that
 * says which side answered.
 */

const PROXIED = 'proxied'
const DIRECT = 'direct'
type Twin = typeof PROXIED | typeof DIRECT
const twinOf = (tenant: Twin): Twin => (tenant === PROXIED ? DIRECT : PROXIED)
/** A tenant name the server does not know. */
const UNKNOWN_TENANT = 'nobody'
/** Small, so that a body the document allows can pass it (413). */
const BODY_LIMIT = 16_384
const BASE = '/{tenant}/{region}'
const METHODS = ['get', 'post', 'patch', 'delete', 'put'] as const

// ---------------------------------------------------------------------------------------------
// The session, as a table: per operation (`METHOD path` of the document below the base URL, or
// at the root for /healthz and /oauth/token), good requests and bad ones, each with the status
// the server answers it.

interface Call {
  what: string
  status: number
  /** Path parameter values; `{name}` stands for what beforeAll made on each twin (`places`). */
  params?: Record<string, string>
  query?: Record<string, string | string[]>
  /** Sent as JSON. */
  body?: unknown
  /** Sent as it is, with this content type. */
  raw?: { text: string; type: string }
  /** The bearer token: the twin's own (default), none, or the other twin's. */
  token?: 'own' | 'none' | 'other'
  /** Below the base URL of a tenant the server does not have. */
  unknownTenant?: boolean
}

interface Cases {
  good: Call[]
  bad: Call[]
}

const ok = (what: string, status: number, more: Omit<Call, 'what' | 'status'> = {}): Call => ({
  what,
  status,
  ...more,
})
const no = ok

/** A JSON body sent as text/plain: 415, or 400 where the operation folds 415 into 400. */
const asText = (body: unknown, status = 415, more: Omit<Call, 'what' | 'status'> = {}) =>
  no('a JSON body sent as text/plain', status, {
    ...more,
    raw: { text: JSON.stringify(body), type: 'text/plain' },
  })
const malformed = () =>
  no('malformed JSON', 400, { raw: { text: '{"external_id": ', type: 'application/json' } })

const SEED: { path: string; records: Record<string, unknown>[] }[] = [
  ...CUSTOM_PROPERTY_ENTITY_TYPES.map((type) => ({
    path: `/${type}/custom_properties`,
    records: [{ property_name: 'owner', property_type: 'text' }],
  })),
  {
    path: '/taxonomy/domains',
    records: [
      { external_id: 'dom-1', domain_name: 'Robotics' },
      { external_id: 'dom-doomed', domain_name: 'Doomed' },
    ],
  },
  {
    path: '/taxonomy/subdomains',
    records: [
      { external_id: 'sub-1', domain_id: 'dom-1', subdomain_name: 'Arms' },
      { external_id: 'sub-doomed', domain_id: 'dom-1', subdomain_name: 'Doomed' },
    ],
  },
  {
    path: '/taxonomy/skill_clusters',
    records: [
      { external_id: 'cl-1', subdomain_id: 'sub-1', skill_cluster_name: 'Grippers' },
      { external_id: 'cl-doomed', subdomain_id: 'sub-1', skill_cluster_name: 'Doomed' },
    ],
  },
  {
    path: '/taxonomy/skills',
    records: [
      { external_id: 'sk-1', skill_name: 'Gripper tuning', skill_cluster_id: 'cl-1' },
      { external_id: 'sk-doomed', skill_name: 'Doomed', skill_cluster_id: 'cl-1' },
    ],
  },
  {
    path: '/organisational_units',
    records: [
      { external_id: 'ou-1', name: 'Head office' },
      { external_id: 'ou-2', name: 'Plant', parent_id: 'ou-1' },
      { external_id: 'ou-doomed', name: 'Doomed' },
    ],
  },
  {
    path: '/companies',
    records: [
      { external_id: 'co-1', name: 'Acme NV', vat: 'BE0123456789' },
      { external_id: 'co-doomed', name: 'Doomed', vat: 'BE1' },
    ],
  },
  {
    path: '/job_architecture/job_families',
    records: [
      {
        external_id: 'jf-1',
        name: 'Engineering',
        skills: [{ skill_id: 'skl-python', proficiency_level: 3 }],
      },
      { external_id: 'jf-doomed', name: 'Doomed' },
    ],
  },
  {
    path: '/job_architecture/jobs',
    records: [
      {
        external_id: 'job-1',
        title: 'Python Developer',
        description: 'Builds Python services and writes SQL reports.',
        job_family_id: 'jf-1',
      },
      { external_id: 'job-doomed', title: 'Doomed' },
    ],
  },
  {
    path: '/courses',
    records: [
      { external_id: 'course-1', title: 'SQL for analysts' },
      { external_id: 'course-doomed', title: 'Doomed' },
    ],
  },
  {
    path: '/vacancies',
    records: [
      {
        external_id: 'vac-1',
        title: 'Python Developer',
        status: 'active',
        job_id: 'job-1',
        company_id: 'co-1',
        organisational_unit_id: 'ou-1',
      },
      {
        external_id: 'vac-2',
        title: 'Platform Engineer',
        description: 'Runs Kubernetes clusters, writes Terraform and automates deployments with Ansible.',
        status: 'active',
      },
      { external_id: 'vac-doomed', title: 'Doomed', status: 'active' },
    ],
  },
  {
    path: '/employees',
    records: [
      {
        external_id: 'e-1',
        first_name: 'Ada',
        organisational_unit_id: 'ou-1',
        job_id: 'job-1',
        custom_properties: { owner: 'HR' },
      },
      { external_id: 'e-doomed', first_name: 'Doomed' },
    ],
  },
]

const SEEDED_EVENT = workingHistory('evt-1', 'Built Python services and tuned SQL queries.')
const PREVIEW = { change_type: 'add_job_description', job_id: 'job-1', context: { instructions: 'Short.' } }
const JOB_MATCHING = { filters: [], weights: [], score_min_threshold: 0 }
/** A subscription id of the shape the server gives, of no subscription. */
const UNKNOWN_WEBHOOK = 'wh_000000000000000000000999'

/** Path parameter name, seeded record, the one the DELETE removes, and the request bodies. */
interface LevelCase {
  path: string
  param: string
  seeded: string
  doomed: string
  create: Record<string, unknown>
  missing: string
  invalid: Record<string, unknown>
  unknownParent?: Record<string, unknown>
  patch: Record<string, unknown>
  invalidPatch: Record<string, unknown>
  /** A record still referred to: its DELETE is a 409. */
  referred?: string
}

const LEVELS: LevelCase[] = [
  {
    path: '/taxonomy/domains',
    param: 'domain_external_id',
    seeded: 'dom-1',
    doomed: 'dom-doomed',
    create: { external_id: 'dom-new', domain_name: 'New domain' },
    missing: 'domain_name',
    invalid: { external_id: 'dom 2', domain_name: 'X' },
    patch: { domain_name: 'Robotics renamed' },
    invalidPatch: { domain_name: '' },
    referred: 'dom-1',
  },
  {
    path: '/taxonomy/subdomains',
    param: 'subdomain_external_id',
    seeded: 'sub-1',
    doomed: 'sub-doomed',
    create: { external_id: 'sub-new', domain_id: 'dom-1', subdomain_name: 'New' },
    missing: 'domain_id',
    invalid: { external_id: 'sub-x', domain_id: 'dom-1', subdomain_name: '' },
    unknownParent: { external_id: 'sub-x', domain_id: 'dom-none', subdomain_name: 'X' },
    patch: { subdomain_name: 'Arms renamed' },
    invalidPatch: { subdomain_name: '' },
    referred: 'sub-1',
  },
  {
    path: '/taxonomy/skill_clusters',
    param: 'skill_cluster_external_id',
    seeded: 'cl-1',
    doomed: 'cl-doomed',
    create: { external_id: 'cl-new', subdomain_id: 'sub-1', skill_cluster_name: 'New' },
    missing: 'skill_cluster_name',
    invalid: { external_id: 'cl x', subdomain_id: 'sub-1', skill_cluster_name: 'X' },
    unknownParent: { external_id: 'cl-x', subdomain_id: 'sub-none', skill_cluster_name: 'X' },
    patch: { skill_cluster_name: 'Grippers renamed' },
    invalidPatch: { subdomain_id: 'sub 1' },
    referred: 'cl-1',
  },
  {
    path: '/taxonomy/skills',
    param: 'skill_id',
    seeded: 'sk-1',
    doomed: 'sk-doomed',
    create: { external_id: 'sk-new', skill_name: 'Kitesurfing', skill_cluster_id: 'cl-1' },
    missing: 'skill_name',
    invalid: { external_id: 'sk-x', skill_name: 'X', skill_type: 'magic' },
    unknownParent: { external_id: 'sk-x', skill_name: 'X', skill_cluster_id: 'cl-none' },
    patch: { description: 'Tunes the grip of robot hands.' },
    invalidPatch: { skill_type: 'magic' },
  },
]

function levelCases(level: LevelCase): [string, Cases][] {
  const item = `${level.path}/{${level.param}}`
  const id = (value: string) => ({ params: { [level.param]: value } })
  const domain = level.path === '/taxonomy/domains'
  // 4.1 lists 400 and neither 415 nor 422: there they are a request not structured correctly.
  const invalidStatus = domain ? 400 : 422
  return [
    [
      `GET ${level.path}`,
      {
        good: [
          ok('a page of one record', 200, { query: { limit: '1' } }),
          ok('the next page, with custom properties', 200, {
            query: {
              starting_after: level.seeded,
              include: 'custom_properties',
              external_vendor: 'vendor_default',
            },
          }),
        ],
        bad: [
          no('limit=0', 422, { query: { limit: '0' } }),
          no('a vendor that does not exist', 422, { query: { external_vendor: 'vendor_x' } }),
          no('a vendor not activated on the tenant', 403, { query: { external_vendor: 'vendor_b' } }),
        ],
      },
    ],
    [
      `POST ${level.path}`,
      {
        good: [ok('a new record', 204, { body: level.create })],
        bad: [
          no('the external_id of an existing record', 409, {
            body: { ...level.create, external_id: level.seeded },
          }),
          no(`a record without ${level.missing}`, 400, {
            body: Object.fromEntries(
              Object.entries(level.create).filter(([field]) => field !== level.missing),
            ),
          }),
          no('a field the record does not have', 400, { body: { ...level.create, colour: 'red' } }),
          no('a value its rules refuse', invalidStatus, { body: level.invalid }),
          ...(level.unknownParent
            ? [no('a parent that does not exist', 404, { body: level.unknownParent })]
            : []),
          malformed(),
          asText(level.create, domain ? 400 : 415),
        ],
      },
    ],
    [
      `GET ${item}`,
      {
        good: [
          ok('a seeded record', 200, id(level.seeded)),
          ok('a seeded record with its custom properties', 200, {
            ...id(level.seeded),
            query: { include: 'custom_properties' },
          }),
          ...(level.path === '/taxonomy/skills'
            ? [
                ok('a skill of the vocabulary, in German', 200, {
                  ...id('skl-python'),
                  query: { vocab_language: 'de' },
                }),
              ]
            : []),
        ],
        bad: [
          no('an unknown external_id', 404, id('nothing-here')),
          no('include=everything', 422, { ...id(level.seeded), query: { include: 'everything' } }),
        ],
      },
    ],
    [
      `PATCH ${item}`,
      {
        good: [ok('a change of one field', 204, { ...id(level.seeded), body: level.patch })],
        bad: [
          no('an unknown external_id', 404, { ...id('nothing-here'), body: level.patch }),
          no('a field the record does not have', 400, { ...id(level.seeded), body: { colour: 'red' } }),
          no('an invalid value', 422, { ...id(level.seeded), body: level.invalidPatch }),
          no('a JSON array instead of an object', 400, { ...id(level.seeded), body: [level.patch] }),
          asText(level.patch, 415, id(level.seeded)),
        ],
      },
    ],
    [
      `DELETE ${item}`,
      {
        good: [ok('a record nothing refers to', 204, id(level.doomed))],
        bad: [
          no('an unknown external_id', 404, id('nothing-here')),
          ...(level.referred ? [no('a record others still refer to', 409, id(level.referred))] : []),
          ...(level.path === '/taxonomy/skills'
            ? [no('a skill of the imported vocabulary (read-only)', 403, id('skl-python'))]
            : []),
          no('a vendor that does not exist', 422, {
            ...id(level.doomed),
            query: { external_vendor: 'vendor_x' },
          }),
        ],
      },
    ],
  ]
}

interface CollectionCase {
  path: string
  param: string
  seeded: string
  doomed: string
  create: Record<string, unknown>
  missing: string
  invalid: Record<string, unknown>
  /** 4.3 lists 400 and not 422 for a company. */
  invalidStatus: number
  unknownReference?: Record<string, unknown>
  patch: Record<string, unknown>
  invalidPatch: Record<string, unknown>
  referred?: string
  /** A body the document allows that is larger than the server's limit. */
  large?: Record<string, unknown>
}

const LARGE_DESCRIPTION = 'Runs the platform. '.repeat(1_000)

const COLLECTIONS: CollectionCase[] = [
  {
    path: '/companies',
    param: 'company_external_id',
    seeded: 'co-1',
    doomed: 'co-doomed',
    create: {
      external_id: 'co-new',
      name: 'New company',
      vat: 'BE0999999999',
      location: { country: 'BE', postal_code: '9000' },
      languages: [{ language: 'nl', level: 5 }, { language: 'en' }],
    },
    missing: 'vat',
    invalid: { external_id: 'co-x', name: 'X', vat: 'BE01234567890123' },
    invalidStatus: 400,
    patch: { location: { lat: 51.05, lng: 3.72 } },
    invalidPatch: { languages: [{ language: 'nl', level: 6 }] },
    referred: 'co-1',
  },
  {
    path: '/organisational_units',
    param: 'organisational_unit_external_id',
    seeded: 'ou-1',
    doomed: 'ou-doomed',
    create: { external_id: 'ou-new', name: 'New unit' },
    missing: 'name',
    invalid: { external_id: 'ou-x', name: '' },
    invalidStatus: 422,
    unknownReference: { external_id: 'ou-x', name: 'X', parent_id: 'ou-none' },
    patch: { name: 'Head office renamed' },
    invalidPatch: { parent_id: 'ou-2' },
    referred: 'ou-1',
  },
  {
    path: '/job_architecture/job_families',
    param: 'job_family_external_id',
    seeded: 'jf-1',
    doomed: 'jf-doomed',
    create: { external_id: 'jf-new', name: 'New family' },
    missing: 'name',
    invalid: { external_id: 'jf-x', name: 'X', skills: [{ skill_id: 'skl-python', proficiency_level: 9 }] },
    invalidStatus: 422,
    patch: { description: 'Builds and runs the software.' },
    invalidPatch: { name: '' },
    referred: 'jf-1',
  },
  {
    path: '/job_architecture/jobs',
    param: 'job_external_id',
    seeded: 'job-1',
    doomed: 'job-doomed',
    create: { external_id: 'job-new', title: 'Data Analyst', job_family_id: 'jf-1' },
    missing: 'title',
    invalid: { external_id: 'job-x', title: '' },
    invalidStatus: 422,
    unknownReference: { external_id: 'job-x', title: 'X', job_family_id: 'jf-none' },
    patch: { description: 'Builds Python services, writes SQL reports and reviews code.' },
    invalidPatch: { title: '' },
    referred: 'job-1',
    large: { external_id: 'job-large', title: 'Platform engineer', description: LARGE_DESCRIPTION },
  },
  {
    path: '/courses',
    param: 'course_external_id',
    seeded: 'course-1',
    doomed: 'course-doomed',
    create: { external_id: 'course-new', title: 'Kubernetes basics' },
    missing: 'title',
    invalid: { external_id: 'course-x', title: 'X', language: 'english' },
    invalidStatus: 422,
    patch: { duration_hours: 12 },
    invalidPatch: { duration_hours: -1 },
  },
  {
    path: '/vacancies',
    param: 'vacancy_external_id',
    seeded: 'vac-1',
    doomed: 'vac-doomed',
    create: { external_id: 'vac-new', title: 'Analyst', status: 'active', company_id: 'co-1' },
    missing: 'title',
    invalid: { external_id: 'vac-x', title: 'X', status: 'open' },
    invalidStatus: 422,
    unknownReference: { external_id: 'vac-x', title: 'X', company_id: 'co-none' },
    patch: { status: 'on_hold' },
    invalidPatch: { published_date: '2024-02-30' },
  },
  {
    path: '/employees',
    param: 'employee_external_id',
    seeded: 'e-1',
    doomed: 'e-doomed',
    create: { external_id: 'e-new', first_name: 'Eve', organisational_unit_id: 'ou-1' },
    missing: 'external_id',
    invalid: { external_id: 'e-x', email: 'not-an-email' },
    invalidStatus: 422,
    unknownReference: { external_id: 'e-x', organisational_unit_id: 'ou-none' },
    patch: { last_name: 'Lovelace', custom_properties: { owner: 'IT' } },
    invalidPatch: { custom_properties: { owner: 3 } },
  },
]

function collectionCases(c: CollectionCase): [string, Cases][] {
  const item = `${c.path}/{${c.param}}`
  const id = (value: string) => ({ params: { [c.param]: value } })
  return [
    [
      `POST ${c.path}`,
      {
        good: [ok('a new record', 204, { body: c.create })],
        bad: [
          no('the external_id of an existing record', 409, { body: { ...c.create, external_id: c.seeded } }),
          no(`a record without ${c.missing}`, 400, {
            body: Object.fromEntries(Object.entries(c.create).filter(([field]) => field !== c.missing)),
          }),
          no('a field the record does not have', 400, { body: { ...c.create, colour: 'red' } }),
          no('a value its rules refuse', c.invalidStatus, { body: c.invalid }),
          ...(c.unknownReference ? [no('a reference to no record', 404, { body: c.unknownReference })] : []),
          ...(c.large
            ? [no(`a valid record over the ${BODY_LIMIT}-byte body limit`, 413, { body: c.large })]
            : []),
          malformed(),
          asText(c.create),
        ],
      },
    ],
    [
      `GET ${c.path}`,
      {
        good: [
          ok('a page of one record', 200, { query: { limit: '1' } }),
          ok('the page after the seeded record', 200, { query: { starting_after: c.seeded, limit: '1000' } }),
        ],
        bad: [
          no('limit=0', 422, { query: { limit: '0' } }),
          no('limit=1001', 422, { query: { limit: '1001' } }),
        ],
      },
    ],
    [
      `GET ${item}`,
      {
        good: [ok('a seeded record', 200, id(c.seeded))],
        bad: [no('an unknown external_id', 404, id('nothing-here'))],
      },
    ],
    [
      `PATCH ${item}`,
      {
        good: [ok('a change', 204, { ...id(c.seeded), body: c.patch })],
        bad: [
          no('an unknown external_id', 404, { ...id('nothing-here'), body: c.patch }),
          no('a field the record does not have', 400, { ...id(c.seeded), body: { colour: 'red' } }),
          no('an invalid value', 422, { ...id(c.seeded), body: c.invalidPatch }),
          no('a change of external_id', 422, { ...id(c.seeded), body: { external_id: 'someone-else' } }),
          ...(c.large
            ? [
                no(`a valid change over the ${BODY_LIMIT}-byte body limit`, 413, {
                  ...id(c.seeded),
                  body: { description: LARGE_DESCRIPTION },
                }),
              ]
            : []),
          asText(c.patch, 415, id(c.seeded)),
        ],
      },
    ],
    [
      `DELETE ${item}`,
      {
        good: [ok('a record nothing refers to', 204, id(c.doomed))],
        bad: [
          no('an unknown external_id', 404, id('nothing-here')),
          ...(c.referred ? [no('a record others still refer to', 409, id(c.referred))] : []),
        ],
      },
    ],
  ]
}

function customPropertyCases(type: string): [string, Cases][] {
  const path = `/${type}/custom_properties`
  return [
    [`GET ${path}`, { good: [ok('the definitions', 200)], bad: [] }],
    [
      `POST ${path}`,
      {
        good: [ok('a new definition', 204, { body: { property_name: 'grade', property_type: 'number' } })],
        bad: [
          no('a name that exists', 409, { body: { property_name: 'owner', property_type: 'number' } }),
          no('a definition without property_type', 400, { body: { property_name: 'size' } }),
          no('a property_name with __', 422, { body: { property_name: 'a__b', property_type: 'text' } }),
          no('property_type integer', 422, { body: { property_name: 'size', property_type: 'integer' } }),
          asText({ property_name: 'size', property_type: 'text' }),
        ],
      },
    ],
  ]
}

const profile = (path: string, param: string, id: string): [string, Cases] => [
  `GET ${path}`,
  {
    good: [
      ok('a seeded record', 200, { params: { [param]: id } }),
      ok('in German, of the default vendor', 200, {
        params: { [param]: id },
        query: { vocab_language: 'de', external_vendor: 'vendor_default' },
      }),
    ],
    bad: [
      no('an unknown external_id', 404, { params: { [param]: 'nothing-here' } }),
      no('a vendor that does not exist', 422, {
        params: { [param]: id },
        query: { external_vendor: 'vendor_x' },
      }),
      no('a vocabulary language that does not exist', 422, {
        params: { [param]: id },
        query: { vocab_language: 'klingon' },
      }),
    ],
  },
]

const SESSION = new Map<string, Cases>([
  ['GET /webhooks', { good: [ok('the subscriptions', 200)], bad: [] }],
  [
    'POST /webhooks',
    {
      good: [
        ok('a consumer that answers the health check', 201, {
          body: { url: '{receiver}/new', event_types: ['ai.vendor.taxonomy.updated.v1'] },
        }),
      ],
      bad: [
        no('a URL subscribed already', 409, { body: { url: '{receiver}/seeded' } }),
        no('a consumer that answers the health check with 500', 422, { body: { url: '{receiver}/refuse' } }),
        no('a subscription without url', 400, { body: { event_types: [] } }),
        no('an event type that does not exist', 422, {
          body: { url: '{receiver}/other', event_types: ['gossip'] },
        }),
        malformed(),
        asText({ url: '{receiver}/other' }),
      ],
    },
  ],
  [
    'GET /webhooks/{webhook_id}',
    {
      good: [ok('a subscription', 200, { params: { webhook_id: '{webhook_id}' } })],
      bad: [no('an unknown id', 404, { params: { webhook_id: UNKNOWN_WEBHOOK } })],
    },
  ],
  [
    'DELETE /webhooks/{webhook_id}',
    {
      good: [ok('a subscription', 204, { params: { webhook_id: '{doomed_webhook_id}' } })],
      bad: [no('an unknown id', 404, { params: { webhook_id: UNKNOWN_WEBHOOK } })],
    },
  ],
  [
    'GET /webhooks/{webhook_id}/deliveries',
    {
      good: [
        ok('the delivery log', 200, { params: { webhook_id: '{webhook_id}' } }),
        ok('the delivered ones, a page of 10', 200, {
          params: { webhook_id: '{webhook_id}' },
          query: { state: 'delivered', limit: '10' },
        }),
      ],
      bad: [
        no('an unknown id', 404, { params: { webhook_id: UNKNOWN_WEBHOOK } }),
        no('state=lost', 422, { params: { webhook_id: '{webhook_id}' }, query: { state: 'lost' } }),
        no('limit=0', 422, { params: { webhook_id: '{webhook_id}' }, query: { limit: '0' } }),
      ],
    },
  ],
  [
    'POST /webhooks/{webhook_id}/replay',
    {
      good: [
        ok('the dead letters', 202, { params: { webhook_id: '{webhook_id}' }, body: {} }),
        ok('the events since a time', 202, {
          params: { webhook_id: '{webhook_id}' },
          body: { since: '2020-01-01T00:00:00Z' },
        }),
      ],
      bad: [
        no('an unknown id', 404, { params: { webhook_id: UNKNOWN_WEBHOOK }, body: {} }),
        no('an unknown event', 404, {
          params: { webhook_id: '{webhook_id}' },
          body: { event_id: 'evt-unknown' },
        }),
        no('since and event_id both', 422, {
          params: { webhook_id: '{webhook_id}' },
          body: { since: '2020-01-01T00:00:00Z', event_id: 'evt-unknown' },
        }),
        no('a field that is not one', 400, {
          params: { webhook_id: '{webhook_id}' },
          body: { from: 'start' },
        }),
        { ...malformed(), params: { webhook_id: '{webhook_id}' } },
        asText({ since: '2020-01-01T00:00:00Z' }, 415, { params: { webhook_id: '{webhook_id}' } }),
      ],
    },
  ],
  ...CUSTOM_PROPERTY_ENTITY_TYPES.flatMap(customPropertyCases),
  ['GET /taxonomy/skills/languages', { good: [ok('the languages per vendor', 200)], bad: [] }],
  [
    'POST /taxonomy/changes',
    {
      good: [
        ok('a filter by operation_type', 200, { body: { operation_type: 'domain_created' } }),
        ok('no body at all (every change)', 200),
      ],
      bad: [
        no('operation_type everything', 422, { body: { operation_type: 'everything' } }),
        no('a JSON array instead of an object', 400, { body: [{ operation_type: 'domain_created' }] }),
        no('a field the request does not have', 400, { body: { colour: 'red' } }),
        asText({}),
      ],
    },
  ],
  ...LEVELS.flatMap(levelCases),
  ['GET /skill_clusters/metrics/count', { good: [ok('the count', 200)], bad: [] }],
  [
    'POST /employees/{employee_external_id}/skill_events',
    {
      good: [
        ok('a working_history event of a known employee', 204, {
          params: { employee_external_id: 'e-1' },
          query: { language: 'en', strict: 'false', end_active_working_history: 'false' },
          body: workingHistory('evt-new', 'Ran the Kubernetes platform.'),
        }),
      ],
      bad: [
        no('an employee that does not exist', 404, {
          params: { employee_external_id: 'nobody' },
          body: workingHistory('evt-x', 'Anything.'),
        }),
        no('an external_id that exists with other content', 409, {
          params: { employee_external_id: 'e-1' },
          body: workingHistory('evt-1', 'Something else entirely.'),
        }),
        no('an event without content', 400, {
          params: { employee_external_id: 'e-1' },
          body: { ...workingHistory('evt-x', 'x'), content: undefined },
        }),
        no('a timestamp that is no calendar date', 422, {
          params: { employee_external_id: 'e-1' },
          body: { ...workingHistory('evt-x', 'x'), timestamp: '2024-02-30' },
        }),
        no('strict=maybe', 422, {
          params: { employee_external_id: 'e-1' },
          query: { strict: 'maybe' },
          body: workingHistory('evt-x', 'x'),
        }),
        asText(workingHistory('evt-x', 'x'), 415, { params: { employee_external_id: 'e-1' } }),
      ],
    },
  ],
  [
    'GET /employees/{employee_external_id}/vacancies/{vacancy_external_id}/gap',
    {
      good: [
        ok('a known employee and vacancy, in German', 200, {
          params: { employee_external_id: 'e-1', vacancy_external_id: 'vac-1' },
          query: { vocab_language: 'de' },
        }),
        ok('a vacancy asking for skills the employee lacks', 200, {
          params: { employee_external_id: 'e-1', vacancy_external_id: 'vac-2' },
        }),
      ],
      bad: [
        no('an unknown employee', 404, {
          params: { employee_external_id: 'nobody', vacancy_external_id: 'vac-1' },
        }),
        no('an unknown vacancy', 404, {
          params: { employee_external_id: 'e-1', vacancy_external_id: 'nothing' },
        }),
        no('a vendor that does not exist', 422, {
          params: { employee_external_id: 'e-1', vacancy_external_id: 'vac-1' },
          query: { external_vendor: 'vendor_x' },
        }),
      ],
    },
  ],
  [
    'GET /employees/{employee_external_id}/course_recommendations',
    {
      good: [
        ok('the courses for the gap to a vacancy', 200, {
          params: { employee_external_id: 'e-1' },
          query: { vacancy_id: 'vac-2' },
        }),
        ok('the courses for named skills, at most two', 200, {
          params: { employee_external_id: 'e-1' },
          query: { skill_id: ['skl-java', 'skl-python'], limit: '2' },
        }),
      ],
      bad: [
        no('an unknown employee', 404, {
          params: { employee_external_id: 'nobody' },
          query: { job_id: 'job-1' },
        }),
        no('no target', 422, { params: { employee_external_id: 'e-1' } }),
        no('a limit of 0', 422, {
          params: { employee_external_id: 'e-1' },
          query: { vacancy_id: 'vac-1', limit: '0' },
        }),
      ],
    },
  ],
  [
    'GET /taxonomy/skills/{skill_id}/related',
    {
      good: [
        ok('the skills related to a skill', 200, {
          params: { skill_id: 'skl-python' },
          query: { min_support: '1' },
        }),
      ],
      bad: [
        no('an unknown skill', 404, { params: { skill_id: 'skl-nothing' } }),
        no('a limit of 0', 422, { params: { skill_id: 'skl-python' }, query: { limit: '0' } }),
      ],
    },
  ],
  [
    'GET /organisational_units/export',
    {
      good: [
        ok('the hierarchy with low_data_availability counts', 200, {
          query: { include: 'low_data_availability_flag' },
        }),
        ok('the units with employees holding a skill', 200, { query: { skill_id: 'skl-python' } }),
      ],
      bad: [
        // 4.6 lists 400 and neither 404 nor 422.
        no('include=everything', 400, { query: { include: 'everything' } }),
        no('a skill_id of 101 characters', 400, { query: { skill_id: 's'.repeat(101) } }),
        no('a skill_id of no skill', 400, { query: { skill_id: 'skl-nothing' } }),
        no('a vendor not activated on the tenant', 403, { query: { external_vendor: 'vendor_b' } }),
      ],
    },
  ],
  [
    'POST /job_architecture/changes/preview',
    {
      good: [ok('a preview of add_job_description for a known job', 202, { body: PREVIEW })],
      bad: [
        // 4.4 lists 400 and neither 404, 415 nor 422.
        no('a request without context', 400, {
          body: { change_type: 'add_job_description', job_id: 'job-1' },
        }),
        no('change_type rename', 400, { body: { ...PREVIEW, change_type: 'rename' } }),
        no('a job_id of no job', 400, { body: { ...PREVIEW, job_id: 'job-none' } }),
        malformed(),
        asText(PREVIEW, 400),
      ],
    },
  ],
  [
    'GET /job_architecture/changes/{change_id}',
    {
      good: [ok('the preview made in beforeAll', 200, { params: { change_id: '{change_id}' } })],
      bad: [no('a change_id that was never made', 404, { params: { change_id: 'jcp-unknown' } })],
    },
  ],
  profile('/employees/{employee_external_id}/skill_profile', 'employee_external_id', 'e-1'),
  profile('/job_architecture/jobs/{job_external_id}/skill_profile', 'job_external_id', 'job-1'),
  profile('/courses/{course_external_id}/skill_profile', 'course_external_id', 'course-1'),
  [
    'GET /job_architecture/job_families/{job_family_external_id}/skill_profile',
    {
      good: [
        ok('a known family with every include a vendor allows', 200, {
          params: { job_family_external_id: 'jf-1' },
          query: {
            include: ['proficiency_level', 'proficiency_float', 'critical', 'properties'],
            format: 'list',
            external_vendor: 'vendor_default',
          },
        }),
        ok('a known family as a hierarchy, with validation states, in Dutch', 200, {
          params: { job_family_external_id: 'jf-1' },
          query: { format: 'hierarchy', include: 'skill_validation_state', vocab_language: 'nl' },
        }),
      ],
      bad: [
        no('include=skill_validation_state together with external_vendor', 422, {
          params: { job_family_external_id: 'jf-1' },
          query: { include: 'skill_validation_state', external_vendor: 'vendor_default' },
        }),
        no('an unknown family', 404, { params: { job_family_external_id: 'jf-none' } }),
        no('format=tree', 422, { params: { job_family_external_id: 'jf-1' }, query: { format: 'tree' } }),
        no('domain_namespace=galaxy', 422, {
          params: { job_family_external_id: 'jf-1' },
          query: { domain_namespace: 'galaxy' },
        }),
      ],
    },
  ],
  [
    'POST /job_architecture/export/jobs/matching_employees',
    {
      good: [
        ok('empty filters and weights, explained, in Dutch', 200, {
          query: { response_format: 'explained', vocab_language: 'nl' },
          body: JOB_MATCHING,
        }),
        ok('a page of one job', 200, { body: { ...JOB_MATCHING, limit: 1 } }),
      ],
      bad: [
        no('a body without the required weights', 400, { body: { filters: [] } }),
        no('limit 80, over the range 1 to 50', 422, { body: { ...JOB_MATCHING, limit: 80 } }),
        no('response_format=fancy', 422, { query: { response_format: 'fancy' }, body: JOB_MATCHING }),
        no('no body at all', 400),
        asText(JOB_MATCHING),
      ],
    },
  ],
  [
    'POST /employees/{employee_external_id}/matching_vacancies',
    {
      good: [
        ok('an empty request', 200, {
          params: { employee_external_id: 'e-1' },
          query: { min_score: '0', limit: '5' },
          body: {},
        }),
        ok('no body at all', 200, { params: { employee_external_id: 'e-1' } }),
        ok('explained, with every include', 200, {
          params: { employee_external_id: 'e-1' },
          query: {
            response_format: 'explained',
            offset: '0',
            min_score: '0',
            include: [...VACANCY_MATCH_INCLUDES],
          },
          body: { filters: [], weights: [] },
        }),
      ],
      bad: [
        no('an unknown employee', 404, { params: { employee_external_id: 'nobody' }, body: {} }),
        no('filters that are a string, not an array', 400, {
          params: { employee_external_id: 'e-1' },
          body: { filters: 'near' },
        }),
        no('limit=500', 422, { params: { employee_external_id: 'e-1' }, query: { limit: '500' }, body: {} }),
        no('a filter kind that does not exist', 422, {
          params: { employee_external_id: 'e-1' },
          body: { filters: [{ filter: 'nearby' }] },
        }),
      ],
    },
  ],
  ...COLLECTIONS.flatMap(collectionCases),
  ['GET /healthz', { good: [ok('the health of the server', 200)], bad: [] }],
  [
    'POST /oauth/token',
    {
      good: [
        ok('client credentials as a form', 200, {
          raw: {
            text: 'grant_type=client_credentials&client_id={client_id}&client_secret={client_secret}',
            type: 'application/x-www-form-urlencoded',
          },
        }),
        ok('client credentials as JSON, read scope only', 200, {
          body: {
            grant_type: 'client_credentials',
            client_id: '{client_id}',
            client_secret: '{client_secret}',
            scope: 'read',
          },
        }),
      ],
      bad: [
        no('a wrong secret', 401, {
          body: { grant_type: 'client_credentials', client_id: '{client_id}', client_secret: 'wrong' },
        }),
        no('grant_type password', 400, {
          body: { grant_type: 'password', client_id: '{client_id}', client_secret: '{client_secret}' },
        }),
        no('no credentials', 400, { body: { grant_type: 'client_credentials' } }),
        no('a scope that does not exist', 400, {
          body: {
            grant_type: 'client_credentials',
            client_id: '{client_id}',
            client_secret: '{client_secret}',
            scope: 'admin',
          },
        }),
        asText({ grant_type: 'client_credentials' }),
      ],
    },
  ],
])

// ---------------------------------------------------------------------------------------------
// The operations of the document Prism checks against.

interface DocOperation {
  /** The session's key: `METHOD path`, the path below the base URL (or at the root). */
  key: string
  method: string
  /** The document's path, `/{tenant}/{region}/…` below a base URL. */
  path: string
  operationId: string
  /** Below a tenant's base URL (everything but /healthz and /oauth/token). */
  based: boolean
  /** The statuses the document lists for it. */
  documented: number[]
}

const document = mockDocument()
const OPERATIONS: DocOperation[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
  METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined).map((method) => {
    const operation = (item as Record<string, { operationId: string; responses: Record<string, unknown> }>)[
      method
    ]
    const based = path.startsWith(`${BASE}/`)
    return {
      key: `${method.toUpperCase()} ${based ? path.slice(BASE.length) : path}`,
      method: method.toUpperCase(),
      path,
      operationId: operation?.operationId ?? '',
      based,
      documented: Object.keys(operation?.responses ?? {}).map(Number),
    }
  }),
)

/** The error statuses a bad request of the table targets (the rest are route-wide conditions). */
const INPUT_ERRORS = [400, 404, 409, 413, 415, 422]

/**
 * The bad requests every operation below a base URL gets besides its own, made from its first
 * good request: without a token, with the other twin's token, below an unknown tenant.
 */
function routeWideBad(cases: Cases): Call[] {
  const first = cases.good[0]
  if (!first) return []
  const { what: _what, status: _status, ...request } = first
  return [
    { ...request, what: 'the first good request without a token', status: 401, token: 'none' },
    { ...request, what: "the first good request with the other tenant's token", status: 403, token: 'other' },
    { ...request, what: 'the first good request below an unknown tenant', status: 404, unknownTenant: true },
  ]
}

// ---------------------------------------------------------------------------------------------
// Sending and judging.

/** Made in beforeAll, so that a run that filters every test out leaves no folder behind. */
let temp: ReturnType<typeof tempDir> | undefined
let dataDir = ''
let server: RunningServer
let proxy: RunningProxy
let receiver: Server | undefined

interface Places {
  token: string
  client_id: string
  client_secret: string
  change_id: string
  webhook_id: string
  doomed_webhook_id: string
  receiver: string
}
const places: Record<Twin, Places> = {
  [PROXIED]: {} as Places,
  [DIRECT]: {} as Places,
}

const fill = (text: string, tenant: Twin) =>
  text.replace(
    /\{(client_id|client_secret|change_id|webhook_id|doomed_webhook_id|receiver)\}/g,
    (_, name: keyof Places) => {
      const value = places[tenant][name]
      if (!value) throw new Error(`{${name}} of ${tenant} used before beforeAll set it`)
      return value
    },
  )

interface Answer {
  status: number
  headers: Headers
  text: string
  json: unknown
  /** Whether the server gave the answer (it echoes the request's X-Request-Id; Prism's own answers do not). */
  fromServer: boolean
}

let requests = 0

/** Sends `request` of `operation` for `tenant`, through Prism or straight to the server. */
async function send(operation: DocOperation, request: Call, tenant: Twin, via: 'proxy' | 'server') {
  const origin = via === 'proxy' ? proxy.url : server.url
  let path = operation.path
    .replace('{tenant}', request.unknownTenant ? UNKNOWN_TENANT : tenant)
    .replace('{region}', 'eu')
  for (const [name, value] of Object.entries(request.params ?? {}))
    path = path.replace(`{${name}}`, encodeURIComponent(fill(value, tenant)))
  if (/\{[^}]+\}/.test(path))
    throw new Error(`${operation.key}: "${request.what}" leaves a path parameter: ${path}`)
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(request.query ?? {}))
    for (const one of Array.isArray(value) ? value : [value]) search.append(name, fill(one, tenant))
  const requestId = `contract-${++requests}`
  const headers: Record<string, string> = { 'x-request-id': requestId }
  const token = request.token ?? 'own'
  if (operation.based && token !== 'none')
    headers.authorization = `Bearer ${places[token === 'own' ? tenant : twinOf(tenant)].token}`
  let body: string | undefined
  if (request.raw) {
    body = fill(request.raw.text, tenant)
    headers['content-type'] = request.raw.type
  } else if (request.body !== undefined) {
    body = fill(JSON.stringify(request.body), tenant)
    headers['content-type'] = 'application/json'
  }
  const url = `${origin}${path}${search.size ? `?${search}` : ''}`
  const answer = await callServer(url, {
    method: operation.method,
    headers,
    ...(body !== undefined ? { body } : {}),
  })
  return { ...answer, fromServer: answer.headers.get('x-request-id') === requestId } satisfies Answer
}

/** One exchange of the session, for the record and the summary. */
interface Exchange {
  key: string
  kind: 'good' | 'bad'
  what: string
  proxied: number
  direct: number
  answeredBy: 'server' | 'prism'
}
const session: Exchange[] = []

/** The request validation answers Prism gives itself, by `type`. */
const REQUEST_REFUSALS = ['UNPROCESSABLE_ENTITY', 'UNAUTHORIZED'].map((type) => `${PRISM_ERROR_TYPE}${type}`)

/** Sends a request both ways and checks the two answers against the document and each other. */
async function exchange(operation: DocOperation, request: Call, kind: 'good' | 'bad'): Promise<void> {
  const proxied = await send(operation, request, PROXIED, 'proxy')
  const direct = await send(operation, request, DIRECT, 'server')
  const side = proxied.fromServer ? 'forwarded, the server answered' : 'Prism answered itself'
  const label = `${operation.key} (${operation.operationId}), ${kind}: ${request.what} [${side} ${proxied.status}; straight to the server ${direct.status}]`
  session.push({
    key: operation.key,
    kind,
    what: request.what,
    proxied: proxied.status,
    direct: direct.status,
    answeredBy: proxied.fromServer ? 'server' : 'prism',
  })
  const problem = prismProblemOf(proxied.headers, proxied.json)
  // The server answers within the document: Prism found nothing wrong with its answer.
  expect
    .soft(
      violationsOf(proxied.headers).filter((violation) => violation.location[0] === 'response'),
      `${label}: the server's answer breaks the document`,
    )
    .toEqual([])
  expect.soft(problem?.type, `${label}: ${proxied.text.slice(0, 1500)}`).not.toBe(PRISM_VIOLATIONS)
  // The server answers as the table says, with a status the operation documents.
  expect
    .soft(direct.status, `${label}: the server answered ${direct.text.slice(0, 500)}`)
    .toBe(request.status)
  expect
    .soft(operation.documented, `${label}: status ${direct.status} is not documented`)
    .toContain(direct.status)
  expect.soft(direct.fromServer, `${label}: straight to the server`).toBe(true)
  if (proxied.fromServer) {
    // Forwarded: the document accepted the request, and the proxy passed on the server's status.
    expect.soft(violationsOf(proxied.headers), `${label}: violations of a forwarded exchange`).toEqual([])
    expect.soft(proxied.status, `${label}: through Prism ${proxied.text.slice(0, 500)}`).toBe(direct.status)
    return
  }
  // Prism answered itself: only a refusal of a request the server refuses too is fine.
  const refusal =
    (problem !== undefined && REQUEST_REFUSALS.includes(problem.type)) ||
    prismParseErrorOf(proxied.status, proxied.json)
  expect
    .soft(refusal, `${label}: Prism answered ${proxied.status} itself: ${proxied.text.slice(0, 1500)}`)
    .toBe(true)
  expect
    .soft(kind, `${label}: the document refuses a request the server accepts: ${proxied.text}`)
    .toBe('bad')
  expect.soft(direct.status, `${label}: Prism refused it, the server did not`).toBeGreaterThanOrEqual(400)
}

beforeAll(async () => {
  temp = tempDir('skillhouse-contract-')
  dataDir = join(temp.dir, 'data')
  for (const tenant of [PROXIED, DIRECT] as const) {
    const created = await createTenant({ dataDir, name: tenant, region: 'eu', initialise: initialiseTenant })
    places[tenant].client_id = created.client_id
    places[tenant].client_secret = created.client_secret
  }
  server = await startTestServer(dataDir, { bodyLimit: BODY_LIMIT })
  receiver = createServer((request, response) => {
    request.resume()
    response.writeHead(request.url === '/refuse' ? 500 : 204).end()
  })
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', () => resolve()))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  // Prism starts while the twins are seeded, straight on the server.
  const starting = startProxy({ upstream: server.url, port: 0, host: '127.0.0.1' })
  starting.catch(() => undefined)
  for (const tenant of [PROXIED, DIRECT] as const) {
    const own = places[tenant]
    own.token = await tokenFor(dataDir, tenant)
    own.receiver = receiverUrl
    const made = async (method: string, path: string, body?: unknown) => {
      const answer = await callServer(`${server.url}/${tenant}/eu${path}`, {
        method,
        token: own.token,
        ...(body !== undefined ? { body } : {}),
      })
      if (answer.status >= 300)
        throw new Error(`seeding ${tenant}: ${method} ${path}: ${answer.status} ${answer.text}`)
      return answer.json as Record<string, string> | undefined
    }
    for (const { path, records } of SEED) for (const record of records) await made('POST', path, record)
    await made('POST', '/employees/e-1/skill_events', SEEDED_EVENT)
    own.change_id = (await made('POST', '/job_architecture/changes/preview', PREVIEW))?.change_id ?? ''
    own.webhook_id = (await made('POST', '/webhooks', { url: `${receiverUrl}/seeded` }))?.id ?? ''
    own.doomed_webhook_id = (await made('POST', '/webhooks', { url: `${receiverUrl}/doomed` }))?.id ?? ''
    // Events after the subscriptions: the delivery logs the session reads are not empty.
    await made('POST', '/taxonomy/skills', {
      external_id: 'sk-evented',
      skill_name: 'Winch tuning',
      skill_cluster_id: 'cl-1',
    })
  }
  proxy = await starting
}, 120_000)

afterAll(async () => {
  await proxy?.stop()
  await server?.close()
  receiver?.close()
  temp?.cleanup()
})

describe('the contract session', () => {
  it('has requests for every operation of the document, and only for those', () => {
    const keys = OPERATIONS.map((operation) => operation.key)
    expect(OPERATIONS.length).toBeGreaterThan(90)
    expect(
      keys.filter((key) => !SESSION.has(key)),
      'operations without requests',
    ).toEqual([])
    expect(
      [...SESSION.keys()].filter((key) => !keys.includes(key)),
      'requests of no operation',
    ).toEqual([])
  })

  it('has a good request for every operation, and a bad one wherever the operation documents an input error', () => {
    for (const operation of OPERATIONS) {
      const cases = SESSION.get(operation.key)
      expect(cases?.good.length, operation.key).toBeGreaterThan(0)
      const bad = [...(cases?.bad ?? []), ...(operation.based && cases ? routeWideBad(cases) : [])]
      if (operation.documented.some((status) => INPUT_ERRORS.includes(status)))
        expect(bad.length, operation.key).toBeGreaterThan(0)
    }
  })
})

describe.each(OPERATIONS)('$key ($operationId)', (operation) => {
  it('the server and the document agree on its good and bad requests', async () => {
    const cases = SESSION.get(operation.key)
    if (!cases) throw new Error(`no requests for ${operation.key}`)
    for (const request of cases.good) await exchange(operation, request, 'good')
    for (const request of cases.bad) await exchange(operation, request, 'bad')
    if (operation.based) for (const request of routeWideBad(cases)) await exchange(operation, request, 'bad')
  })
})

describe('a method the document does not list on a path', () => {
  it('is refused by Prism with its 405, and by the server with 405 too', async () => {
    const paths = new Map<string, DocOperation>()
    for (const operation of OPERATIONS) if (!paths.has(operation.path)) paths.set(operation.path, operation)
    for (const operation of paths.values()) {
      const params = OPERATIONS.filter((other) => other.path === operation.path)
        .flatMap((other) => SESSION.get(other.key)?.good ?? [])
        .find((request) => request.params)?.params
      const put: DocOperation = { ...operation, method: 'PUT', key: `PUT ${operation.path}` }
      const request: Call = { what: 'PUT', status: 405, ...(params ? { params } : {}) }
      const proxied = await send(put, request, PROXIED, 'proxy')
      const direct = await send(put, request, DIRECT, 'server')
      expect.soft(proxied.fromServer, `${put.key} through Prism`).toBe(false)
      expect
        .soft(prismProblemOf(proxied.headers, proxied.json)?.type, `${put.key} through Prism`)
        .toBe(`${PRISM_ERROR_TYPE}NO_METHOD_MATCHED_ERROR`)
      expect.soft(proxied.status, `${put.key} through Prism`).toBe(405)
      expect.soft(direct.status, `${put.key} straight to the server: ${direct.text}`).toBe(405)
      expect.soft(direct.headers.get('allow'), put.key).toBeTruthy()
    }
    expect(paths.size).toBeGreaterThan(50)
  })
})

describe('the session as a whole', () => {
  it('forwarded every good request, and had bad requests refused on both sides of the proxy', () => {
    const good = session.filter((entry) => entry.kind === 'good')
    expect(new Set(good.map((entry) => entry.key)).size).toBe(OPERATIONS.length)
    expect(good.filter((entry) => entry.answeredBy !== 'server')).toEqual([])
    const bad = session.filter((entry) => entry.kind === 'bad')
    // Both directions were exercised: bad requests the document lets through to the server, and
    // bad requests Prism refuses before they reach it.
    expect(bad.filter((entry) => entry.answeredBy === 'server').length).toBeGreaterThan(100)
    expect(bad.filter((entry) => entry.answeredBy === 'prism').length).toBeGreaterThan(100)
  })

  it('stops Prism by its own process id', async () => {
    expect(proxy.pid).toBeGreaterThan(0)
    expect(() => process.kill(proxy.pid, 0)).not.toThrow()
    await proxy.stop()
    expect(() => process.kill(proxy.pid, 0)).toThrow()
  })
})
