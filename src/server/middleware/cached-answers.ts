import type { MiddlewareHandler } from 'hono'
import { type ApiRoute, routeScope } from '../../api/api-route.js'
import type { AnswerCache } from '../answer-cache.js'
import { type AppEnv, idHeader } from '../app-env.js'

/**
 * A GET answered before, while nothing that may write has run on the tenant since, is answered
 * again as it was (`version` of the tenant says so), before anything else of the request is
 * built; a 200 with JSON that the route's handler answers (`routeResult`) is kept. The key is
 * the URL as sent: the same text asks the same question. For GETs whose answers change only with
 * the tenant's data (not `volatile` ones); runs after authentication (it needs `tenant`).
 */
export function cachedAnswers(
  route: Pick<ApiRoute, 'method' | 'scope' | 'headers'>,
  answers: AnswerCache,
  version: (tenant: string) => string,
): MiddlewareHandler<AppEnv> {
  const scope = routeScope(route)
  return async (c, next) => {
    const tenant = c.get('tenant')
    const key = `${tenant} ${c.req.url}`
    const at = version(tenant)
    const known = answers.get(key, at)
    if (known)
      return new Response(known.body, { status: known.status, headers: { ...known.headers, ...idHeader(c) } })
    await next()
    const result = c.get('routeResult')
    if (result?.status === 200 && result.json !== undefined) {
      answers.set(key, at, {
        status: 200,
        body: Buffer.from(result.json),
        headers: { 'content-type': 'application/json', ...route.headers, ...result.headers },
        scope,
      })
    }
  }
}
