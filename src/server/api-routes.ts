import type { z } from 'zod'
import { getJobChangePreview, previewJobChange } from '../analytics/job-change-preview.js'
import { exportOrganisation, orgExportJson } from '../analytics/org-export.js'
import { skillGap } from '../analytics/skill-gap.js'
import { ENTITY_COLLECTIONS, type EntityCollection } from '../entities/entity-collections.js'
import {
  createEntity,
  deleteEntity,
  getEntity,
  listEntities,
  updateEntity,
} from '../entities/entity-store.js'
import { parseBody } from '../entities/input-issues.js'
import type { EmployeeLookup, StrictCheck } from '../entities/skill-event-store.js'
import { errors } from '../errors/skillhouse-error.js'
import { type JobMatchingQuery, matchJobs } from '../matching/match-jobs.js'
import { matchVacancies } from '../matching/match-vacancies.js'
import type { VacancyMatchingQuery } from '../matching/vacancy-match-schema.js'
import { type JobFamilyProfileQuery, readJobFamilyProfile } from '../profiles/job-family-profile.js'
import { type ProfileOwner, readSkillProfile } from '../profiles/read-profile.js'
import {
  CUSTOM_PROPERTY_ENTITY_TYPES,
  CustomPropertyDefinition,
  DEFAULT_VENDOR,
  Domain,
  DomainPatch,
  Skill,
  SkillCluster,
  SkillClusterPatch,
  SkillPatch,
  Subdomain,
  SubdomainPatch,
} from '../schemas/index.js'
import { listTaxonomyChanges } from '../taxonomy/taxonomy-changes.js'
import {
  createCustomPropertyDefinition,
  createDomain,
  createSkill,
  createSkillCluster,
  createSubdomain,
  deleteDomain,
  deleteSkill,
  deleteSkillCluster,
  deleteSubdomain,
  getDomain,
  getSkill,
  getSkillCluster,
  getSubdomain,
  listCustomPropertyDefinitions,
  listDomains,
  listSkillClusters,
  listSkills,
  listSubdomains,
  skillClusterCount,
  type TaxonomyListQuery,
  updateDomain,
  updateSkill,
  updateSkillCluster,
  updateSubdomain,
} from '../taxonomy/taxonomy-operations.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage, vocabularyLanguages } from '../taxonomy/vocabulary-languages.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import type { Scope } from './access-tokens.js'
import { SkillEventBatcher } from './skill-event-batcher.js'
import { webhookRoutes } from './webhook-routes.js'

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE'

/** What a route handler gets: the request's parts, and its tenant behind the tenant's lock. */
export interface RouteContext {
  /** The tenant of the base URL. */
  tenantName: string
  params: Record<string, string>
  /** One query parameter (the first when repeated). */
  query(name: string): string | undefined
  /** A repeatable query parameter, every value. */
  queries(name: string): string[]
  /** The JSON body (415, 413 and 400 checked); undefined for a missing optional one. */
  body(options?: { optional?: boolean }): Promise<unknown>
  /** Runs `work` on the open tenant, one piece of work per tenant at a time. */
  tenant<T>(work: (tenant: OpenTenant) => Promise<T>): Promise<T>
  /** Runs a batch of skill event writes on the tenant: beside a running derivation, else alone. */
  skillEventLane<T>(work: (tenant: OpenTenant) => Promise<T>): Promise<T>
  /** Tells the background worker that the tenant's inputs changed: profiles are derived again. */
  changed(): void
  /** The `strict` check of 4.2 for the tenant, prepared once per derivation. Call inside `tenant`. */
  strictCheck(tenant: OpenTenant): Promise<StrictCheck>
  /** Which ids are the tenant's employees, for a batch of skill events on `tenant`'s connection. */
  employeeLookup(tenant: OpenTenant): EmployeeLookup
}

/** What a handler answers: a status and, unless 204, JSON text already serialised. */
export interface RouteResult {
  status: 200 | 201 | 202 | 204
  json?: string
  headers?: Record<string, string>
}

/** One endpoint below `{base_url}`. */
export interface ApiRoute {
  method: Method
  /** Hono path below the base URL, e.g. `/employees/:employee_external_id/skill_events`. */
  path: string
  /** The scope a token needs; by default `read` for GET and `write` for the other methods. */
  scope?: Scope
  /**
   * The statuses section 4 lists for the endpoint, where it lists them: an error of a status it
   * does not list is answered with 400 when that is listed (see `asListedStatus`).
   */
  statuses?: readonly number[]
  /**
   * The answers change without a request (webhook delivery state, written in the background
   * without moving the tenant's data version): a GET answer is never kept to answer again.
   */
  volatile?: boolean
  /** Extra headers of the route's answers (the `Deprecation` of 4.9). */
  headers?: Record<string, string>
  handler: (context: RouteContext) => Promise<RouteResult>
}

