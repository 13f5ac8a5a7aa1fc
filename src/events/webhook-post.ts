import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { CloudEvent, HTTP } from 'cloudevents'

/**
 * One webhook request: a CloudEvent POSTed in structured mode, and what the consumer's answer
 * means for delivery. Requests go through node:http(s) with keep-alive connections (several times
 * the rate of `fetch` for the small requests a fast consumer takes one after the other).
 */

/** The answer of a consumer to one request. */
export interface PostOutcome {
  ok: boolean
  /** The HTTP status; null when no answer came (timeout, connection error). */
  status: number | null
  /** Why the attempt failed; null when it did not. */
  error: string | null
  /**
   * Whether the failure concerns the consumer rather than the event: anything but a refusal of
   * the payload (400, 409, 413, 415, 422), e.g. no answer, a redirect, 404, 429 or a 5XX. The
   * subscription's other events then wait for the same retry instead of hammering an endpoint
   * that is down or gone.
   */
  consumerDown: boolean
}

const ANSWER_EXCERPT = 200

/** Statuses that refuse one event's payload, not every event: the others go on meanwhile. */
const PAYLOAD_REFUSALS = new Set([400, 409, 413, 415, 422])

/**
 * Connections kept open between requests; one idle for 4 s is closed first, before a consumer's
 * server would (Node's closes them after 5 s), which would make the next request on it fail.
 */
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: 4000 }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: 4000 }),
}

/**
 * POSTs one CloudEvent in structured mode (`application/cloudevents+json`, serialised by the
 * cloudevents SDK) and reports the consumer's answer within `timeoutMs`. Redirects are not
 * followed: a consumer answers where it subscribed. Never throws for a consumer's failure.
 */
export async function postCloudEvent(
  url: string,
  event: Record<string, unknown>,
  options: { timeoutMs: number },
): Promise<PostOutcome> {
  const message = HTTP.structured(new CloudEvent(event, false))
  const headers = { ...(message.headers as Record<string, string>), 'user-agent': 'skillhouse-webhooks' }
  const body = message.body as string
  let answer = await send(url, headers, body, options.timeoutMs)
  // A kept connection the consumer closed as the request went out: sent again once on a new one,
  // as Node's documentation advises (the consumer cannot have read it).
  if (answer.failure?.code === 'ECONNRESET' && answer.reused) {
    answer = await send(url, headers, body, options.timeoutMs)
  }
  if (answer.failure) {
    const detail = answer.failure.timedOut
      ? `no answer within ${options.timeoutMs} ms`
      : `no answer: ${answer.failure.code ?? answer.failure.message}`
    return { ok: false, status: null, error: detail, consumerDown: true }
  }
  const status = answer.status as number
  if (status >= 200 && status < 300) return { ok: true, status, error: null, consumerDown: false }
  return {
    ok: false,
    status,
    error: `answered ${status}${answer.excerpt ? `: ${answer.excerpt}` : ''}`,
    consumerDown: !PAYLOAD_REFUSALS.has(status),
  }
}

interface Answer {
  status?: number
  excerpt?: string
  reused: boolean
  failure?: { code: string | undefined; message: string; timedOut: boolean }
}

/** One request: the status and the start of an error answer, or why none came. */
function send(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Answer> {
  return new Promise<Answer>((resolve) => {
    const target = new URL(url)
    const secure = target.protocol === 'https:'
    let timedOut = false
    let reused = false
    const outgoing = (secure ? httpsRequest : httpRequest)(
      target,
      {
        method: 'POST',
        agent: agents[secure ? 'https:' : 'http:'],
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const status = response.statusCode ?? 0
        if (status >= 200 && status < 300) {
          response.resume()
          response.once('end', () => finish({ status, reused }))
          // Cut off before its end (a timeout, a reset): no acknowledgement.
          response.once('error', (error: Error & { code?: string }) =>
            finish({ reused, failure: { code: error.code, message: error.message, timedOut } }),
          )
        } else {
          void excerptOf(response).then((excerpt) => finish({ status, excerpt, reused }))
        }
      },
    )
    const timer = setTimeout(() => {
      timedOut = true
      outgoing.destroy(new Error('timed out'))
    }, timeoutMs)
    const finish = (answer: Answer) => {
      clearTimeout(timer)
      resolve(answer)
    }
    outgoing.once('socket', () => {
      reused = outgoing.reusedSocket
    })
    outgoing.once('error', (error: Error & { code?: string }) =>
      finish({ reused, failure: { code: error.code, message: error.message, timedOut } }),
    )
    outgoing.end(body)
  })
}

/** The start of an error answer, for the delivery log; read in bounded memory. */
function excerptOf(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = () => {
      response.destroy()
      const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim()
      resolve(text.length > ANSWER_EXCERPT ? `${text.slice(0, ANSWER_EXCERPT)}…` : text)
    }
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.byteLength
      if (size >= ANSWER_EXCERPT * 4) done()
    })
    // The excerpt is a courtesy: an answer cut short still tells its status.
    response.once('end', done)
    response.once('error', done)
  })
}
