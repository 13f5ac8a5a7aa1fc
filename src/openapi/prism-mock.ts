import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { errors } from '../errors/skillhouse-error.js'
import { REGIONS, Region, TenantName } from '../schemas/tenant-settings.js'
import { z } from '../vendor/zod.js'
import { type OpenApiDocument, openApiDocument } from './openapi-document.js'
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
 * `port` that answers what Prism cannot know as the server does (a region that does not exist:
 * 404, once a token is sent) and turns the query values of QUERY_EXAMPLES into Prism's
 * `Prefer: example=NAME`. Everything else is Prism's answer, passed through as it is.
 */
export async function startMock(options: MockOptions): Promise<RunningMock> {
  const prism = await startPrism(
    mockDocument(),
    (file) => ['mock', file, '-p', '0', '-h', '127.0.0.1', ...(options.dynamic ? ['-d'] : [])],
    options.log,
  )
  const upstream = new URL(prism.url)
  const front = createServer((request, response) => relay(request, response, upstream))
  try {
    await new Promise<void>((resolve, reject) => {
      front.once('error', reject)
      front.listen(options.port, options.host, () => resolve())
    })
  } catch (error) {
    await prism.stop()
    throw errors.unavailable(
      `the mock cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`,
    )
  }
  const { port } = front.address() as AddressInfo
  const closeFront = () =>
    new Promise<void>((resolve) => {
      front.closeAllConnections()
      front.close(() => resolve())
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

/** Answers one request of the front: itself where the server would answer otherwise than Prism, else through Prism. */
function relay(request: IncomingMessage, response: ServerResponse, upstream: URL): void {
  const url = new URL(request.url ?? '/', 'http://mock')
  const [, , region, ...rest] = url.pathname.split('/')
  // As the server: no token, the same 401 for every base URL (Prism's); with one, an unknown region is a 404.
  if (
    region !== undefined &&
    rest.length > 0 &&
    request.headers.authorization &&
    !(REGIONS as readonly string[]).includes(region)
  ) {
    const error = errors.notFound(
      'region',
      region,
      `a base URL is http://HOST:PORT/{tenant}/{region} with a region of ${REGIONS.join(', ')}`,
    )
    response
      .writeHead(error.status, { 'content-type': 'application/json' })
      .end(JSON.stringify(error.toBody()))
    return
  }
  const headers: Record<string, string | string[] | undefined> = { ...request.headers, host: upstream.host }
  if (headers.prefer === undefined) {
    const chosen = QUERY_EXAMPLES.find((entry) => url.searchParams.get(entry.parameter) === entry.value)
    if (chosen) headers.prefer = `example=${chosen.example}`
  }
  const forwarded = httpRequest(
    { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    },
  )
  forwarded.on('error', (error) => {
    if (response.headersSent) return response.destroy(error)
    const unavailable = errors.unavailable(`the mock's Prism does not answer: ${error.message}`)
    response
      .writeHead(unavailable.status, { 'content-type': 'application/json' })
      .end(JSON.stringify(unavailable.toBody()))
  })
  request.pipe(forwarded)
}
