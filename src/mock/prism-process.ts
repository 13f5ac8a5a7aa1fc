import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { execa } from 'execa'
import { type OpenApiDocument, writeOpenApiDocument } from '../openapi/openapi-document.js'
import { projectRoot } from '../util/project-paths.js'

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

/** The prefix of Prism's temporary folders in the system's temporary directory. */
const FOLDER_PREFIX = 'skillhouse-prism-'
/** The file in a temporary folder naming the processes that use it. */
const OWNERS_FILE = 'owners.json'
/** A folder without an owners file (being made, or made by an older skillhouse) counts as stale after this. */
const UNOWNED_STALE_MS = 3_600_000

/**
 * The watchdog script Prism runs in (prism-watchdog.ts), compiled: next to this module in dist/,
 * and from the TypeScript sources (tests) the one `npm run build` put in dist/.
 */
function watchdogScript(): string {
  const beside = fileURLToPath(new URL('./prism-watchdog.js', import.meta.url))
  return existsSync(beside) ? beside : join(projectRoot(), 'dist', 'src', 'mock', 'prism-watchdog.js')
}

const alive = (pid: unknown): boolean => {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary folders of Prism runs whose processes are all gone (both killed at once,
 * say, so that neither could remove it); returns the folders removed. Folders of running mocks
 * and proxies, of any user, are left alone.
 */
export function removeStalePrismFolders(directory = tmpdir()): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(directory).filter((name) => name.startsWith(FOLDER_PREFIX))
  } catch {
    return removed
  }
  for (const name of names) {
    const folder = join(directory, name)
    try {
      const owners = join(folder, OWNERS_FILE)
      const stale = existsSync(owners)
        ? !(JSON.parse(readFileSync(owners, 'utf8')) as number[]).some(alive)
        : Date.now() - statSync(folder).mtimeMs > UNOWNED_STALE_MS
      if (!stale) continue
      rmSync(folder, { recursive: true, force: true })
      removed.push(folder)
    } catch {
      // Removed meanwhile, unreadable, or another user's: not ours to clean.
    }
  }
  return removed
}

/**
 * Writes `document` to a temporary file and starts Prism (Prism's own script under this
 * package's node_modules, in a watchdog process: `pid` is Prism's) with `args(file)`, resolving
 * once Prism says it listens. Prism failing to start (a port in use, say) rejects with the lines
 * it wrote.
 *
 * Prism never outlives the process that starts it: the watchdog holds a pipe from it and exits,
 * removing the temporary folder, when the pipe closes, as it does however that process ends
 * (`kill -9` included). Folders left by runs whose processes were all killed at once are removed
 * by the next start.
 */
export async function startPrism(
  document: OpenApiDocument,
  args: (file: string) => string[],
  log?: (line: string) => void,
): Promise<RunningPrism> {
  removeStalePrismFolders()
  const folder = mkdtempSync(join(tmpdir(), FOLDER_PREFIX))
  const owners = join(folder, OWNERS_FILE)
  writeFileSync(owners, JSON.stringify([process.pid]))
  const file = join(folder, 'openapi.json')
  writeOpenApiDocument(file, document)
  // One process (no cluster workers, as Prism forks under NODE_ENV=production): its pid is Prism's.
  const prismArgs = [...args(file), '--multiprocess=false']
  const child = execa(process.execPath, [watchdogScript(), folder, prismScript(), ...prismArgs], {
    reject: false,
    // The pipe the watchdog watches: it is never written to, and closes when this process ends.
    stdin: 'pipe',
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
    forceKillAfterDelay: 5_000,
  })
  if (child.pid !== undefined) writeFileSync(owners, JSON.stringify([process.pid, child.pid]))
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
