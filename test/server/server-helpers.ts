import type { Scope } from '../../src/auth/access-tokens.js'
import { mintLocalToken } from '../../src/auth/oauth-clients.js'
import { type LogEntry, silentLogger } from '../../src/server/request-log.js'
import { type RunningServer, type ServerOptions, startServer } from '../../src/server/start-server.js'

/** A server on a free loopback port over `dataDir`, quiet unless `logs` collects its lines. */
export async function startTestServer(
  dataDir: string,
  options: Partial<ServerOptions> & { logs?: LogEntry[] } = {},
): Promise<RunningServer> {
  const { logs, ...rest } = options
  return startServer({
    dataDir,
    port: 0,
    logger: logs ? (entry) => logs.push(entry) : silentLogger,
    deriveDelayMs: 20,
    deriveMaxDelayMs: 200,
    ...rest,
  })
}

/** A token of the data directory's key for `tenant`, as `skillhouse token` mints it. */
export async function tokenFor(
  dataDir: string,
  tenant: string,
  scopes: Scope[] = ['read', 'write'],
): Promise<string> {
  return (await mintLocalToken(dataDir, tenant, scopes)).access_token
}

export interface ApiAnswer {
  status: number
  headers: Headers
  text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown
}

/** One request; `body` objects are sent as JSON, strings as they are. */
export async function call(
  url: string,
  options: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | undefined
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The spec's error body: an array of `{title, description}`. */
export function errorTitles(answer: ApiAnswer): string[] {
  return (answer.json as { title: string }[]).map((entry) => entry.title)
}

/** A working_history skill event whose job description is `description`. */
export const workingHistory = (externalId: string, description: string) => ({
  external_id: externalId,
  event_type: 'working_history',
  timestamp: '2024-06-01',
  content: {
    job_title: 'Developer',
    start_date: '2020-01-01',
    company: 'Initech',
    job_description: description,
  },
  source: 'hr-system',
})
