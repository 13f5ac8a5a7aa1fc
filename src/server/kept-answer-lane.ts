import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AnswerCache } from './answer-cache.js'
import { type AuthenticationOptions, authenticate, originOf } from './middleware/authentication.js'
import { requestIdOf, requestLine } from './middleware/request-logging.js'
import type { Logger } from './request-log.js'

/** A request target the router would take as it is: no escapes, dot segments or backslashes. */
const PLAIN_TARGET = /^\/([\w-]+)\/([\w-]+)\/[\w\-/]*(\?[\w\-.=&,:]*)?$/
/** A Host header the request's URL is built from unchanged. */
const PLAIN_HOST = /^[\w.-]+(:\d{1,5})?$/

export interface KeptAnswerLaneOptions
  extends Pick<AuthenticationOptions, 'verifier' | 'resolve' | 'reached'> {
  answers: AnswerCache
  version(tenant: string): string
  fixedOrigin: string | undefined
  log: Logger
}

/**
 * GET answers kept in the answer cache, given again straight from the node:http request, before
 * a web Request, the router and the middleware are built: the same checks in one pass (token,
 * tenant and region, the token's tenant, its client, the route's scope), the kept bytes with
 * their headers and a new request id, one log line. A request the lane cannot answer so (not
 * kept, any check failing, a URL the router would rewrite) is left to the app, which answers it
 * as it answers every request: the lane only ever gives an answer the app would give.
 */
export class KeptAnswerLane {
  constructor(private readonly options: KeptAnswerLaneOptions) {}

  /** Answers `request` when it is a kept GET; false (nothing written) for the app to answer. */
  async answer(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const started = performance.now()
    const target = request.url ?? ''
    const host = request.headers.host
    const parts = PLAIN_TARGET.exec(target)
    if (request.method !== 'GET' || !parts || !host || !PLAIN_HOST.test(host)) return false
    const { answers, version } = this.options
    const tenant = parts[1] as string
    const key = `${tenant} http://${host}${target}`
    if (!answers.get(key, version(tenant))) return false
    const origin = this.options.fixedOrigin ?? originOf(`http://${host}${target}`)
    let claims: Awaited<ReturnType<typeof authenticate>>['claims']
    try {
      ;({ claims } = await authenticate(this.options, {
        tenant,
        region: parts[2] as string,
        authorization: request.headers.authorization,
        origin,
      }))
    } catch {
      return false
    }
    // Asked again after the token's check: a write may have finished meanwhile.
    const known = answers.get(key, version(tenant))
    if (!known || !claims.scopes.includes(known.scope) || response.headersSent) return false
    if (!this.options.fixedOrigin) this.options.reached?.(tenant, origin)
    const given = request.headers['x-request-id']
    const requestId = requestIdOf(typeof given === 'string' ? given : undefined)
    response.writeHead(known.status, {
      ...known.headers,
      'X-Request-Id': requestId,
      'Content-Length': known.body.byteLength,
    })
    response.end(known.body)
    const path = target.split('?', 1)[0] as string
    this.options.log(requestLine(requestId, 'GET', path, known.status, started, tenant, claims.sub))
    return true
  }
}
