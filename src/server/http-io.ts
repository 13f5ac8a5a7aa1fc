import { errors, isSkillhouseError, type SkillhouseError } from '../errors/skillhouse-error.js'
import { classifyIssues, inputError } from '../schemas/input-issues.js'
import { ZodError } from '../vendor/zod.js'

/**
 * Reading request bodies and writing responses: the one place that turns a thrown error into the
 * spec's error body (section 7), and that enforces 415 and 413 before any body is parsed.
 */

/** Whether the request carries a body at all (a length above 0, or a chunked one). */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length')
  if (length !== null) return Number(length) > 0
  return request.headers.has('transfer-encoding')
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(request: Request): string | undefined {
  const header = request.headers.get('content-type')
  if (!header) return undefined
  return header.split(';')[0]?.trim().toLowerCase() || undefined
}

/**
 * The body as text, at most `limit` bytes: 413 as soon as the Content-Length or the bytes read
 * pass it, so that an oversized body is neither buffered nor parsed.
 */
export async function readText(request: Request, limit: number): Promise<string> {
  const length = request.headers.get('content-length')
  if (length !== null && Number(length) > limit) throw errors.payloadTooLarge(limit)
  // With a Content-Length within the limit the body is read whole (@hono/node-server reads it
  // straight from the socket, without a web stream: a good part of a small request's cost); a
  // chunked body is counted as it streams in.
  if (length !== null) return await request.text()
  const stream = request.body
  if (!stream) return ''
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      void discardRest(reader, size)
      throw errors.payloadTooLarge(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** How much of an oversized body is read and dropped before its connection is closed instead. */
export const DISCARDED_BODY_BYTES = 64 * 1024 * 1024

/**
 * Reads the rest of an oversized body and drops it, so that the 413 reaches the client: a
 * connection closed while the client still sends is reset, and a reset loses the answer it had
 * not read yet. Past `DISCARDED_BODY_BYTES` the body is abandoned (its connection closes).
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, read: number): Promise<void> {
  let size = read
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      size += value.byteLength
      if (size > DISCARDED_BODY_BYTES) break
    }
  } catch {
    return
  }
  await reader.cancel().catch(() => undefined)
}

/**
 * The JSON body of a request: 415 for a content type other than application/json, 413 over the
 * limit, 400 for text that is not JSON, and 400 for a missing body unless `optional` (then
 * undefined).
 */
export async function readJson(
  request: Request,
  options: { limit: number; optional?: boolean },
): Promise<unknown> {
  if (!hasBody(request)) {
    if (options.optional) return undefined
    throw errors.badRequest(
      'the request has no body; send a JSON document with Content-Type: application/json',
    )
  }
  const type = mediaType(request)
  if (type !== 'application/json')
    throw errors.unsupportedMediaType(request.headers.get('content-type') ?? undefined)
  const text = await readText(request, options.limit)
  if (text.trim() === '') {
    if (options.optional) return undefined
    throw errors.badRequest('the request body is empty; send a JSON document')
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw errors.badRequest(`the request body is not valid JSON: ${(error as Error).message}`)
  }
}

/**
 * Any error as a SkillhouseError: a SkillhouseError as it is, a zod error as 400/422 by its
 * issues, anything else a 500 whose description points at the log line of the request.
 */
export function asSkillhouseError(error: unknown, requestId: string): SkillhouseError {
  if (isSkillhouseError(error)) return error
  if (error instanceof ZodError) return inputError(classifyIssues(error.issues, undefined), 'the request')
  return errors.internal(
    `the server failed on this request; its log has the details under request id ${requestId}`,
  )
}

/** The spec's error response: the status, its headers, the body `[{title, description}]`. */
export function errorResponse(error: SkillhouseError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { 'content-type': 'application/json', ...error.headers, ...headers },
  })
}

/** A JSON response from text already serialised (so that it is the bytes the CLI writes). */
export function jsonResponse(json: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(json, { status, headers: { 'content-type': 'application/json', ...headers } })
}

/**
 * The spec's error response as the bytes of an HTTP/1.1 answer, for a connection whose request
 * could not be read (no request or response object exists): the connection closes after it.
 */
export function rawErrorAnswer(error: SkillhouseError): string {
  const body = JSON.stringify(error.toBody())
  const head = [
    `HTTP/1.1 ${error.title}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ]
  return `${head.join('\r\n')}\r\n\r\n${body}`
}
