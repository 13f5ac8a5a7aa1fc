import { EventEmitter } from 'node:events'
import { CloudEvent, HTTP } from 'cloudevents'
import { Agent, request } from 'undici'

/**
 * One webhook request: a CloudEvent POSTed in structured mode, and what the consumer's answer
 * means for delivery. Requests go through undici with keep-alive connections: for the small
 * requests a fast consumer takes one after the other it spends less than half the processor time
 * of node:http per request, and several times less than `fetch`.
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

/** The outcome of an attempt that got no answer (`error` says why): the consumer counts as down. */
export function noAnswer(error: string): PostOutcome {
  return { ok: false, status: null, error, consumerDown: true }
}

/** Statuses that refuse one event's payload, not every event: the others go on meanwhile. */
const PAYLOAD_REFUSALS = new Set([400, 409, 413, 415, 422])

/**
 * Connections kept open between requests. One idle for 4 s is closed first, before a consumer's
 * server would (Node's closes them after 5 s and says so in its Keep-Alive header, which undici
 * honours too), since the next request on a connection closed under it would fail.
 */
const dispatcher = new Agent({ keepAliveTimeout: 4000, keepAliveMaxTimeout: 4000 })

/** A CloudEvent ready to send: its structured-mode headers and body, made once for every attempt. */
export interface PreparedEvent {
  headers: Record<string, string>
  body: string
}

/** Serialises a CloudEvent in structured mode (`application/cloudevents+json`) with the cloudevents SDK. */
export function prepareCloudEvent(event: Record<string, unknown>): PreparedEvent {
  const message = HTTP.structured(new CloudEvent(event, false))
  return {
    headers: { ...(message.headers as Record<string, string>), 'user-agent': 'skillhouse-webhooks' },
    body: message.body as string,
  }
}

/**
 * POSTs one CloudEvent in structured mode (`application/cloudevents+json`, serialised by the
 * cloudevents SDK) and reports the consumer's answer within `timeoutMs`. Redirects are not
 * followed: a consumer answers where it subscribed. Never throws for a consumer's failure.
 */
export function postCloudEvent(
  url: string,
  event: Record<string, unknown>,
  options: { timeoutMs: number },
): Promise<PostOutcome> {
  return postPrepared(url, prepareCloudEvent(event), options)
}

/** `postCloudEvent` for an event serialised before (`prepareCloudEvent`). */
export async function postPrepared(
  url: string,
  event: PreparedEvent,
  options: { timeoutMs: number },
): Promise<PostOutcome> {
  let answer = await send(url, event, options.timeoutMs)
  // A kept connection the consumer closed as the request went out: sent again once, on a new
  // connection (a duplicate at worst, which at-least-once delivery allows).
  if (answer.failure && RESET.has(answer.failure.code ?? ''))
    answer = await send(url, event, options.timeoutMs)
  if (answer.failure) {
    const detail = answer.failure.timedOut
      ? `no answer within ${options.timeoutMs} ms`
      : `no answer: ${answer.failure.code?.startsWith('UND_ERR') ? answer.failure.message : (answer.failure.code ?? answer.failure.message)}`
    return noAnswer(detail)
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

/**
 * POSTs events to one consumer one after the other, in order, and stops after the first failure
 * that concerns the consumer (the events behind it wait for its retry) or when `stopped` says so
 * (after the request in flight). Returns the outcomes of the events sent, in their order.
 */
export async function postInOrder(
  url: string,
  events: readonly PreparedEvent[],
  options: { timeoutMs: number; stopped?: () => boolean },
): Promise<PostOutcome[]> {
  const outcomes: PostOutcome[] = []
  for (const event of events) {
    if (outcomes.length > 0 && options.stopped?.()) break
    const outcome = await postPrepared(url, event, options)
    outcomes.push(outcome)
    if (!outcome.ok && outcome.consumerDown) break
  }
  return outcomes
}

/** Errors of a connection closed under a request: undici's "other side closed", a reset, a broken pipe. */
const RESET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'])

interface Answer {
  status?: number
  excerpt?: string
  failure?: { code: string | undefined; message: string; timedOut: boolean }
}

/** One request: the status and the start of an error answer, or why none came within `timeoutMs`. */
async function send(url: string, event: PreparedEvent, timeoutMs: number): Promise<Answer> {
  // An emitter rather than an AbortController: undici takes either, and the controller costs
  // more than the rest of a small request.
  const abort = new EventEmitter()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    abort.emit('abort')
  }, timeoutMs)
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher,
      headers: event.headers,
      body: event.body,
      signal: abort,
    })
    const status = response.statusCode
    if (status >= 200 && status < 300) {
      // Read to its end: an answer cut off before it (a timeout, a reset) acknowledges nothing.
      await drain(response.body)
      return { status }
    }
    return { status, excerpt: await excerptOf(response.body) }
  } catch (error) {
    const { code, message } = error as Error & { code?: string }
    return { failure: { code, message, timedOut } }
  } finally {
    clearTimeout(timer)
  }
}

/** The most of a 2XX answer's body read; the rest of a longer one is not waited for (it still acknowledges). */
const MAX_DRAINED = 1 << 20

type AnswerBody = AsyncIterable<Buffer> & { destroy: () => void }

/** Reads a 2XX answer to its end (or MAX_DRAINED); throws when it is cut off before it. */
async function drain(body: AnswerBody): Promise<void> {
  let size = 0
  for await (const chunk of body) {
    size += chunk.byteLength
    if (size > MAX_DRAINED) {
      body.destroy()
      return
    }
  }
}

/** The start of an error answer, for the delivery log; read in bounded memory. */
async function excerptOf(body: AnswerBody): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of body) {
      chunks.push(chunk)
      size += chunk.byteLength
      if (size >= ANSWER_EXCERPT * 4) break
    }
  } catch {
    // The excerpt is a courtesy: an answer cut short still tells its status.
  } finally {
    body.destroy()
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim()
  return text.length > ANSWER_EXCERPT ? `${text.slice(0, ANSWER_EXCERPT)}…` : text
}
