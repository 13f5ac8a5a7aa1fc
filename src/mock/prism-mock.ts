import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { errors, isSkillhouseError, type SkillhouseError } from '../errors/skillhouse-error.js'
import { ApiReference, redirect } from '../openapi/api-reference.js'
import { type OpenApiDocument, openApiDocument } from '../openapi/openapi-document.js'
import { LIMITS } from '../schemas/limits.js'
import { REGIONS, Region, TenantName } from '../schemas/tenant-settings.js'
import { z } from '../vendor/zod.js'
import { MockRequests } from './mock-requests.js'
import { type RunningPrism, startPrism } from './prism-process.js'

/**
 * `skillhouse mock`: Prism 4 serving the generated OpenAPI document, offline. Every GET answers
 * its example (the real answers of the demo tenant), a bad parameter gets Prism's 422 with the
 * operation's own example of one, `Prefer: example=NAME` picks another named example (the
 * `explained` answers of 4.10 and 4.11, the `hierarchy` of 4.12: see QUERY_EXAMPLES),
 * `Prefer: dynamic=true` (or `dynamic`) generates data from the schemas.
 *
 * Prism routes on the document's paths alone and ignores `servers`, so the document it is given
 * spells the base URL out: each path below a tenant's base URL becomes `/{tenant}/{region}/…`, with
 * the tenant and region as path parameters (any tenant name; a region of the list). A client then
 * talks to the mock exactly as to `serve`, with only the host and port changed.
 */

export interface MockOptions {
  port: number
  host: string
  /** Generate answers from the schemas instead of serving the examples. */
  dynamic?: boolean
  /** Prism's own log lines. */
  log?: (line: string) => void
}

/** The running mock. */
export type RunningMock = RunningPrism

const METHODS = ['get', 'post', 'patch', 'delete', 'put'] as const

/** A path parameter of the base URL, its schema from the zod schema the tenant registry checks with. */
function baseParameter(name: string, schema: z.ZodType, example: string) {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema) as Record<string, unknown>
  return {
    name,
    in: 'path',
    required: true,
    description: `The ${name} of the base URL`,
    schema: json,
    example,
  }
}

/**
 * The document Prism serves: the generated one with the paths below a tenant's base URL written
 * out as `/{tenant}/{region}/…`; /healthz and /oauth/token stay at the root.
 */
export function mockDocument(document: OpenApiDocument = openApiDocument()): OpenApiDocument {
  const base = [baseParameter('tenant', TenantName, 'demo'), baseParameter('region', Region, 'eu')]
  const paths: Record<string, unknown> = {}
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (item.servers) {
      const { servers: _own, ...root } = item
      paths[path] = root
      continue
    }
    const prefixed: Record<string, unknown> = { ...item }
    for (const method of METHODS) {
      const operation = item[method]
      if (operation)
        prefixed[method] = { ...operation, parameters: [...base, ...(operation.parameters ?? [])] }
    }
    paths[`/{tenant}/{region}${path}`] = prefixed
  }
  // The paths hold the whole URL path now: the server is the mock itself, wherever it listens.
  return {
    ...document,
    servers: [{ url: '/', description: 'skillhouse mock' }],
    paths: paths as NonNullable<OpenApiDocument['paths']>,
  }
}

/**
 * The query values that pick another named example of an operation's answer (Prism's
 * `Prefer: example=NAME`): the mock sends that Prefer for a request that carries the value and no
 * Prefer of its own. Every operation with the parameter has the example (a test checks it).
 */
export const QUERY_EXAMPLES = [
  { parameter: 'response_format', value: 'explained', example: 'explained' },
  { parameter: 'format', value: 'hierarchy', example: 'hierarchy' },
] as const