/**
 * 4.9 is deprecated (9.3). The header follows RFC 9745: the date from which the resource is
 * deprecated. The spec gives none; skillhouse marks it deprecated since 2025-01-01, the start of
 * the first model configuration it knows to supersede it (MC_2025_Q1_V1).
 */
export const DEPRECATION_HEADER = { Deprecation: '@1735689600' }

/** The error statuses section 4 lists per endpoint, where it lists them. */
const LISTED = {
  createDomain: [400, 401, 403, 405, 409, 503],
  createSkillEvent: [400, 401, 403, 404, 405, 409, 415, 422, 503],
  createCompany: [400, 401, 403, 405, 409, 413, 415, 503],
  previewJobChange: [400, 401, 403, 405, 503],
  skillGap: [401, 403, 404, 405, 503],
  orgExport: [400, 401, 403, 405, 503],
  getSubdomain: [401, 403, 404, 405, 503],
  customPropertyDefinitions: [403, 405, 503],
  skillClusterCount: [401, 403, 405, 503],
} as const satisfies Record<string, readonly number[]>

/**
 * The status a route answers for an error of `status` its handler raised: where section 4 lists
 * 400 for the endpoint but not that status, an invalid value (422), another content type (415) or
 * a record the body names that does not exist (404) is a request "not structured correctly" (400).
 * 413 stays: the body limit is the server's, the same for every endpoint.
 */
export function answeredStatus(route: Pick<ApiRoute, 'statuses'>, status: number): number {
  const listed = route.statuses
  if (!listed || listed.includes(status) || !listed.includes(400)) return status
  return status === 422 || status === 415 || status === 404 ? 400 : status
}

const ok = (value: unknown): RouteResult => ({ status: 200, json: JSON.stringify(value) })
const noContent: RouteResult = { status: 204 }

const vendorOf = (context: RouteContext) => context.query('external_vendor')

/** Checks a body with a schema only for its 400/422 split; the library then checks it again and does the work. */
const checked = <T extends z.ZodType>(schema: T, body: unknown, what: string) => {
  parseBody(schema, body, what)
  return body
}

