import { randomUUID } from 'node:crypto'
import { type Context, Hono } from 'hono'
import type { StrictCheck } from '../entities/skill-event-store.js'
import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import { hasBacklog } from '../events/delivery-log.js'
import { type DeliveryDependencies, WebhookDeliveryLoop } from '../events/webhook-delivery.js'
import { deriveProfiles } from '../profiles/derive.js'
import { strictCheck } from '../profiles/strict-check.js'
import { LIMITS, ServerOrigin, type WebhookDeliverySettings } from '../schemas/index.js'
import type { TenantEntry } from '../tenants/tenant-registry.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import {
  type AccessClaims,
  insufficientScope,
  type JwksSource,
  jwksTokenVerifier,
  localTokenVerifier,
  missingToken,
  rememberVerified,
  type Scope,
  type TokenVerifier,
} from './access-tokens.js'
import { AnswerCache, DEFAULT_RESPONSE_CACHE_BYTES } from './answer-cache.js'
import { type ApiRoute, answeredStatus, apiRoutes, type Method, type RouteContext } from './api-routes.js'
import { asSkillhouseError, errorResponse, jsonResponse, mediaType, readJson, readText } from './http-io.js'
import { KnownEmployees } from './known-employees.js'
import { issueClientToken, type TokenRequest } from './oauth-clients.js'
import { ProfileWorker } from './profile-worker.js'
import { type Logger, stderrLogger } from './request-log.js'
import { loadOrCreateSigningKey, type SigningKey } from './signing-key.js'
import { TenantPool } from './tenant-pool.js'

export interface AppOptions {
  /** The data directory: tenants.json, the tenant databases, the signing key. */
  dataDir: string
  /** The key of the server's own tokens; loaded from (or created in) the data directory when absent. */
  signingKey?: SigningKey
  /** Accept tokens of an external authorization server instead; `POST /oauth/token` is then not served. */
  jwks?: JwksSource
  /** Largest request body in bytes (413 above it); default 1 MiB. */
  bodyLimit?: number
  logger?: Logger
  /** Debounce of the background derivation (ms): quiet time, and longest wait under a steady stream. */
  deriveDelayMs?: number
  deriveMaxDelayMs?: number
  /** Bytes of GET answers kept for answering again while the tenant's data is unchanged; 0 keeps none. */
  responseCacheBytes?: number
  /** Webhook delivery: retry window, backoff base and cap, timeout per attempt. */
  webhookDelivery?: Partial<WebhookDeliverySettings>
  /** How often the background delivery looks for due webhook deliveries (ms); default 1000. */
  deliveryIntervalMs?: number
  /** The HTTP client and clock of webhook delivery (tests). */
  deliveryDependencies?: DeliveryDependencies
  /**
   * The origin clients reach the server at (`serve --origin`, e.g. `https://skills.example.com`):
   * the base URLs that event sources are built on. Without it, the origin of the request (its
   * Host), and for background work the origin of the latest request to the tenant.
   */
  origin?: string
}

/** The application and what it holds open, for the server to stop in order. */
export interface SkillhouseApp {
  app: Hono<AppEnv>
  pool: TenantPool
  worker: ProfileWorker
  /** The background delivery of the outbox to webhook subscriptions. */
  deliveries: WebhookDeliveryLoop
  routes: readonly ApiRoute[]
  /** Starts answering 503 on /healthz: the server is draining. */
  drain(): void
  /**
   * Stops the background worker (its running derivation finishes) and the webhook delivery (the
   * requests it has in flight are answered or time out, and are recorded), then checkpoints and
   * closes every database.
   */
  close(): Promise<void>
}

type AppEnv = {
  Variables: { requestId: string; tenant: string; claims: AccessClaims; baseUrl: string }
}

/** Paths outside every base URL; `/oauth/token` only while the server issues its own tokens. */
const topLevel = (issuesTokens: boolean): { method: Method; path: string }[] => [
  { method: 'GET', path: '/healthz' },
  ...(issuesTokens ? [{ method: 'POST' as const, path: '/oauth/token' }] : []),
]

