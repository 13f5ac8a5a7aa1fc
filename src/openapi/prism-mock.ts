import { z } from 'zod'
import { Region, TenantName } from '../schemas/index.js'
import { type OpenApiDocument, openApiDocument } from './openapi-document.js'
import { type RunningPrism, startPrism } from './prism-process.js'

/**
 * `skillhouse mock`: Prism 4 serving the generated OpenAPI document, offline. Every GET answers
 * its example (the real answers of the demo tenant), a bad parameter gets Prism's 422,
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

/** Starts Prism's mock on the document below; resolves once Prism listens. */
export async function startMock(options: MockOptions): Promise<RunningMock> {
  return startPrism(
    mockDocument(),
    (file) => [
      'mock',
      file,
      '-p',
      String(options.port),
      '-h',
      options.host,
      ...(options.dynamic ? ['-d'] : []),
    ],
    options.log,
  )
}
