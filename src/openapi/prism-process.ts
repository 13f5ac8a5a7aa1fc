import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execa } from 'execa'
import { type OpenApiDocument, writeOpenApiDocument } from './openapi-document.js'

/** A Prism process started by `startPrism` (`skillhouse mock`, or the proxy of the contract test). */
export interface RunningPrism {
  /** `http://HOST:PORT`; a tenant's base URL through Prism is `${url}/{tenant}/{region}`. */
  url: string
  /** The document file Prism serves or checks against (a temporary file, removed when Prism exits). */
  document: string
  /** Prism's process id. */
  pid: number
  /** Resolves with Prism's exit code (null when a signal ended it) once it has exited. */
  exited: Promise<number | null>
  /** Sends Prism a signal (SIGTERM by default) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

const LISTENING = /Prism is listening on (\S+)/

/** The Prism CLI script of the installed @stoplight/prism-cli, found from this package, not from the working directory. */
export function prismScript(): string {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('@stoplight/prism-cli/package.json')
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin.prism
  if (!bin) throw new Error(`${manifest} names no prism binary`)
  return join(dirname(manifest), bin)
}

/**
 * Writes `document` to a temporary file and starts Prism through execa (Prism's own script under
 * this package's node_modules, so that `pid` is Prism's) with `args(file)`, resolving once Prism
 * says it listens. Prism failing to start (a port in use, say) rejects with the lines it wrote.
 */
export async function startPrism(
  document: OpenApiDocument,
  args: (file: string) => string[],
  log?: (line: string) => void,
): Promise<RunningPrism> {
  const folder = mkdtempSync(join(tmpdir(), 'skillhouse-prism-'))
  const file = join(folder, 'openapi.json')
  writeOpenApiDocument(file, document)
  const child = execa(process.execPath, [prismScript(), ...args(file)], {
    reject: false,
    stdin: 'ignore',
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
    forceKillAfterDelay: 5_000,
  })
  const exited = child.then((result) => {
    rmSync(folder, { recursive: true, force: true })
    return result.exitCode ?? null
  })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    child.kill(signal)
    return exited
  }
  const output: string[] = []
  const listening = new Promise<string>((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue
        output.push(line)
        log?.(line)
        const match = LISTENING.exec(line)
        if (match?.[1]) resolve(match[1].replace(/\/+$/, ''))
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
  const url = await listening
  return { url, document: file, pid, exited, stop }
}