const METHOD_ORDER: Method[] = ['GET', 'POST', 'PATCH', 'DELETE']

/** The methods of an Allow header: hono answers HEAD wherever GET is answered (RFC 9110 9.3.2). */
const withHead = (methods: readonly Method[]): string[] =>
  methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))

/**
 * The HTTP API (hono) over the tenants of a data directory, a thin adapter over the library:
 * every answer comes from the function the CLI calls, serialised the same way.
 *
 * Order of the checks of a request below `{base_url}` = `/{tenant}/{region}`: missing or invalid
 * token (401), unknown tenant or region (404), token of another tenant (403), unknown path (404)
 * or method (405 with Allow), missing scope (403), then the route's own checks (415, 413, 400,
 * 422, 404, 409). Every error, thrown anywhere, leaves through the one error handler as the
 * spec's body.
 */
export async function createApp(options: AppOptions): Promise<SkillhouseApp> {
  const log = options.logger ?? stderrLogger
  const fixedOrigin = options.origin === undefined ? undefined : originOf(options.origin)
  const bodyLimit = options.bodyLimit ?? LIMITS.bodyBytes
  const signingKey = options.jwks
    ? undefined
    : (options.signingKey ?? (await loadOrCreateSigningKey(options.dataDir)))
  const verifier: TokenVerifier = options.jwks
    ? rememberVerified(jwksTokenVerifier(options.jwks))
    : rememberVerified(localTokenVerifier(signingKey as SigningKey))
  const strictChecks = new Map<string, Promise<StrictCheck>>()
  const knownEmployees = new Map<string, KnownEmployees>()
  let worker: ProfileWorker | undefined
  // Per tenant: the origin its latest request reached the server at (see `origin`).
  const reachedAt = new Map<string, string>()
  const baseUrlAt = (origin: string, entry: TenantEntry) =>
    `${origin.replace(/\/+$/, '')}/${entry.settings.name}/${entry.settings.region}`
  const pool = new TenantPool(
    options.dataDir,
    (tenant) => worker?.schedule(tenant),
    (entry) => {
      const origin = fixedOrigin ?? reachedAt.get(entry.settings.name)
      return origin ? baseUrlAt(origin, entry) : entry.base_url
    },
  )
  const cacheBytes = options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES
  const answers = cacheBytes > 0 ? new AnswerCache(cacheBytes) : undefined
  const deliveries = new WebhookDeliveryLoop({
    tenants: () => pool.openTenants(),
    access: (tenant) => (work) => pool.useForDelivery(tenant, work),
    // Delivery starts with the server: every tenant with events to deliver is opened at once.
    startup: {
      tenants: () =>
        pool
          .current()
          .list()
          .map((entry) => entry.settings.name),
      hasBacklog: (tenant) => pool.peek(tenant, hasBacklog),
    },
    ...(options.webhookDelivery ? { settings: options.webhookDelivery } : {}),
    ...(options.deliveryIntervalMs !== undefined ? { intervalMs: options.deliveryIntervalMs } : {}),
    ...options.deliveryDependencies,
    log: (entry) => log({ ...entry, level: entry.msg === 'webhook delivery failed' ? 'error' : 'info' }),
  })
  worker = new ProfileWorker({
    derive: (tenant) =>
      pool.useForDerivation(tenant, async (open) => {
        const result = await deriveProfiles({ tenant: open })
        // Job and course profiles may have changed: the strict check is prepared again.
        strictChecks.delete(tenant)
        // The derivation's events are committed: off they go to the webhooks.
        deliveries.nudge(tenant)
        return {
          vendors: result.vendors.map((vendor) => ({
            vendor: vendor.external_vendor,
            changed: vendor.changed,
          })),
        }
      }),
    ...(options.deriveDelayMs !== undefined ? { delayMs: options.deriveDelayMs } : {}),
    ...(options.deriveMaxDelayMs !== undefined ? { maxDelayMs: options.deriveMaxDelayMs } : {}),
    log: (entry) => log({ ...entry, level: entry.msg === 'derive failed' ? 'error' : 'info' }),
  })
  const routes = apiRoutes()
  deliveries.start()
  const TOP_LEVEL = topLevel(signingKey !== undefined)
  let draining = false
  const app = new Hono<AppEnv>()

  app.use('*', async (c, next) => {
    const started = performance.now()
    const given = c.req.header('x-request-id')
    const requestId = given && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID()
    c.set('requestId', requestId)
    // Before the answer exists: hono adds it to the answers it makes (c.json, c.body), and the
    // answers made here carry it themselves (`idHeader`). Set on a finished answer, a header makes
    // hono copy it into a new Response whose body is then streamed: several times the cost of a
    // small GET.
    c.header('X-Request-Id', requestId)
    await next()
    log({
      msg: 'request',
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      ...(c.get('tenant') ? { tenant: c.get('tenant') } : {}),
      ...(c.get('claims') ? { client: c.get('claims').sub } : {}),
    })
  })

  app.onError((error, c) => {
    const requestId = c.get('requestId') ?? 'unknown'
    const converted = asSkillhouseError(error, requestId)
    if (converted.status >= 500 && !(error instanceof SkillhouseError)) {
      log({
        msg: 'unhandled error',
        level: 'error',
        request_id: requestId,
        error: error.stack ?? error.message,
      })
    }
    return errorResponse(converted, idHeader(c))
  })

  app.get('/healthz', (c) =>
    draining
      ? errorResponse(errors.unavailable('the server is shutting down'), idHeader(c))
      : c.json({ status: 'ok', tenants_open: pool.openTenants().length }),
  )

  if (signingKey) {
    const key = signingKey
    app.post('/oauth/token', async (c) => {
      const request = await tokenRequest(c.req.raw, bodyLimit)
      const response = await issueClientToken(pool.current(), key, request, basicCredentials(c))
      return jsonResponse(JSON.stringify(response), 200, {
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
        ...idHeader(c),
      })
    })
  } else {
    app.all('/oauth/token', () => {
      throw new SkillhouseError(
        404,
        'this server does not issue tokens: it accepts the tokens of an external authorization server (--jwks-file/--jwks-url); get one there',
      )
    })
  }

  // The token, then the tenant: everything below a base URL needs both. Without a valid token
  // every base URL answers the same 401, so that no one learns which tenants exist or where.
  app.use('/:tenant/:region/*', async (c, next) => {
    if (TOP_LEVEL.some((route) => route.path === c.req.path)) return next()
    const tenant = c.req.param('tenant')
    const claims = await authenticate(c, verifier)
    // Only the tenant's own clients learn its region from a wrong base URL.
    const entry = pool.resolve(tenant, c.req.param('region'), claims.tenant === tenant)
    c.set('tenant', entry.settings.name)
    c.set('baseUrl', baseUrlAt(fixedOrigin ?? new URL(c.req.url).origin, entry))
    if (claims.tenant !== tenant) {
      throw errors.forbidden(`the access token is for tenant ${claims.tenant}, not for ${tenant}`)
    }
    // A revoked client's tokens stop working at once, not when they expire.
    const client = entry.clients.find((candidate) => candidate.client_id === claims.sub)
    if (client?.revoked_at) {
      throw new SkillhouseError(
        401,
        `the access token's client ${claims.sub} was revoked at ${client.revoked_at}`,
        {
          'WWW-Authenticate': 'Bearer realm="skillhouse", error="invalid_token"',
        },
      )
    }
    c.set('claims', claims)
    if (!fixedOrigin) reachedAt.set(entry.settings.name, new URL(c.req.url).origin)
    return next()
  })

  // A path of a route without parameters names that resource, never an item of a collection
  // beside it: DELETE /employees/custom_properties is a method the definitions do not take (405),
  // not the deletion of an employee called `custom_properties`.
  // Looked up on every request of a route with parameters: one Map probe, not a pattern per route.
  const literal = new Map<string, Method[]>()
  for (const route of routes) {
    if (route.path.includes(':')) continue
    literal.set(route.path, [...(literal.get(route.path) ?? []), route.method])
  }
  for (const [path, methods] of literal) {
    literal.set(
      path,
      METHOD_ORDER.filter((method) => methods.includes(method)),
    )
  }
  const literalMethods = (path: string): Method[] => {
    // The path below `/{tenant}/{region}`, without one trailing slash (as `compile` allows it).
    const below = /^\/[^/]+\/[^/]+(\/.*?)\/?$/.exec(path)?.[1]
    return (below !== undefined && literal.get(below)) || []
  }
  for (const route of routes) {
    app.on(route.method, `/:tenant/:region${route.path}`, async (c) => {
      if (route.path.includes(':')) {
        const allowed = literalMethods(c.req.path)
        if (allowed.length > 0) throw errors.methodNotAllowed(c.req.method, c.req.path, withHead(allowed))
      }
      const needed: Scope = route.scope ?? (route.method === 'GET' ? 'read' : 'write')
      const claims = c.get('claims')
      if (!claims.scopes.includes(needed)) {
        throw insufficientScope(
          needed,
          `${route.method} ${route.path} needs the ${needed} scope; the access token has ${claims.scopes.join(', ') || 'none'}`,
        )
      }
      const tenant = c.get('tenant')
      const baseUrl = c.get('baseUrl')
      const reads = route.method === 'GET' || route.scope === 'read'
      // A GET answered before, while nothing that may write has run on the tenant since, is
      // answered again as it was (the data version of the pool says so), before anything else of
      // the request is built. The key is the URL as sent: the same text asks the same question.
      const cacheKey =
        route.method === 'GET' && answers && !route.volatile ? `${tenant} ${c.req.url}` : undefined
      const version = pool.version(tenant)
      const known = cacheKey ? answers?.get(cacheKey, version) : undefined
      if (known) return jsonResponse(known.json, known.status, { ...known.headers, ...idHeader(c) })
      let wrote = false
      const context: RouteContext = {
        tenantName: tenant,
        params: c.req.param() as Record<string, string>,
        query: (name) => c.req.query(name),
        queries: (name) => c.req.queries(name) ?? [],
        body: (bodyOptions) => readJson(c.req.raw, { limit: bodyLimit, ...bodyOptions }),
        // GETs, and POSTs that are queries sent as a body (scope read: matching, taxonomy
        // changes), only read: they run beside each other (and beside the background work).
        // The events a request causes point at the origin the request reached.
        tenant: (work) => {
          if (!reads) wrote = true
          const atRequest = (open: OpenTenant) => work({ ...open, baseUrl })
          return reads ? pool.useForReading(tenant, atRequest) : pool.use(tenant, atRequest)
        },
        skillEventLane: (work) => pool.useForSkillEvents(tenant, (open) => work({ ...open, baseUrl })),
        changed: () => worker?.schedule(tenant),
        employeeLookup: (open) => {
          let known = knownEmployees.get(tenant)
          if (!known) {
            known = new KnownEmployees(() => pool.entityVersion(tenant))
            knownEmployees.set(tenant, known)
          }
          return known.lookup(open.database)
        },
        strictCheck: (open) => {
          let check = strictChecks.get(tenant)
          if (!check) {
            check = strictCheck(open.database)
            strictChecks.set(tenant, check)
            check.catch(() => strictChecks.delete(tenant))
          }
          return check
        },
      }
      const result = await route.handler(context).catch((error: unknown) => {
        throw asListedStatus(route, error)
      })
      // A change may have appended events (taxonomy operations do): deliver them now, not at the
      // next look. Skill events append none (their derivation does, and nudges after it).
      if (wrote) deliveries.nudge(tenant)
      const headers = { ...route.headers, ...result.headers }
      if (cacheKey && result.status === 200 && result.json !== undefined) {
        answers?.set(cacheKey, version, { status: result.status, json: result.json, headers })
      }
      if (result.status === 204) return c.body(null, 204, headers)
      return jsonResponse(result.json ?? 'null', result.status, { ...headers, ...idHeader(c) })
    })
  }

  const patterns = [
    ...TOP_LEVEL.map((route) => ({ method: route.method, pattern: compile(route.path) })),
    ...routes.map((route) => ({ method: route.method, pattern: compile(`/:tenant/:region${route.path}`) })),
  ]
  app.notFound((c) => {
    const path = c.req.path
    const named = literalMethods(path)
    const allowed =
      named.length > 0
        ? named
        : METHOD_ORDER.filter((method) =>
            patterns.some((candidate) => candidate.method === method && candidate.pattern.test(path)),
          )
    // The method is allowed by a pattern only when the path ends in a slash the routes do not
    // take (the patterns allow one): an endpoint that is not there, not a refused method.
    if (allowed.includes(c.req.method as Method)) {
      return errorResponse(
        new SkillhouseError(
          404,
          `no endpoint ${path}; the endpoint is ${path.replace(/\/+$/, '')}, without the trailing slash`,
        ),
        idHeader(c),
      )
    }
    if (allowed.length > 0)
      return errorResponse(errors.methodNotAllowed(c.req.method, path, withHead(allowed)), idHeader(c))
    return errorResponse(
      new SkillhouseError(
        404,
        `no endpoint ${path}; paths hang below a tenant's base URL /{tenant}/{region}`,
      ),
      idHeader(c),
    )
  })

  return {
    app,
    pool,
    worker,
    deliveries,
    routes,
    drain: () => {
      draining = true
    },
    close: async () => {
      draining = true
      await worker?.stop()
      await deliveries.stop()
      await pool.close()
    },
  }
}

