import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execa } from 'execa'
import { z } from 'zod'
import { Region, TenantName } from '../schemas/index.js'
import { type OpenApiDocument, openApiDocument, writeOpenApiDocument } from './openapi-document.js'

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

export interface RunningMock {
  /** `http://HOST:PORT`; a tenant's base URL on the mock is `${url}/{tenant}/{region}`. */
  url: string
  /** The document Prism serves (a temporary file, removed when Prism exits). */
  document: string
  /** Prism's process id. */
  pid: number
  /** Resolves with Prism's exit code (null when a signal ended it) once it has exited. */
  exited: Promise<number | null>
  /** Sends Prism a signal (SIGTERM by default) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** The Prism CLI script of the installed @stoplight/prism-cli, found from this package, not from the working directory. */
export function prismScript(): string {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('@stoplight/prism-cli/package.json')
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin.prism
  if (!bin) throw new Error(`${manifest} names no prism binary`)
  return join(dirname(manifest), bin)
}

const LISTENING = /Prism is listening on (\S+)/

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
 * Writes the document to a temporary file and starts Prism on it; resolves once Prism listens.
 * Prism failing to start (a port in use, say) rejects with the lines it wrote.
 */
export async function startMock(options: MockOptions): Promise<RunningMock> {
  const folder = mkdtempSync(join(tmpdir(), 'skillhouse-mock-'))
  const document = join(folder, 'openapi.json')
  writeOpenApiDocument(document, mockDocument())
  const args = [
    'mock',
    document,
    '-p',
    String(options.port),
    '-h',
    options.host,
    ...(options.dynamic ? ['-d'] : []),
  ]
  const child = execa(process.execPath, [prismScript(), ...args], {
    reject: false,
    stdin: 'ignore',
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
    forceKillAfterDelay: 5_000,
  })
  const exited = child.then((result) => {
    rmSync(folder, { recursive: true, force: true })
    return result.exitCode ?? null
  })
  const output: string[] = []
  const url = await new Promise<string>((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue
        output.push(line)
        options.log?.(line)
        const match = LISTENING.exec(line)
        if (match?.[1]) resolve(match[1])
      }
    }
    child.stdout?.on('data', onLine)
    child.stderr?.on('data', onLine)
    void exited.then((code) =>
      reject(new Error(`Prism exited (code ${code}) before it listened:\n${output.slice(-20).join('\n')}`)),
    )
  })
  const pid = child.pid
  if (pid === undefined) throw new Error('Prism started without a process id')
  return {
    url: url.replace(/\/+$/, ''),
    document,
    pid,
    exited,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal)
      return exited
    },
  }
}
