import type { Scope } from '../auth/access-tokens.js'
import type { EmployeeLookup, StrictCheck } from '../entities/skill-event-store.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import type { RouteDoc } from './route-docs.js'

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

/** One endpoint below `{base_url}`: what it answers, and how the OpenAPI document describes it. */
export interface ApiRoute {
  method: Method
  /** Hono path below the base URL, e.g. `/employees/:employee_external_id/skill_events`. */
  path: string
  /** The scope a token needs; by default `read` for GET and `write` for the other methods. */
  scope?: Scope
  /**
   * The statuses section 4 lists for the endpoint, where it lists them: an error of a status it
   * does not list is answered with 400 when that is listed (see `answeredStatus`).
   */
  statuses?: readonly number[]
  /**
   * The answers change without a request (webhook delivery state, written in the background
   * without moving the tenant's data version): a GET answer is never kept to answer again.
   */
  volatile?: boolean
  /** Extra headers of the route's answers (the `Deprecation` of 4.9). */
  headers?: Record<string, string>
  /** The route's operation in the OpenAPI document. */
  doc: RouteDoc
  handler: (context: RouteContext) => Promise<RouteResult>
}

/** The scope a route needs: the route's own, else read for GET and write otherwise. */
export function routeScope(route: Pick<ApiRoute, 'method' | 'scope'>): Scope {
  return route.scope ?? (route.method === 'GET' ? 'read' : 'write')
}

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