/** The routes of section 4 that this server answers, and the resource pattern of docs/api.md. */
export function apiRoutes(): ApiRoute[] {
  // Skill events are written in batches (group commit), one batcher for the routes of one app.
  const skillEvents = new SkillEventBatcher()
  // Fixed paths before the patterns that would take their last segment for an id
  // (`/taxonomy/subdomains/custom_properties` is not the subdomain `custom_properties`).
  return refusingFixedIds([
    ...webhookRoutes(),
    ...customPropertyRoutes(),
    ...taxonomyRoutes(),
    {
      method: 'GET',
      path: '/skill_clusters/metrics/count',
      statuses: LISTED.skillClusterCount,
      headers: DEPRECATION_HEADER,
      handler: async (context) => ok(await context.tenant((tenant) => skillClusterCount(tenant))),
    },
    {
      method: 'POST',
      path: '/employees/:employee_external_id/skill_events',
      statuses: LISTED.createSkillEvent,
      handler: async (context) => {
        const body = await context.body()
        const stored = await skillEvents.submit(
          context.tenantName,
          context.skillEventLane,
          {
            employeeId: context.params.employee_external_id ?? '',
            body,
            query: {
              language: context.query('language'),
              strict: context.query('strict'),
              end_active_working_history: context.query('end_active_working_history'),
            },
          },
          (tenant) => context.strictCheck(tenant),
          (tenant) => context.employeeLookup(tenant),
        )
        if (stored.stored) context.changed()
        return noContent
      },
    },
    {
      method: 'GET',
      path: '/employees/:employee_external_id/vacancies/:vacancy_external_id/gap',
      statuses: LISTED.skillGap,
      handler: async (context) =>
        ok(
          await context.tenant((tenant) =>
            skillGap(
              tenant,
              context.params.employee_external_id ?? '',
              context.params.vacancy_external_id ?? '',
              {
                vocab_language: context.query('vocab_language'),
                external_vendor: vendorOf(context),
              },
            ),
          ),
        ),
    },
    {
      method: 'GET',
      path: '/organisational_units/export',
      statuses: LISTED.orgExport,
      handler: async (context) => {
        const result = await context.tenant((tenant) =>
          exportOrganisation(tenant, {
            skill_id: context.query('skill_id'),
            external_vendor: vendorOf(context),
            include: context.queries('include'),
          }),
        )
        // The text `org export --json` writes, safe at any depth of the hierarchy.
        return { status: 200, json: orgExportJson(result) }
      },
    },
    {
      method: 'POST',
      path: '/job_architecture/changes/preview',
      statuses: LISTED.previewJobChange,
      handler: async (context) => {
        const body = await context.body()
        const result = await context.tenant((tenant) => previewJobChange(tenant, body))
        return { status: 202, json: JSON.stringify(result) }
      },
    },
    {
      method: 'GET',
      path: '/job_architecture/changes/:change_id',
      handler: async (context) =>
        ok(await context.tenant((tenant) => getJobChangePreview(tenant, context.params.change_id ?? ''))),
    },
    profileRoute('employee', '/employees/:external_id/skill_profile'),
    profileRoute('job', '/job_architecture/jobs/:external_id/skill_profile'),
    profileRoute('course', '/courses/:external_id/skill_profile'),
    {
      method: 'GET',
      path: '/job_architecture/job_families/:external_id/skill_profile',
      handler: async (context) => {
        const query: Record<string, unknown> = { include: context.queries('include') }
        for (const name of ['domain_namespace', 'vocab_language', 'external_vendor', 'format']) {
          const value = context.query(name)
          if (value !== undefined) query[name] = value
        }
        return ok(
          await context.tenant((tenant) =>
            readJobFamilyProfile(tenant, context.params.external_id ?? '', query as JobFamilyProfileQuery),
          ),
        )
      },
    },
    ...matchingRoutes(),
    ...ENTITY_COLLECTIONS.flatMap(collectionRoutes),
  ])
}

/**
 * 4.10 and 4.11 (path and names: docs/api.md): the same functions as `match jobs` and
 * `match vacancies`. They compute and store nothing, so a `read` token is enough.
 */
function matchingRoutes(): ApiRoute[] {
  const queryOf = (context: RouteContext, names: string[]) => {
    const query: Record<string, unknown> = {}
    for (const name of names) {
      const value = context.query(name)
      if (value !== undefined) query[name] = value
    }
    return query
  }
  return [
    {
      method: 'POST',
      path: '/job_architecture/export/jobs/matching_employees',
      scope: 'read',
      handler: async (context) => {
        const body = await context.body()
        const query = queryOf(context, ['response_format', 'external_vendor', 'vocab_language'])
        return ok(await context.tenant((tenant) => matchJobs(tenant, body, query as JobMatchingQuery)))
      },
    },
    {
      method: 'POST',
      path: '/employees/:employee_external_id/matching_vacancies',
      scope: 'read',
      handler: async (context) => {
        const body = await context.body({ optional: true })
        const query = {
          ...queryOf(context, [
            'min_score',
            'limit',
            'offset',
            'response_format',
            'external_vendor',
            'vocab_language',
          ]),
          ...(context.queries('include').length ? { include: context.queries('include') } : {}),
        }
        return ok(
          await context.tenant((tenant) =>
            matchVacancies(
              tenant,
              context.params.employee_external_id ?? '',
              body ?? {},
              query as VacancyMatchingQuery,
            ),
          ),
        )
      },
    },
  ]
}

function profileRoute(owner: ProfileOwner, path: string): ApiRoute {
  return {
    method: 'GET',
    path,
    handler: async (context) =>
      ok(
        await context.tenant(async (tenant) => {
          const vendor = requireVendor(tenant, vendorOf(context) ?? DEFAULT_VENDOR)
          const language = await resolveVocabLanguage(tenant, vendor, context.query('vocab_language'))
          return readSkillProfile(tenant, owner, context.params.external_id ?? '', {
            external_vendor: vendor,
            vocab_language: language,
          })
        }),
      ),
  }
}