/**
 * Starts the mock: Prism on a loopback port of its own, behind a small HTTP front on `host` and
 * `port` that answers as the server does whatever it can judge without tenant data (see
 * `MockRequests`: the token's presence, the region, the path and method, the query and the body,
 * with the server's error bodies), serves the API reference (`/docs`, `/openapi.json`), and
 * turns the query values of QUERY_EXAMPLES into Prism's `Prefer: example=NAME`. Prism answers
 * the rest with the document's examples; an error Prism still finds is answered in the spec's
 * shape too.
 */
export async function startMock(options: MockOptions): Promise<RunningMock> {
  const document = mockDocument()
  const prism = await startPrism(
    document,
    (file) => ['mock', file, '-p', '0', '-h', '127.0.0.1', ...(options.dynamic ? ['-d'] : [])],
    options.log,
  )
  const upstream = new URL(prism.url)
  const front = new MockFront(
    upstream,
    new MockRequests(),
    new ApiReference(() => document, 'Skills Service API (skillhouse mock)'),
  )
  const server = createServer((request, response) => {
    front.answer(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        send(response, errors.internal(`the mock failed: ${(error as Error).message}`))
      else response.destroy()
    })
  })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port, options.host, () => resolve())
    })
  } catch (error) {
    await prism.stop()
    throw errors.unavailable(
      `the mock cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
    )
  }
  const { port } = server.address() as AddressInfo
  const closeFront = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  const exited = prism.exited.then(async (code) => {
    await closeFront()
    return code
  })
  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    document: prism.document,
    pid: prism.pid,
    exited,
    stop: async (signal) => {
      await closeFront()
      return prism.stop(signal)
    },
  }
}

/** Paths at the root that Prism answers (outside every base URL). */
const PRISM_ROOT_PATHS = new Set(['/healthz', '/oauth/token'])

/** The mock's front: its own answers where the server would answer otherwise than Prism, else Prism's. */
class MockFront {
  constructor(
    private readonly upstream: URL,
    private readonly checks: MockRequests,
    private readonly reference: ApiReference,
  ) {}

  async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://mock')
    const path = url.pathname
    const method = request.method ?? 'GET'
    if (PRISM_ROOT_PATHS.has(path)) {
      const body = await readBody(request)
      if (body === TOO_LARGE) return send(response, errors.payloadTooLarge(LIMITS.bodyBytes))
      return this.forward(request, response, body)
    }
    const [, tenant, region, ...rest] = path.split('/')
    const known = region !== undefined && (REGIONS as readonly string[]).includes(region)
    const page =
      method === 'GET' || method === 'HEAD'
        ? (this.reference.answer(path) ?? (known && rest.length === 0 && tenant ? redirect() : undefined))
        : undefined
    if (page) {
      response.writeHead(page.status, page.headers).end(method === 'HEAD' ? undefined : page.body)
      return
    }
    if (region === undefined) return drained(request, response, errors.noEndpoint(path))
    // As the server: no token, the same 401 for every base URL; with one (any), an unknown region is a 404.
    if (!request.headers.authorization) {
      return drained(
        request,
        response,
        errors.missingAccessToken(
          'the Authorization header is missing; send Authorization: Bearer <access token> (the mock takes any)',
        ),
      )
    }
    if (!known) {
      return drained(
        request,
        response,
        errors.notFound(
          'region',
          region,
          `a base URL is http://HOST:PORT/{tenant}/{region} with a region of ${REGIONS.join(', ')}`,
        ),
      )
    }
    const route = this.checks.route(method === 'HEAD' ? 'GET' : method, path)
    if (isSkillhouseError(route)) return drained(request, response, route)
    const body = await readBody(request)
    if (body === TOO_LARGE) return send(response, errors.payloadTooLarge(LIMITS.bodyBytes))
    const refusal = await this.checks.refusal(route, url, asRequest(url, request, body))
    if (refusal) return send(response, refusal)
    const headers: Record<string, string | string[] | undefined> = { ...request.headers }
    if (headers.prefer === undefined) {
      const chosen = QUERY_EXAMPLES.find((entry) => url.searchParams.get(entry.parameter) === entry.value)
      if (chosen) headers.prefer = `example=${chosen.example}`
    }
    return this.forward(request, response, body, headers)
  }

  /** Sends the request to Prism; a problem Prism answers itself is turned into the spec's error body. */
  private forward(
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer,
    headers: Record<string, string | string[] | undefined> = { ...request.headers },
  ): Promise<void> {
    const { host: _host, 'content-length': _length, 'transfer-encoding': _chunked, ...rest } = headers
    return new Promise((resolve) => {
      const forwarded = httpRequest(
        {
          host: this.upstream.hostname,
          port: this.upstream.port,
          method: request.method,
          path: request.url,
          headers: { ...rest, host: this.upstream.host, 'content-length': String(body.length) },
        },
        (answer) => {
          const type = String(answer.headers['content-type'] ?? '')
          if (!type.startsWith('application/problem+json')) {
            response.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(response)
            answer.once('end', resolve)
            return
          }
          const chunks: Buffer[] = []
          answer.on('data', (chunk: Buffer) => chunks.push(chunk))
          answer.once('end', () => {
            send(response, fromPrismProblem(answer.statusCode ?? 500, Buffer.concat(chunks).toString('utf8')))
            resolve()
          })
        },
      )
      forwarded.on('error', (error) => {
        if (response.headersSent) response.destroy(error)
        else send(response, errors.unavailable(`the mock's Prism does not answer: ${error.message}`))
        resolve()
      })
      forwarded.end(body)
    })
  }
}

