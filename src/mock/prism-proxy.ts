import type { OpenApiDocument } from '../openapi/openapi-document.js'
import { mockDocument } from './prism-mock.js'
import { type RunningPrism, startPrism } from './prism-process.js'

/**
 * `prism proxy`: Prism 4 in front of a running server, checking every request and every answer
 * against the document the mock serves (the base URL spelled out as `/{tenant}/{region}/…`).
 *
 * With `errors` (Prism's `--errors`), a request the document refuses is answered by Prism itself
 * and never forwarded (401 without the security the operation asks for, 422 for any other
 * violation), and an answer of the server that breaks the document is replaced by Prism's 500
 * whose problem+json `type` is `PRISM_VIOLATIONS`. Every answer with a violation of either side
 * carries them in the `sl-violations` header.
 */

/** The `type` prefix of the problem+json bodies Prism answers itself (the server never sends problem+json). */
export const PRISM_ERROR_TYPE = 'https://stoplight.io/prism/errors#'
/** The `type` of the 500 that `--errors` answers in place of a server answer that breaks the document. */
export const PRISM_VIOLATIONS = `${PRISM_ERROR_TYPE}VIOLATIONS`
/** The header in which Prism lists the violations of a request and of its answer. */
export const VIOLATIONS_HEADER = 'sl-violations'

/** One entry of the `sl-violations` header: `location[0]` is `request` or `response`. */
export interface PrismViolation {
  location: string[]
  severity: string
  code?: string | number
  message: string
}

/** The problem+json body of an answer Prism gave itself. */
export interface PrismProblem {
  type: string
  title: string
  status: number
  detail: string
  validation?: { location?: string[]; severity?: string; code?: string | number; message?: string }[]
}

export interface ProxyOptions {
  /** The server Prism forwards to, e.g. `http://127.0.0.1:8080`. */
  upstream: string
  /** 0 lets the system pick a free port; the running proxy's `url` names it. */
  port: number
  host: string
  /** Prism's `--errors`; default true. */
  errors?: boolean
  /** The document to check against; default the one `skillhouse mock` serves. */
  document?: OpenApiDocument
  /** Prism's own log lines. */
  log?: (line: string) => void
}

/** The running proxy. */
export type RunningProxy = RunningPrism

/** The violations an answer's `sl-violations` header lists (none without the header). */
export function violationsOf(headers: Headers): PrismViolation[] {
  const header = headers.get(VIOLATIONS_HEADER)
  if (header === null) return []
  const parsed = JSON.parse(header) as unknown
  if (!Array.isArray(parsed)) throw new Error(`${VIOLATIONS_HEADER} is not a JSON array: ${header}`)
  return parsed as PrismViolation[]
}

/**
 * The problem Prism answered itself, or undefined when the answer is the upstream's: Prism's
 * own answers are `application/problem+json` with a `type` below `PRISM_ERROR_TYPE`.
 */
export function prismProblemOf(headers: Headers, body: unknown): PrismProblem | undefined {
  const type = headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/problem+json') return undefined
  const problem = body as Partial<PrismProblem> | undefined
  if (typeof problem?.type !== 'string' || !problem.type.startsWith(PRISM_ERROR_TYPE)) return undefined
  return problem as PrismProblem
}

/**
 * Whether Prism's HTTP layer (micri) refused a JSON body it could not parse, before any check of
 * the document: 400 with `{"error": {"code": "invalid_json", …}}` (the server's errors are arrays).
 */
export function prismParseErrorOf(status: number, body: unknown): boolean {
  const error = (body as { error?: { code?: unknown } } | undefined)?.error
  return status === 400 && !Array.isArray(body) && error?.code === 'invalid_json'
}

/** Starts `prism proxy` in front of `upstream`, resolving once Prism answers HTTP. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const prism = await startPrism(
    options.document ?? mockDocument(),
    (file) => [
      'proxy',
      file,
      options.upstream,
      '-p',
      String(options.port),
      '-h',
      options.host,
      ...((options.errors ?? true) ? ['--errors'] : []),
    ],
    options.log,
  )
  try {
    await answering(prism.url, prism.exited)
    return prism
  } catch (error) {
    await prism.stop()
    throw error
  }
}

/** Waits until Prism answers HTTP at `url` (any status), or fails when it exits first. */
async function answering(url: string, exited: Promise<number | null>): Promise<void> {
  let gone = false
  void exited.then(() => {
    gone = true
  })
  for (let attempt = 0; ; attempt++) {
    if (gone) throw new Error('Prism exited before it answered')
    try {
      await (await fetch(`${url}/healthz`, { method: 'OPTIONS' })).arrayBuffer()
      return
    } catch (error) {
      if (attempt >= 100) throw new Error(`Prism at ${url} does not answer: ${(error as Error).message}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}