/** `serve --origin` checked: an http(s) origin, or a 400 naming it. */
function originOf(given: string): string {
  const origin = ServerOrigin.safeParse(given)
  if (origin.success) return origin.data
  throw errors.badRequest(
    `origin: ${origin.error.issues[0]?.message ?? 'is not an origin'}, e.g. https://skills.example.com; got '${given}'`,
  )
}

/** The request id header of an answer made without hono's helpers (see the first middleware). */
const idHeader = (c: Context<AppEnv>): Record<string, string> => ({ 'X-Request-Id': c.get('requestId') })

/** An error as the endpoint's list of section 4 has it (`answeredStatus`). */
function asListedStatus(route: ApiRoute, error: unknown): unknown {
  if (!(error instanceof SkillhouseError)) return error
  const status = answeredStatus(route, error.status)
  return status === error.status ? error : new SkillhouseError(400, error.descriptions, error.headers)
}

/** A hono path as a regular expression over request paths (`:name` is one segment). */
function compile(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}/?$`)
}

async function authenticate(c: Context<AppEnv>, verifier: TokenVerifier): Promise<AccessClaims> {
  const header = c.req.header('authorization')
  if (!header) {
    throw missingToken(
      'the Authorization header is missing; send Authorization: Bearer <access token> (POST /oauth/token gives one)',
    )
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match?.[1]) throw missingToken('the Authorization header must be "Bearer <access token>"')
  return verifier.verify(match[1])
}

/** The body of a token request: a form (RFC 6749) or JSON (both are accepted, docs/api.md). */
async function tokenRequest(request: Request, limit: number): Promise<TokenRequest> {
  const type = mediaType(request)
  if (type !== 'application/x-www-form-urlencoded' && type !== 'application/json') {
    throw new SkillhouseError(
      415,
      `the content type of a token request must be application/x-www-form-urlencoded or application/json; got ${request.headers.get('content-type') ?? 'none'}`,
    )
  }
  const text = await readText(request, limit)
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text))
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw errors.badRequest(`the request body is not valid JSON: ${(error as Error).message}`)
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badRequest('a token request is a JSON object with grant_type, client_id and client_secret')
  }
  return body as TokenRequest
}

/** HTTP Basic client credentials (RFC 6749 2.3.1), when sent. */
function basicCredentials(c: Context<AppEnv>): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')
  if (!match?.[1]) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) throw errors.badRequest('the Basic credentials must be base64 of client_id:client_secret')
  try {
    // RFC 6749 2.3.1: both parts are form-urlencoded before they are joined.
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' ')),
    }
  } catch {
    throw errors.badRequest('the Basic credentials are not form-urlencoded client_id:client_secret')
  }
}