/** A taxonomy level's create, get, update and delete, in one vendor's taxonomy (`external_vendor`). */
interface LevelOperations {
  path: string
  what: string
  schema: z.ZodType
  patch: z.ZodType
  create: (
    tenant: OpenTenant,
    input: unknown,
    options: { external_vendor?: string | undefined },
  ) => Promise<unknown>
  get: (
    tenant: OpenTenant,
    id: string,
    options: {
      external_vendor?: string | undefined
      include?: readonly string[] | undefined
      vocab_language?: string | undefined
    },
  ) => Promise<unknown>
  update: (
    tenant: OpenTenant,
    id: string,
    patch: unknown,
    options: { external_vendor?: string | undefined },
  ) => Promise<unknown>
  remove: (
    tenant: OpenTenant,
    id: string,
    options: { external_vendor?: string | undefined },
  ) => Promise<unknown>
  list: (tenant: OpenTenant, query: TaxonomyListQuery) => Promise<unknown>
  /** The statuses section 4 lists for creating (4.1) and getting (4.7) a record of the level. */
  createStatuses?: readonly number[]
  getStatuses?: readonly number[]
  /** Whether a change alters what derivation extracts (skills do; the levels above them do not). */
  derives: boolean
}

const LEVELS: LevelOperations[] = [
  {
    path: '/taxonomy/domains',
    what: 'a domain',
    schema: Domain,
    patch: DomainPatch,
    create: createDomain,
    get: getDomain,
    update: updateDomain,
    remove: deleteDomain,
    list: listDomains,
    createStatuses: LISTED.createDomain,
    derives: false,
  },
  {
    path: '/taxonomy/subdomains',
    what: 'a subdomain',
    schema: Subdomain,
    patch: SubdomainPatch,
    create: createSubdomain,
    get: getSubdomain,
    update: updateSubdomain,
    remove: deleteSubdomain,
    list: listSubdomains,
    getStatuses: LISTED.getSubdomain,
    derives: false,
  },
  {
    path: '/taxonomy/skill_clusters',
    what: 'a skill cluster',
    schema: SkillCluster,
    patch: SkillClusterPatch,
    create: createSkillCluster,
    get: getSkillCluster,
    update: updateSkillCluster,
    remove: deleteSkillCluster,
    list: listSkillClusters,
    derives: false,
  },
  {
    path: '/taxonomy/skills',
    what: 'a skill',
    schema: Skill,
    patch: SkillPatch,
    create: createSkill,
    get: (tenant, id, options) => getSkill(tenant, id, options.external_vendor ?? DEFAULT_VENDOR, options),
    update: updateSkill,
    remove: deleteSkill,
    list: listSkills,
    derives: true,
  },
]

function taxonomyRoutes(): ApiRoute[] {
  const routes: ApiRoute[] = [
    // Before /taxonomy/skills/:id, which would take `languages` for a skill id.
    {
      method: 'GET',
      path: '/taxonomy/skills/languages',
      handler: async (context) => ok(await context.tenant((tenant) => vocabularyLanguages(tenant))),
    },
    {
      method: 'POST',
      path: '/taxonomy/changes',
      // A query sent as a body: it reads, it changes nothing.
      scope: 'read',
      handler: async (context) => {
        const body = await context.body({ optional: true })
        return ok(await context.tenant((tenant) => listTaxonomyChanges(tenant.database, body ?? {})))
      },
    },
  ]
  for (const level of LEVELS) {
    const afterChange = (context: RouteContext) => {
      if (level.derives) context.changed()
    }
    routes.push(
      {
        method: 'POST',
        path: level.path,
        ...(level.createStatuses ? { statuses: level.createStatuses } : {}),
        handler: async (context) => {
          const body = checked(level.schema, await context.body(), level.what)
          await context.tenant((tenant) => level.create(tenant, body, { external_vendor: vendorOf(context) }))
          afterChange(context)
          return noContent
        },
      },
      {
        method: 'GET',
        path: level.path,
        handler: async (context) =>
          ok(
            await context.tenant((tenant) =>
              level.list(tenant, {
                starting_after: context.query('starting_after'),
                limit: context.query('limit'),
                external_vendor: vendorOf(context),
                include: context.queries('include'),
                vocab_language: context.query('vocab_language'),
              }),
            ),
          ),
      },
      {
        method: 'GET',
        path: `${level.path}/:external_id`,
        ...(level.getStatuses ? { statuses: level.getStatuses } : {}),
        handler: async (context) =>
          ok(
            await context.tenant((tenant) =>
              level.get(tenant, context.params.external_id ?? '', {
                external_vendor: vendorOf(context),
                include: context.queries('include'),
                vocab_language: context.query('vocab_language'),
              }),
            ),
          ),
      },
      {
        method: 'PATCH',
        path: `${level.path}/:external_id`,
        handler: async (context) => {
          const body = checked(level.patch, await context.body(), `an update of ${level.what}`)
          const change = await context.tenant((tenant) =>
            level.update(tenant, context.params.external_id ?? '', body, {
              external_vendor: vendorOf(context),
            }),
          )
          if (change !== null) afterChange(context)
          return noContent
        },
      },
      {
        method: 'DELETE',
        path: `${level.path}/:external_id`,
        handler: async (context) => {
          await context.tenant((tenant) =>
            level.remove(tenant, context.params.external_id ?? '', { external_vendor: vendorOf(context) }),
          )
          afterChange(context)
          return noContent
        },
      },
    )
  }
  return routes
}

