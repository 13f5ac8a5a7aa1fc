import { type ErrorHandler, type Handler, Hono, type MiddlewareHandler } from 'hono'
import type { ApiRoute } from '../api/api-route.js'
import { apiRoutes } from '../api/api-routes.js'
import {
  type JwksSource,
  jwksTokenVerifier,
  localTokenVerifier,
  rememberVerified,
  type TokenVerifier,
} from '../auth/access-tokens.js'
import { loadOrCreateSigningKey, type SigningKey } from '../auth/signing-key.js'
import type { StrictCheck } from '../entities/skill-event-store.js'
import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import { hasBacklog } from '../events/delivery-log.js'
import { type DeliveryDependencies, WebhookDeliveryLoop } from '../events/webhook-delivery.js'
import {
  API_REFERENCE_PATH,
  ApiReference,
  OPENAPI_JSON_PATH,
  redirect,
  servedDocument,
} from '../openapi/api-reference.js'
import { openApiDocument } from '../openapi/openapi-document.js'
import { deriveProfiles } from '../profiles/derive.js'
import { LIMITS } from '../schemas/limits.js'
import { ServerOrigin } from '../schemas/server.js'
import { REGIONS } from '../schemas/tenant-settings.js'
import type { WebhookDeliverySettings } from '../schemas/webhooks.js'
import { AnswerCache, DEFAULT_RESPONSE_CACHE_BYTES } from './answer-cache.js'
import { type AppEnv, baseUrlAt, idHeader } from './app-env.js'
import { asSkillhouseError, errorResponse } from './http-io.js'
import { KeptAnswerLane } from './kept-answer-lane.js'
import type { KnownEmployees } from './known-employees.js'
import { authentication, requireScope } from './middleware/authentication.js'
import { cachedAnswers } from './middleware/cached-answers.js'
import { MethodGuard, type RoutePath } from './middleware/method-guard.js'
import { requestLogging } from './middleware/request-logging.js'
import { ProfileWorker } from './profile-worker.js'
import { type Logger, stderrLogger } from './request-log.js'
import { type RouteServices, routeHandler } from './route-handler.js'
import { TenantPool } from './tenant-pool.js'
import { serveTokenEndpoint } from './token-endpoint.js'

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
  /** GET answers kept from before, given before the app runs (none when the answer cache is off). */
  keptAnswers: KeptAnswerLane | undefined
  /** Starts answering 503 on /healthz: the server is draining. */
  drain(): void
  /**
   * Stops the background worker (its running derivation finishes) and the webhook delivery (the
   * requests it has in flight are answered or time out, and are recorded), then checkpoints and
   * closes every database.
   */
  close(): Promise<void>
}

