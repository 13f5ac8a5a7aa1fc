import { CloudEvent, HTTP } from 'cloudevents'

/**
 * One webhook request: a CloudEvent POSTed in structured mode, and what the consumer's answer
 * means for delivery.
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
 * POSTs one CloudEvent in structured mode (`application/cloudevents+json`, serialised by the
 * cloudevents SDK) and reports the consumer's answer. Redirects are not followed: a consumer
 * answers where it subscribed. Never throws for a consumer's failure.
 */
export async function postCloudEvent(
  url: string,
  event: Record<string, unknown>,
  options: { fetch?: typeof fetch; timeoutMs: number },
): Promise<PostOutcome> {
  const message = HTTP.structured(new CloudEvent(event, false))
  const send = options.fetch ?? fetch
  const signal = AbortSignal.timeout(options.timeoutMs)
  try {
    const response = await send(url, {
      method: 'POST',
      headers: { ...(message.headers as Record<string, string>), 'user-agent': 'skillhouse-webhooks' },
      body: message.body as string,
      redirect: 'manual',
      signal,
    })
    const status = response.status
    if (status >= 200 && status < 300) {
      await response.body?.cancel().catch(() => undefined)
      return { ok: true, status, error: null, consumerDown: false }
    }
    const excerpt = await answerExcerpt(response)
    return {
      ok: false,
      status,
      error: `answered ${status}${excerpt ? `: ${excerpt}` : ''}`,
      consumerDown: !PAYLOAD_REFUSALS.has(status),
    }
  } catch (error) {
    return { ok: false, status: null, error: failureOf(error, options.timeoutMs), consumerDown: true }
  }
}

/** The start of an error answer, for the delivery log; read in bounded memory. */
async function answerExcerpt(response: Response): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < ANSWER_EXCERPT * 4) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } catch {
    // The excerpt is a courtesy: an answer cut short still tells its status.
  } finally {
    await reader.cancel().catch(() => undefined)
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim()
  return text.length > ANSWER_EXCERPT ? `${text.slice(0, ANSWER_EXCERPT)}…` : text
}

function failureOf(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`
  }
  const cause =
    error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error))
  return `no answer: ${detail}`
}
