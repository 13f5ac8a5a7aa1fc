import { type ApiRoute, answeredStatus } from '../api/api-route.js'
import { apiRoutes } from '../api/api-routes.js'
import { type QueryParameterCheck, queryParameterCheck } from '../api/query-parameters.js'
import { errors, isSkillhouseError, type SkillhouseError } from '../errors/skillhouse-error.js'
import { parseBody, parseQuery } from '../schemas/input-issues.js'
import { LIMITS } from '../schemas/limits.js'
import { readJson } from '../server/http-io.js'
import { MethodGuard } from '../server/middleware/method-guard.js'
import { z } from '../vendor/zod.js'

/**
 * The checks of a request that the mock makes itself, with the server's words and statuses:
 * what `serve` refuses before it reads any tenant data (the path and method, the query
 * parameters, the body's media type, size, JSON and schema), judged by the same route objects
 * and zod schemas the OpenAPI document is generated from. Prism then answers only requests
 * the server would take, with the document's examples.
 */
export class MockRequests {
  private readonly guard: MethodGuard
  /** Per route, the query parameters that repeat (`include`): checked as lists, as the handlers read them. */
  private readonly repeated = new Map<ApiRoute, Set<string>>()
  /** Per route, its check of unknown query parameters. */
  private readonly queryChecks = new Map<ApiRoute, QueryParameterCheck>()

  constructor(routes: readonly ApiRoute[] = apiRoutes()) {
    this.guard = new MethodGuard(routes, [])
  }

  /** The route of a request path below a base URL (`/{tenant}/{region}/…`), or the server's 404 or 405. */
  route(method: string, path: string): ApiRoute | SkillhouseError {
    return this.guard.routeOf<ApiRoute>(method, path) ?? this.guard.refusal(method, path)
  }

  /**
   * What the server answers a request of `route` before its handler reads the tenant: unknown
   * or invalid query parameters (422), a body of another media type (415), too large (413), not
   * JSON (400) or not of the body's schema (400/422); statuses as the endpoint's list has them.
   */
  async refusal(route: ApiRoute, url: URL, request: Request): Promise<SkillhouseError | undefined> {
    const error = await this.firstProblem(route, url, request).catch((thrown: unknown) => {
      if (isSkillhouseError(thrown)) return thrown
      throw thrown
    })
    if (!error) return undefined
    const status = answeredStatus(route, error.status)
    return status === error.status ? error : errors.asBadRequest(error)
  }

  private async firstProblem(
    route: ApiRoute,
    url: URL,
    request: Request,
  ): Promise<SkillhouseError | undefined> {
    const unknown = this.queryCheckOf(route)(new Set(url.searchParams.keys()))
    if (unknown) return unknown
    if (route.doc.query) parseQuery(route.doc.query, this.queryOf(route, url.searchParams))
    const body = route.doc.body
    if (!body) return undefined
    const json = await readJson(request, { limit: LIMITS.bodyBytes, optional: !body.required })
    if (json !== undefined || body.required) parseBody(body.schema, json, 'the request body')
    return undefined
  }

  private queryCheckOf(route: ApiRoute): QueryParameterCheck {
    let check = this.queryChecks.get(route)
    if (!check) {
      check = queryParameterCheck(route)
      this.queryChecks.set(route, check)
    }
    return check
  }

  /** The query as the route's schema reads it: a repeatable parameter as the list of its values. */
  private queryOf(route: ApiRoute, params: URLSearchParams): Record<string, unknown> {
    const repeated = this.repeatedOf(route)
    const query: Record<string, unknown> = {}
    for (const name of new Set(params.keys())) {
      query[name] = repeated.has(name) ? params.getAll(name) : params.get(name)
    }
    return query
  }

  private repeatedOf(route: ApiRoute): Set<string> {
    let names = this.repeated.get(route)
    if (!names) {
      const shape = route.doc.query?.shape ?? {}
      names = new Set(
        Object.entries(shape)
          .filter(([, schema]) => z.toJSONSchema(schema as z.ZodType, { io: 'input' }).type === 'array')
          .map(([name]) => name),
      )
      this.repeated.set(route, names)
    }
    return names
  }
}