/** Paths outside every base URL; `/oauth/token` only while the server issues its own tokens. */
const topLevel = (issuesTokens: boolean): RoutePath[] => [
  { method: 'GET', path: '/healthz' },
  ...(issuesTokens ? [{ method: 'POST' as const, path: '/oauth/token' }] : []),
]

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
  const { signingKey, verifier } = await tokenKeys(options)
  const strictChecks = new Map<string, Promise<StrictCheck>>()
  let worker: ProfileWorker | undefined
  // Per tenant: the origin its latest request reached the server at (see `origin`).
  const reachedAt = new Map<string, string>()
  const pool = new TenantPool(
    options.dataDir,
    (tenant) => worker?.schedule(tenant),
    (entry) => {
      const origin = fixedOrigin ?? reachedAt.get(entry.settings.name)
      return origin ? baseUrlAt(origin, entry) : entry.base_url
    },
  )
  const deliveries = webhookDelivery(options, pool, log)
  worker = profileWorker(options, pool, log, (tenant) => {
    // Job and course profiles may have changed: the strict check is prepared again.
    strictChecks.delete(tenant)
    // The derivation's events are committed: off they go to the webhooks.
    deliveries.nudge(tenant)
  })
  const routes = apiRoutes()
  deliveries.start()
  let draining = false
  const app = new Hono<AppEnv>()
  app.use('*', requestLogging(log))
  app.onError(errorHandler(log))
  app.get('/healthz', (c) =>
    draining
      ? errorResponse(errors.unavailable('the server is shutting down'), idHeader(c))
      : c.json({ status: 'ok', tenants_open: pool.openTenants().length }),
  )
  const bodyLimit = options.bodyLimit ?? LIMITS.bodyBytes
  serveTokenEndpoint(app, signingKey, pool, bodyLimit)
  serveApiReference(app)
  const TOP_LEVEL = topLevel(signingKey !== undefined)
  const access = {
    verifier,
    resolve: (tenant: string, region: string, reveal: boolean) => pool.resolve(tenant, region, reveal),
    fixedOrigin,
    reached: (tenant: string, origin: string) => reachedAt.set(tenant, origin),
  }
  app.use(
    '/:tenant/:region/*',
    authentication({ ...access, topLevelPaths: TOP_LEVEL.map((route) => route.path) }),
  )
  const guard = new MethodGuard(routes, TOP_LEVEL)
  const cacheBytes = options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES
  const answers = cacheBytes > 0 ? new AnswerCache(cacheBytes) : undefined
  const version = (tenant: string) => pool.version(tenant)
  serveRoutes(app, routes, guard, answers, {
    pool,
    bodyLimit,
    strictChecks,
    knownEmployees: new Map<string, KnownEmployees>(),
    schedule: (tenant) => worker?.schedule(tenant),
    nudge: (tenant) => deliveries.nudge(tenant),
  })
  app.notFound(guard.unmatched())
  return {
    app,
    keptAnswers: answers && new KeptAnswerLane({ ...access, answers, version, log }),
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

/**
 * Each route below the base URL, behind its middleware: for a route with parameters, a path
 * without them is not its (405); the token's scope (403); a GET answer kept from before.
 */
function serveRoutes(
  app: Hono<AppEnv>,
  routes: readonly ApiRoute[],
  guard: MethodGuard,
  answers: AnswerCache | undefined,
  services: RouteServices,
): void {
  const version = (tenant: string) => services.pool.version(tenant)
  for (const route of routes) {
    const handlers: MiddlewareHandler<AppEnv>[] = [
      ...(route.path.includes(':') ? [guard.literalPathFirst()] : []),
      requireScope(route),
      ...(route.method === 'GET' && answers && !route.volatile
        ? [cachedAnswers(route, answers, version)]
        : []),
    ]
    app.on([route.method], [`/:tenant/:region${route.path}`], ...handlers, routeHandler(route, services))
  }
}

/**
 * The API reference at the root, before the base URLs' token check: `/openapi.json`, the page at
 * `/docs` and its files; `/` and a base URL without a path lead to the page.
 */
function serveApiReference(app: Hono<AppEnv>): void {
  const reference = new ApiReference(
    () => servedDocument(openApiDocument()),
    'Skills Service API (skillhouse)',
  )
  const answer: Handler<AppEnv> = (c) => {
    const found = reference.answer(c.req.path)
    return found ? c.body(found.body, found.status, found.headers) : c.notFound()
  }
  for (const path of ['/', OPENAPI_JSON_PATH, API_REFERENCE_PATH, `${API_REFERENCE_PATH}/:asset`])
    app.get(path, answer)
  app.get('/:tenant/:region', (c, next) => {
    if (!(REGIONS as readonly string[]).includes(c.req.param('region'))) return next()
    const { body, status, headers } = redirect()
    return c.body(body, status, headers)
  })
}

/** The server's own signing key and its verifier, or the verifier of an external key set (`jwks`). */
async function tokenKeys(
  options: AppOptions,
): Promise<{ signingKey: SigningKey | undefined; verifier: TokenVerifier }> {
  if (options.jwks)
    return { signingKey: undefined, verifier: rememberVerified(jwksTokenVerifier(options.jwks)) }
  const signingKey = options.signingKey ?? (await loadOrCreateSigningKey(options.dataDir))
  return { signingKey, verifier: rememberVerified(localTokenVerifier(signingKey)) }
}

/** Every error as the spec's body; one that is not a SkillhouseError and ends in 5xx is logged. */
function errorHandler(log: Logger): ErrorHandler<AppEnv> {
  return (error, c) => {
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
  }
}

/** The background delivery of the outbox to webhook subscriptions. */
function webhookDelivery(options: AppOptions, pool: TenantPool, log: Logger): WebhookDeliveryLoop {
  return new WebhookDeliveryLoop({
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
}

/** The background derivation of changed tenants; `derived` is told each tenant it derived. */
function profileWorker(
  options: AppOptions,
  pool: TenantPool,
  log: Logger,
  derived: (tenant: string) => void,
): ProfileWorker {
  return new ProfileWorker({
    derive: (tenant) =>
      pool.useForDerivation(tenant, async (open) => {
        const result = await deriveProfiles({ tenant: open })
        derived(tenant)
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
}

/** `serve --origin` checked: an http(s) origin, or a 400 naming it. */
function originOf(given: string): string {
  const origin = ServerOrigin.safeParse(given)
  if (origin.success) return origin.data
  throw errors.badRequest(
    `origin: ${origin.error.issues[0]?.message ?? 'is not an origin'}, e.g. https://skills.example.com; got '${given}'`,
  )
}