/** A body larger than the limit: answered 413 after it is read to its end (so the client reads the answer). */
const TOO_LARGE = Symbol('too large')

/** The request body, read whole up to the server's default limit. */
function readBody(request: IncomingMessage): Promise<Buffer | typeof TOO_LARGE> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= LIMITS.bodyBytes) chunks.push(chunk)
    })
    request.once('end', () => resolve(size > LIMITS.bodyBytes ? TOO_LARGE : Buffer.concat(chunks)))
    request.once('error', reject)
  })
}

/** The request as a fetch Request, for the checks the server makes of it. */
function asRequest(url: URL, request: IncomingMessage, body: Buffer): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'transfer-encoding') continue
    headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  const method = request.method ?? 'GET'
  const withBody = body.length > 0 && method !== 'GET' && method !== 'HEAD'
  if (withBody) headers.set('content-length', String(body.length))
  return new Request(url, { method, headers, ...(withBody ? { body: new Uint8Array(body) } : {}) })
}

/** Answers an error once the request's body is read (unread bytes would reset the connection). */
function drained(request: IncomingMessage, response: ServerResponse, error: SkillhouseError): void {
  request.resume()
  request.once('end', () => send(response, error))
}

/** The spec's error response (section 7). */
function send(response: ServerResponse, error: SkillhouseError): void {
  response
    .writeHead(error.status, { 'content-type': 'application/json', ...error.headers })
    .end(JSON.stringify(error.toBody()))
}

/**
 * An error Prism answered itself (problem+json, RFC 7807) in the spec's shape: its status, one
 * description per violation it lists (the field, then Prism's message), else its detail.
 */
function fromPrismProblem(status: number, text: string): SkillhouseError {
  let problem: { title?: string; detail?: string; validation?: { location?: string[]; message?: string }[] }
  try {
    problem = JSON.parse(text) as typeof problem
  } catch {
    problem = { detail: text }
  }
  const descriptions = (problem.validation ?? [])
    .filter((entry) => entry.message)
    .map((entry) => {
      const where = (entry.location ?? []).slice(1).join('.')
      return where ? `${where}: ${entry.message}` : `${entry.message}`
    })
  return errors.relayed(
    status,
    descriptions.length > 0 ? descriptions : [problem.detail ?? problem.title ?? text],
  )
}
