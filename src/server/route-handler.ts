import type { Context, Handler } from 'hono'
import { type ApiRoute, answeredStatus, type RouteContext } from '../api/api-route.js'
import { queryParameterCheck } from '../api/query-parameters.js'
import type { StrictCheck } from '../entities/skill-event-store.js'
import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import { strictCheck } from '../profiles/strict-check.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { type AppEnv, idHeader } from './app-env.js'
import { jsonResponse, readJson } from './http-io.js'
import { KnownEmployees } from './known-employees.js'
import type { TenantPool } from './tenant-pool.js'

/** What the routes' handlers work with, shared by every request of an app. */
export interface RouteServices {
  pool: TenantPool
  /** Largest request body in bytes (413 above it). */
  bodyLimit: number
  /** The `strict` check of 4.2 per tenant, prepared once per derivation (which drops it). */
  strictChecks: Map<string, Promise<StrictCheck>>
  /** Which ids are each tenant's employees, while its entities stay the same. */
  knownEmployees: Map<string, KnownEmployees>
  /** Tells the background worker that a tenant's inputs changed. */
  schedule(tenant: string): void
  /** Tells the webhook delivery that a tenant may have new events. */
  nudge(tenant: string): void
}

/**
 * The handler of one route: runs it with its `RouteContext`, answers its result (JSON text as the
 * CLI writes it), and hands it on as `routeResult` for the answer cache. An error of a status
 * the endpoint's list of section 4 lacks is answered as that list has it (`answeredStatus`).
 */
export function routeHandler(route: ApiRoute, services: RouteServices): Handler<AppEnv> {
  const reads = route.method === 'GET' || route.scope === 'read'
  const unknownParameters = queryParameterCheck(route)
  return async (c) => {
    const unknown = unknownParameters(Object.keys(c.req.queries()))
    if (unknown) throw asListedStatus(route, unknown)
    const tenant = c.get('tenant')
    let wrote = false
    const context = routeContext(c, services, reads, () => {
      wrote = true
    })
    const result = await route.handler(context).catch((error: unknown) => {
      throw asListedStatus(route, error)
    })
    // A change may have appended events (taxonomy operations do): deliver them now, not at the
    // next look. Skill events append none (their derivation does, and nudges after it).
    if (wrote) services.nudge(tenant)
    c.set('routeResult', result)
    const headers = { ...route.headers, ...result.headers }
    if (result.status === 204) return c.body(null, 204, headers)
    return jsonResponse(result.json ?? 'null', result.status, { ...headers, ...idHeader(c) })
  }
}

/** The request's parts and its tenant, for a route handler; `writing` is told when it writes. */
function routeContext(
  c: Context<AppEnv>,
  services: RouteServices,
  reads: boolean,
  writing: () => void,
): RouteContext {
  const { pool } = services
  const tenant = c.get('tenant')
  const baseUrl = c.get('baseUrl')
  return {
    tenantName: tenant,
    params: c.req.param() as Record<string, string>,
    query: (name) => c.req.query(name),
    queries: (name) => c.req.queries(name) ?? [],
    body: (bodyOptions) => readJson(c.req.raw, { limit: services.bodyLimit, ...bodyOptions }),
    // GETs, and POSTs that are queries sent as a body (scope read: matching, taxonomy
    // changes), only read: they run beside each other (and beside the background work).
    // The events a request causes point at the origin the request reached.
    tenant: (work) => {
      if (!reads) writing()
      const atRequest = (open: OpenTenant) => work({ ...open, baseUrl })
      return reads ? pool.useForReading(tenant, atRequest) : pool.use(tenant, atRequest)
    },
    skillEventLane: (work) => pool.useForSkillEvents(tenant, (open) => work({ ...open, baseUrl })),
    changed: () => services.schedule(tenant),
    employeeLookup: (open) => {
      let known = services.knownEmployees.get(tenant)
      if (!known) {
        known = new KnownEmployees(() => pool.entityVersion(tenant))
        services.knownEmployees.set(tenant, known)
      }
      return known.lookup(open.database)
    },
    strictCheck: (open) => {
      let check = services.strictChecks.get(tenant)
      if (!check) {
        check = strictCheck(open.database)
        services.strictChecks.set(tenant, check)
        check.catch(() => services.strictChecks.delete(tenant))
      }
      return check
    },
  }
}

/** An error as the endpoint's list of section 4 has it (`answeredStatus`). */
function asListedStatus(route: ApiRoute, error: unknown): unknown {
  if (!(error instanceof SkillhouseError)) return error
  const status = answeredStatus(route, error.status)
  return status === error.status ? error : errors.asBadRequest(error)
}
