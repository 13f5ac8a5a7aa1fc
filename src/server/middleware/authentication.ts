import type { Context, MiddlewareHandler } from 'hono'
import { errors } from '../../errors/skillhouse-error.js'
import type { TenantEntry } from '../../tenants/tenant-registry.js'
import type { AccessClaims, TokenVerifier } from '../access-tokens.js'
import { type ApiRoute, routeScope } from '../api-route.js'
import { type AppEnv, baseUrlAt } from '../app-env.js'

export interface AuthenticationOptions {
  verifier: TokenVerifier
  /** The tenant of a base URL: 404 for an unknown tenant, or a region it is not in (`reveal`: named). */
  resolve(tenant: string, region: string, reveal: boolean): TenantEntry
  /** Paths outside every base URL that `/:tenant/:region/*` would take for one (`/oauth/token`). */
  topLevelPaths: readonly string[]
  /** The origin base URLs are built on (`serve --origin`); without it, the request's. */
  fixedOrigin?: string | undefined
  /** Told the origin each authenticated request reached the server at (only without `fixedOrigin`). */
  reached?(tenant: string, origin: string): void
}

/**
 * The token, then the tenant: everything below a base URL needs both. Without a valid token
 * every base URL answers the same 401, so that no one learns which tenants exist or where; then
 * 404 for an unknown tenant or region, 403 for a token of another tenant, 401 for a token whose
 * client was revoked. Sets `tenant`, `baseUrl` and `claims` for what follows.
 */
export function authentication(options: AuthenticationOptions): MiddlewareHandler<AppEnv> {
  const { verifier, fixedOrigin } = options
  return async (c, next) => {
    if (options.topLevelPaths.includes(c.req.path)) return next()
    const tenant = c.req.param('tenant') ?? ''
    const claims = await verifier.verify(bearerToken(c))
    // Only the tenant's own clients learn its region from a wrong base URL.
    const entry = options.resolve(tenant, c.req.param('region') ?? '', claims.tenant === tenant)
    const origin = fixedOrigin ?? new URL(c.req.url).origin
    c.set('tenant', entry.settings.name)
    c.set('baseUrl', baseUrlAt(origin, entry))
    if (claims.tenant !== tenant) {
      throw errors.forbidden(`the access token is for tenant ${claims.tenant}, not for ${tenant}`)
    }
    // A revoked client's tokens stop working at once, not when they expire.
    const client = entry.clients.find((candidate) => candidate.client_id === claims.sub)
    if (client?.revoked_at) throw errors.revokedClientToken(claims.sub, client.revoked_at)
    c.set('claims', claims)
    if (!fixedOrigin) options.reached?.(entry.settings.name, origin)
    return next()
  }
}

/** The route's scope (`routeScope`), or 403 naming it and the token's scopes. */
export function requireScope(route: Pick<ApiRoute, 'method' | 'path' | 'scope'>): MiddlewareHandler<AppEnv> {
  const needed = routeScope(route)
  return async (c, next) => {
    const claims: AccessClaims = c.get('claims')
    if (!claims.scopes.includes(needed)) {
      throw errors.insufficientScope(
        needed,
        `${route.method} ${route.path} needs the ${needed} scope; the access token has ${claims.scopes.join(', ') || 'none'}`,
      )
    }
    return next()
  }
}

/** The access token of `Authorization: Bearer <token>`, or 401 saying how to send one. */
function bearerToken(c: Context<AppEnv>): string {
  const header = c.req.header('authorization')
  if (!header) {
    throw errors.missingAccessToken(
      'the Authorization header is missing; send Authorization: Bearer <access token> (POST /oauth/token gives one)',
    )
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match?.[1]) throw errors.missingAccessToken('the Authorization header must be "Bearer <access token>"')
  return match[1]
}
