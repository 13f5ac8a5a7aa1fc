import type { MiddlewareHandler } from 'hono'
import { type ApiRoute, routeScope } from '../../api/api-route.js'
import type { AccessClaims, TokenVerifier } from '../../auth/access-tokens.js'
import { errors } from '../../errors/skillhouse-error.js'
import type { TenantEntry } from '../../tenants/tenant-registry.js'
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
  return async (c, next) => {
    if (options.topLevelPaths.includes(c.req.path)) return next()
    const tenant = c.req.param('tenant') ?? ''
    const region = c.req.param('region') ?? ''
    const origin = options.fixedOrigin ?? originOf(c.req.url)
    const { entry, claims } = await authenticate(options, {
      tenant,
      region,
      authorization: c.req.header('authorization'),
      origin,
      // Tenant and base URL are known to what follows even when the token is another tenant's.
      located: (found) => {
        c.set('tenant', found.settings.name)
        c.set('baseUrl', baseUrlAt(origin, found))
      },
    })
    c.set('claims', claims)
    if (!options.fixedOrigin) options.reached?.(entry.settings.name, origin)
    return next()
  }
}

/** What `authenticate` reads of a request below a base URL. */
export interface BaseUrlRequest {
  tenant: string
  region: string
  /** The Authorization header, if any. */
  authorization: string | undefined
  /** The origin the request reached the server at. */
  origin: string
  /** Told the tenant once it is found, before the token is held against it. */
  located?(entry: TenantEntry): void
}

/**
 * The checks of `authentication` as one function, for the middleware and for answers given
 * before any middleware runs (the kept answers of `KeptAnswerLane`): the token (401), the
 * tenant and region (404), the token's tenant (403), its client not revoked (401).
 */
export async function authenticate(
  options: Pick<AuthenticationOptions, 'verifier' | 'resolve'>,
  request: BaseUrlRequest,
): Promise<{ entry: TenantEntry; claims: AccessClaims }> {
  const { tenant } = request
  const claims = await options.verifier.verify(bearerToken(request.authorization))
  // Only the tenant's own clients learn its region from a wrong base URL.
  const entry = options.resolve(tenant, request.region, claims.tenant === tenant)
  request.located?.(entry)
  if (claims.tenant !== tenant) {
    throw errors.forbidden(`the access token is for tenant ${claims.tenant}, not for ${tenant}`)
  }
  // A revoked client's tokens stop working at once, not when they expire.
  const client = entry.clients.find((candidate) => candidate.client_id === claims.sub)
  if (client?.revoked_at) throw errors.revokedClientToken(claims.sub, client.revoked_at)
  return { entry, claims }
}

/** An origin as the URL standard writes it: a lower-case host, a port other than the default. */
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
const PLAIN_ORIGIN = new RegExp(
  `^http://(?:(?:${OCTET}\\.){3}${OCTET}|[a-z][a-z0-9-]*(?:\\.[a-z][a-z0-9-]*)*)(?::(?!80$)[1-9]\\d{0,4})?$`,
)

/** `new URL(url).origin`, without parsing the whole URL when the origin is plainly written. */
export function originOf(url: string): string {
  const path = url.indexOf('/', url.indexOf('//') + 2)
  const origin = path === -1 ? url : url.slice(0, path)
  return PLAIN_ORIGIN.test(origin) ? origin : new URL(url).origin
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
function bearerToken(header: string | undefined): string {
  if (!header) {
    throw errors.missingAccessToken(
      'the Authorization header is missing; send Authorization: Bearer <access token> (POST /oauth/token gives one)',
    )
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match?.[1]) throw errors.missingAccessToken('the Authorization header must be "Bearer <access token>"')
  return match[1]
}