/** `GET` and `POST /{entity_type}/custom_properties` (4.8) for every entity type of 2.9. */
function customPropertyRoutes(): ApiRoute[] {
  return CUSTOM_PROPERTY_ENTITY_TYPES.flatMap((entityType): ApiRoute[] => [
    {
      method: 'GET',
      path: `/${entityType}/custom_properties`,
      statuses: LISTED.customPropertyDefinitions,
      handler: async (context) =>
        ok(await context.tenant((tenant) => listCustomPropertyDefinitions(tenant, entityType))),
    },
    {
      method: 'POST',
      path: `/${entityType}/custom_properties`,
      handler: async (context) => {
        const body = checked(CustomPropertyDefinition, await context.body(), 'a custom property definition')
        await context.tenant((tenant) => createCustomPropertyDefinition(tenant, entityType, body))
        return noContent
      },
    },
  ])
}

/**
 * The creates of collections whose item paths share a level with fixed paths refuse an id that
 * is one of them: a record `export` of `/organisational_units` could never be read or deleted,
 * `/organisational_units/export` being the organisational export (fixed paths win).
 */
function refusingFixedIds(routes: ApiRoute[]): ApiRoute[] {
  const fixed = new Set(routes.filter((route) => !route.path.includes(':')).map((route) => route.path))
  return routes.map((route) => {
    const items = `${route.path}/:`
    const collection =
      route.method === 'POST' &&
      !route.path.includes(':') &&
      routes.some((other) => other.path.startsWith(items) && !other.path.slice(items.length).includes('/'))
    if (!collection) return route
    return {
      ...route,
      handler: async (context) => {
        const body = await context.body()
        const id =
          body !== null && typeof body === 'object'
            ? (body as { external_id?: unknown }).external_id
            : undefined
        if (typeof id === 'string' && fixed.has(`${route.path}/${id}`)) {
          throw errors.unprocessable(
            `external_id: '${id}' is the fixed path ${route.path}/${id} of the API, where a record of that id could not be read, changed or deleted; choose another external_id`,
          )
        }
        return route.handler({ ...context, body: async () => body })
      },
    }
  })
}

/** the resource pattern of docs/api.md for one collection. */
function collectionRoutes(collection: EntityCollection): ApiRoute[] {
  const base = `/${collection.path}`
  const item = `${base}/:external_id`
  const id = (context: RouteContext) => context.params.external_id ?? ''
  return [
    {
      method: 'POST',
      path: base,
      ...(collection.path === 'companies' ? { statuses: LISTED.createCompany } : {}),
      handler: async (context) => {
        const body = await context.body()
        await context.tenant((tenant) => createEntity(tenant, collection, body))
        context.changed()
        return noContent
      },
    },
    {
      method: 'GET',
      path: base,
      handler: async (context) =>
        ok(
          await context.tenant((tenant) =>
            listEntities(tenant, collection, {
              starting_after: context.query('starting_after'),
              limit: context.query('limit'),
            }),
          ),
        ),
    },
    {
      method: 'GET',
      path: item,
      handler: async (context) =>
        ok(await context.tenant((tenant) => getEntity(tenant, collection, id(context)))),
    },
    {
      method: 'PATCH',
      path: item,
      handler: async (context) => {
        const body = await context.body()
        const changed = await context.tenant((tenant) => updateEntity(tenant, collection, id(context), body))
        if (changed) context.changed()
        return noContent
      },
    },
    {
      method: 'DELETE',
      path: item,
      handler: async (context) => {
        await context.tenant((tenant) => deleteEntity(tenant, collection, id(context)))
        context.changed()
        return noContent
      },
    },
  ]
}
