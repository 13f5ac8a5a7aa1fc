import type { Context } from 'hono'
import type { RouteResult } from '../api/api-route.js'
import type { AccessClaims } from '../auth/access-tokens.js'
import type { TenantEntry } from '../tenants/tenant-registry.js'

/** What the middleware of a request learns and hands on (hono's context variables). */
export type AppEnv = {
  Variables: {
    requestId: string
    /** The tenant of the base URL, its access token's claims and its base URL (authentication). */
    tenant: string
    claims: AccessClaims
    baseUrl: string
    /** What the route's handler answered, for the answer cache to keep. */
    routeResult: RouteResult
  }
}

/** The request id header of an answer made without hono's helpers (see `requestLogging`). */
export const idHeader = (c: Context<AppEnv>): Record<string, string> => ({
  'X-Request-Id': c.get('requestId'),
})

/** A tenant's base URL on `origin`: `{origin}/{tenant}/{region}`. */
export const baseUrlAt = (origin: string, entry: TenantEntry) =>
  `${origin.replace(/\/+$/, '')}/${entry.settings.name}/${entry.settings.region}`
