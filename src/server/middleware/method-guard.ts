import type { MiddlewareHandler, NotFoundHandler } from 'hono'
import { errors } from '../../errors/skillhouse-error.js'
import type { Method } from '../api-route.js'
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
  private readonly patterns: { method: Method; pattern: RegExp }[]

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
   * What no route took: 405 with Allow when the path is a route's with another method, 404 for
   * an endpoint's path with a trailing slash, else 404.
   */
  unmatched(): NotFoundHandler<AppEnv> {
    return (c) => {
      const path = c.req.path
      const named = this.literalMethods(path)
      const allowed =
        named.length > 0
          ? named
          : METHOD_ORDER.filter((method) =>
              this.patterns.some((candidate) => candidate.method === method && candidate.pattern.test(path)),
            )
      // The method is allowed by a pattern only when the path ends in a slash the routes do not
      // take (the patterns allow one): an endpoint that is not there, not a refused method.
      if (allowed.includes(c.req.method as Method)) {
        return errorResponse(errors.trailingSlash(path), idHeader(c))
      }
      if (allowed.length > 0)
        return errorResponse(errors.methodNotAllowed(c.req.method, path, withHead(allowed)), idHeader(c))
      return errorResponse(errors.noEndpoint(path), idHeader(c))
    }
  }
}
