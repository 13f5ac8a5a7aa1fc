import { randomBytes, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { errors, isSkillhouseError, type SkillhouseError } from '../errors/skillhouse-error.js'
import type {
  ChannelError,
  ChannelInterrupt,
  ChannelRequest,
  ServerMessage,
} from '../operations/channel-messages.js'
import { MAX_REQUEST_BYTES } from '../operations/channel-messages.js'
import { OPERATIONS } from '../operations/operation-registry.js'
import type { OperationContext } from '../operations/tenant-operation.js'
import { readServerRecord, removeServerRecord, writeServerRecord } from '../tenants/server-record.js'
import { withFileLockSync } from '../util/file-lock.js'
import type { Logger } from './request-log.js'
import type { TenantPool } from './tenant-pool.js'

/**
 * The server's local channel: commands run on a tenant the server holds hand their work to it
 * here (src/operations/). A Unix socket in a folder only the server's user may enter, announced
 * with a secret in the data directory's `serve.json` (readable by its owner alone): no other user,
 * and no process that cannot read the data directory, can drive the server through it, and it is
 * not reachable from the network. Every request names an operation of the registry, which runs as
 * the HTTP API's work runs (reads beside everything, writes as a batch: tenant-pool.ts).
 */
export interface LocalChannel {
  socket: string
  close(): Promise<void>
}

/** Longest path of a Unix socket (sun_path holds 108 bytes with its terminating zero). */
const MAX_SOCKET_PATH = 107

/** How long a connection may take to send its request. */
const REQUEST_TIMEOUT_MS = 10_000

/**
 * Opens the channel and announces it in `dataDir`, refusing (409) when a live server announces
 * itself there already: a second `serve` on the same data directory names the first.
 */
export async function openLocalChannel(options: {
  dataDir: string
  pool: TenantPool
  url: string
  log: Logger
}): Promise<LocalChannel> {
  const folder = privateFolder(options.dataDir)
  const socket = join(folder, 'channel.sock')
  const secret = randomBytes(32).toString('hex')
  const server = createServer((connection) => serveConnection(connection, secret, options))
  try {
    await listen(server, socket)
    withFileLockSync(`${join(options.dataDir, 'serve.json')}.lock`, () => {
      refuseWhenServed(options.dataDir)
      writeServerRecord(options.dataDir, {
        pid: process.pid,
        host: hostname(),
        url: options.url,
        socket,
        secret,
        started_at: new Date().toISOString(),
      })
    })
  } catch (error) {
    server.close()
    rmSync(folder, { recursive: true, force: true })
    throw error
  }
  return {
    socket,
    close: async () => {
      removeServerRecord(options.dataDir)
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/** A 409 naming the live server that serves `dataDir`, if one does. */
export function refuseWhenServed(dataDir: string): void {
  const record = readServerRecord(dataDir)
  if (record && record.pid !== process.pid) throw errors.dataDirectoryServed(dataDir, record.pid, record.url)
}

/** A new folder only this user may enter (mode 0700), in the data directory when its path is short enough. */
function privateFolder(dataDir: string): string {
  const fits = (base: string) =>
    join(base, 'skillhouse-serve-XXXXXX', 'channel.sock').length <= MAX_SOCKET_PATH
  return mkdtempSync(join(fits(dataDir) ? dataDir : tmpdir(), 'skillhouse-serve-'))
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(path, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** One command's connection: its request, its progress and items, its answer. */
function serveConnection(
  connection: Socket,
  secret: string,
  options: { pool: TenantPool; log: Logger },
): void {
  const controller = new AbortController()
  const send = (message: ServerMessage) => connection.write(`${JSON.stringify(message)}\n`)
  const timeout = setTimeout(() => connection.destroy(), REQUEST_TIMEOUT_MS)
  let request: ChannelRequest | undefined
  let received = 0
  connection.on('data', (chunk: Buffer) => {
    received += chunk.length
    if (request === undefined && received > MAX_REQUEST_BYTES) connection.destroy()
  })
  // A command that is gone (killed, or its user pressed Ctrl-C twice) interrupts its work.
  connection.on('close', () => controller.abort('SIGINT'))
  connection.on('error', () => undefined)
  const lines = createInterface({ input: connection, crlfDelay: Number.POSITIVE_INFINITY })
  lines.on('line', (line) => {
    if (request !== undefined) {
      const interrupt = parseMessage(line) as Partial<ChannelInterrupt> | undefined
      if (interrupt?.interrupt === 'SIGINT' || interrupt?.interrupt === 'SIGTERM')
        controller.abort(interrupt.interrupt)
      return
    }
    clearTimeout(timeout)
    const parsed = parseMessage(line) as Partial<ChannelRequest> | undefined
    if (!parsed || !sameSecret(parsed.secret, secret)) {
      send({ error: channelError(errors.localChannelRefused()) })
      connection.end()
      return
    }
    request = parsed as ChannelRequest
    const context: OperationContext = {
      signal: controller.signal,
      progress: {
        stage: (name) => send({ progress: ['stage', name] }),
        rows: (rows) => send({ progress: ['rows', rows] }),
        done: (text) => send({ progress: ['done', text] }),
      },
      // An item waits until the command has room for it: a slow reader slows the work, never the memory.
      item: async (value) => {
        if (!send({ item: value }) && !connection.destroyed)
          await new Promise((resolve) => connection.once('drain', resolve))
      },
    }
    void runRequest(request, context, options).then(
      (result) => connection.end(`${JSON.stringify(result === undefined ? { none: true } : { result })}\n`),
      (error: unknown) => {
        if (!isSkillhouseError(error)) options.log({ msg: 'local channel error', error: String(error) })
        connection.end(`${JSON.stringify({ error: channelError(error, controller.signal) })}\n`)
      },
    )
  })
}

/** Runs the request's operation on its tenant, as the HTTP API's work runs. */
function runRequest(
  request: ChannelRequest,
  context: OperationContext,
  options: { pool: TenantPool },
): Promise<unknown> {
  const operation = OPERATIONS.get(request.operation)
  if (!operation) return Promise.reject(errors.unknownOperation(request.operation))
  const tenant = options.pool.current().pick(request.tenant ?? undefined).settings.name
  const work = (open: Parameters<typeof operation.run>[0]) =>
    operation.run(open, request.params as never, context)
  return operation.writes ? options.pool.useForBatch(tenant, work) : options.pool.useForReading(tenant, work)
}

function parseMessage(line: string): unknown {
  try {
    return JSON.parse(line)
  } catch {
    return undefined
  }
}

function sameSecret(given: unknown, secret: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** An error as the channel sends it: a SkillhouseError as it is, anything else as a 500. */
function channelError(error: unknown, signal?: AbortSignal): ChannelError {
  const known: SkillhouseError = isSkillhouseError(error) ? error : errors.internal(String(error))
  const interrupted = signal?.aborted ? (signal.reason as 'SIGINT' | 'SIGTERM') : undefined
  return {
    status: known.status,
    descriptions: known.descriptions,
    ...(interrupted ? { interrupted } : {}),
  }
}
