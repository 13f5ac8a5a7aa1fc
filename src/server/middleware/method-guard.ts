import type { MiddlewareHandler, NotFoundHandler } from 'hono'
import type { Method } from '../../api/api-route.js'
import { errors, type SkillhouseError } from '../../errors/skillhouse-error.js'
import { type AppEnv, idHeader } from '../app-env.js'
import { errorResponse } from '../http-io.js'

/** A route as the guard sees it: a method on a hono path (below the base URL, or at the root). */
export interface RoutePath {
  method: Method
  path: string
}

const METHOD_ORDER: Method[] = ['GET', 'POST', 'PATCH', 'DELETE']

/** The path below `/{tenant}/{region}`, without one trailing slash (as `pathPattern` allows it). */
const BELOW_BASE_URL = /^\/[^/]+\/[^/]+(\/.*?)\/?$/

/** The methods of an Allow header: hono answers HEAD wherever GET is answered (RFC 9110 9.3.2). */
const withHead = (methods: readonly Method[]): string[] =>
  methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))

/** A hono path as a regular expression over request paths (`:name` is one segment). */
function pathPattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${source}/?$`)
}

/**
 * 405 and 404 for requests no route takes. A path of a route without parameters names that
 * resource, never an item of a collection beside it: DELETE /employees/custom_properties is a
 * method the definitions do not take (405), not the deletion of an employee called
 * `custom_properties`. `routes` are below the base URL, `topLevel` at the root.
 */
export class MethodGuard {
  /** The methods of each path without parameters: one Map probe per request, not a pattern per route. */
  private readonly literal = new Map<string, Method[]>()
  private readonly patterns: { method: Method; pattern: RegExp; route?: RoutePath }[]

  constructor(routes: readonly RoutePath[], topLevel: readonly RoutePath[]) {
    const methods = new Map<string, Method[]>()
    for (const route of routes) {
      if (route.path.includes(':')) continue
      methods.set(route.path, [...(methods.get(route.path) ?? []), route.method])
    }
    for (const [path, listed] of methods) {
      this.literal.set(
        path,
        METHOD_ORDER.filter((method) => listed.includes(method)),
      )
    }
    this.patterns = [
      ...topLevel.map((route) => ({ method: route.method, pattern: pathPattern(route.path) })),
      ...routes.map((route) => ({
        method: route.method,
        pattern: pathPattern(`/:tenant/:region${route.path}`),
        route,
      })),
    ]
  }

  /** The methods of the path without parameters that a request path (with its base URL) names. */
  literalMethods(path: string): Method[] {
    const below = BELOW_BASE_URL.exec(path)?.[1]
    return (below !== undefined && this.literal.get(below)) || []
  }

  /**
   * For the routes with parameters: a request whose path is one of the paths without them is
   * not theirs, and is answered 405 with the methods that path allows.
   */
  literalPathFirst(): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
      const allowed = this.literalMethods(c.req.path)
      if (allowed.length > 0) throw errors.methodNotAllowed(c.req.method, c.req.path, withHead(allowed))
      return next()
    }
  }

  /**
   * The route below a base URL that takes a request, as the server routes it: a path without
   * parameters before the patterns, no trailing slash. Undefined when none does (see `refusal`).
   */
  routeOf<R extends RoutePath>(method: string, path: string): R | undefined {
    if (path.length > 1 && path.endsWith('/')) return undefined
    const literal = this.literalMethods(path).length > 0
    const found = this.patterns.find(
      (candidate) =>
        candidate.route !== undefined &&
        candidate.method === method &&
        candidate.route.path.includes(':') !== literal &&
        candidate.pattern.test(path),
    )
    return found?.route as R | undefined
  }

  /** What no route took, answered as `refusal` says. */
  unmatched(): NotFoundHandler<AppEnv> {
    return (c) => errorResponse(this.refusal(c.req.method, c.req.path), idHeader(c))
  }

  /**
   * The error of a request no route took: 405 with Allow when the path is a route's with another
   * method, 404 for an endpoint's path with a trailing slash, else 404.
   */
  refusal(method: string, path: string): SkillhouseError {
    const named = this.literalMethods(path)
    const allowed =
      named.length > 0
        ? named
        : METHOD_ORDER.filter((candidate) =>
            this.patterns.some((route) => route.method === candidate && route.pattern.test(path)),
          )
    // The method is allowed by a pattern only when the path ends in a slash the routes do not
    // take (the patterns allow one): an endpoint that is not there, not a refused method.
    if (allowed.includes(method as Method)) return errors.trailingSlash(path)
    if (allowed.length > 0) return errors.methodNotAllowed(method, path, withHead(allowed))
    return errors.noEndpoint(path)
  }
}
