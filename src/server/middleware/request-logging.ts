import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.js'
import type { LogEntry, Logger } from '../request-log.js'

/** A request id a client may choose: word characters, dots, colons and dashes, up to 128. */
const REQUEST_ID = /^[\w.:-]{1,128}$/

/**
 * Gives every request an id (the client's `X-Request-Id` when it is a valid one, else a new
 * UUID), sends it back in the answer's `X-Request-Id`, and logs one line per request with its
 * status and duration, its tenant and client once authentication knows them.
 */
export function requestLogging(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now()
    const requestId = requestIdOf(c.req.header('x-request-id'))
    c.set('requestId', requestId)
    // Before the answer exists: hono adds it to the answers it makes (c.json, c.body), and the
    // answers made here carry it themselves (`idHeader`). Set on a finished answer, a header makes
    // hono copy it into a new Response whose body is then streamed: several times the cost of a
    // small GET.
    c.header('X-Request-Id', requestId)
    await next()
    log(
      requestLine(
        requestId,
        c.req.method,
        c.req.path,
        c.res.status,
        started,
        c.get('tenant'),
        c.get('claims')?.sub,
      ),
    )
  }
}

/** The request's id: the client's `X-Request-Id` when it is a valid one, else a new UUID. */
export function requestIdOf(given: string | undefined): string {
  return given && REQUEST_ID.test(given) ? given : randomUUID()
}

/** The log line of a request answered with `status`, begun at `started` (`performance.now()`). */
export function requestLine(
  requestId: string,
  method: string,
  path: string,
  status: number,
  started: number,
  tenant: string | undefined,
  client: string | undefined,
): LogEntry {
  return {
    msg: 'request',
    request_id: requestId,
    method,
    path,
    status,
    ms: Math.round((performance.now() - started) * 10) / 10,
    ...(tenant ? { tenant } : {}),
    ...(client ? { client } : {}),
  }
}
