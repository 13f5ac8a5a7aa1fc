import {
  createServer,
  type IncomingMessage,
  maxHeaderSize,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { getRequestListener } from '@hono/node-server'
import { errors } from '../errors/skillhouse-error.js'
import { type AppOptions, createApp, type SkillhouseApp } from './app.js'
import { DISCARDED_BODY_BYTES, rawErrorAnswer } from './http-io.js'
import type { KeptAnswerLane } from './kept-answer-lane.js'
import { type LocalChannel, openLocalChannel, refuseWhenServed } from './local-channel.js'
import { type Logger, stderrLogger } from './request-log.js'

export interface ServerOptions extends AppOptions {
  /** Interface to listen on; default 127.0.0.1 (loopback: exposing it is a decision to make). */
  host?: string
  /** Port to listen on; default 8080, 0 for any free port. */
  port?: number
  /** Open connections served at once; the next one gets `max connections reached: <limit>` (503). */
  maxConnections?: number
  /** How long a shutdown waits for in-flight requests before it closes their connections (ms). */
  shutdownTimeoutMs?: number
  /**
   * Whether commands on this data directory's tenants hand their work to this server (its local
   * channel, announced in serve.json; default yes). Without it they are refused while it holds a
   * tenant.
   */
  localChannel?: boolean
}

/** A listening server. */
export interface RunningServer {
  /** `http://HOST:PORT`; a tenant's base URL is `${url}/{tenant}/{region}`. */
  url: string
  host: string
  port: number
  app: SkillhouseApp
  /**
   * Graceful shutdown: stops accepting connections, lets the requests in flight finish (up to the
   * shutdown timeout), stops the background worker after its running derivation and the webhook
   * delivery after the requests it has in flight (each bounded by the attempt timeout), then
   * checkpoints and closes every tenant database. Safe to call more than once.
   */
  close(): Promise<void>
}

export const DEFAULT_MAX_CONNECTIONS = 1024

/**
 * Starts the HTTP API on `host:port` (@hono/node-server over node:http) and resolves once it
 * listens, with the address it is bound to (`port: 0` picks a free port).
 *
 * Connections are counted on the socket level: one past `maxConnections` is answered at once with
 * the spec's plain-text `max connections reached: <limit>` and status 503 (docs/api.md), and the
 * request it carried is not run. Idle keep-alive connections count too: they hold a socket.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const log = options.logger ?? stderrLogger
  const host = options.host ?? '127.0.0.1'
  const withChannel = options.localChannel !== false
  // Before anything is bound: a second server on the data directory names the first.
  if (withChannel) refuseWhenServed(options.dataDir)
  const built = await createApp(options)
  const connections = new ConnectionLimit(options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, log)
  // The body a request leaves unread is dropped as it arrives (`afterBody`), not cut off half a
  // second after the answer.
  const listener = getRequestListener(built.app.fetch, { autoCleanupIncoming: false })
  const server = createServer(connections.listener(keptFirst(built.keptAnswers, afterBody(listener))))
  server.on('connection', (socket: Socket) => connections.accept(socket))
  server.on('clientError', (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) =>
    answerUnreadable(error, socket, log),
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 8080, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shownHost = address.address.includes(':') ? `[${address.address}]` : address.address
  const url = `http://${shownHost}:${address.port}`
  let channel: LocalChannel | undefined
  try {
    if (withChannel)
      channel = await openLocalChannel({ dataDir: options.dataDir, pool: built.pool, url, log })
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await built.close()
    throw error
  }
  log({ msg: 'listening', url, ...(channel ? { local_channel: channel.socket } : {}) })
  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      built.drain()
      // Commands started from now on run on their own once the databases are closed.
      await channel?.close()
      await stopServing(server, connections, options.shutdownTimeoutMs ?? 10_000)
      await built.close()
      log({ msg: 'stopped', url })
    })()
    return closing
  }
  return { url, host: address.address, port: address.port, app: built, close }
}

/**
 * The open connections of a server, at most `max`: a connection past the limit has its request
 * answered with the plain-text 503, unrun. Counts the requests in flight for a shutdown to wait on.
 */
class ConnectionLimit {
  private readonly accepted = new Set<Socket>()
  private readonly refused = new WeakSet<Socket>()
  private inFlight = 0
  private drained: (() => void) | undefined

  constructor(
    private readonly max: number,
    private readonly log: Logger,
  ) {}

  /** Takes a new connection in, or marks it refused when `max` are open. */
  accept(socket: Socket): void {
    if (this.accepted.size >= this.max) {
      this.refused.add(socket)
      // A refused connection that sends no request is not kept waiting for one.
      socket.setTimeout(10_000, () => socket.destroy())
      return
    }
    this.accepted.add(socket)
    socket.once('close', () => this.accepted.delete(socket))
  }

  /** `serve` for the requests of accepted connections; the 503 for those of refused ones. */
  listener(serve: (request: IncomingMessage, response: ServerResponse) => unknown) {
    return (request: IncomingMessage, response: ServerResponse) => {
      if (this.refused.has(request.socket)) {
        this.refuse(request, response)
        return
      }
      this.inFlight++
      response.once('close', () => {
        this.inFlight--
        if (this.inFlight === 0) this.drained?.()
      })
      void serve(request, response)
    }
  }

  /** Resolves once no request is in flight, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    if (this.inFlight === 0) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs)
      this.drained = () => {
        clearTimeout(timer)
        resolve()
      }
    })
  }

  private refuse(request: IncomingMessage, response: ServerResponse): void {
    const text = `max connections reached: ${this.max}`
    response.writeHead(503, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      connection: 'close',
    })
    response.end(text)
    this.log({
      msg: 'request',
      method: request.method,
      path: request.url,
      status: 503,
      refused: 'max connections',
    })
  }
}

/** `serve`, after the kept answers: a GET answered before is answered again without the app. */
function keptFirst(
  lane: KeptAnswerLane | undefined,
  serve: (request: IncomingMessage, response: ServerResponse) => unknown,
) {
  if (!lane) return serve
  return async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && (await lane.answer(request, response))) return
    return serve(request, response)
  }
}

/**
 * `serve`, whose answers to a request with a body leave once the body has arrived: what the
 * handler did not read (an oversized body answered 413, a body refused 401) is read and dropped
 * meanwhile. A connection closed while its client still sends is reset, and the reset loses the
 * answer the client had not read yet. Past `DISCARDED_BODY_BYTES` the answer leaves at once.
 */
function afterBody(serve: (request: IncomingMessage, response: ServerResponse) => unknown) {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') holdAnswer(request, response)
    return serve(request, response)
  }
}

function holdAnswer(request: IncomingMessage, response: ServerResponse): void {
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse
  response.end = ((...args: unknown[]) => {
    if (request.complete || request.destroyed) return end(...args)
    let dropped = 0
    const send = () => {
      request.off('data', drop)
      request.off('end', send)
      request.off('close', send)
      end(...args)
    }
    const drop = (chunk: Buffer) => {
      dropped += chunk.length
      if (dropped > DISCARDED_BODY_BYTES) send()
    }
    request.on('data', drop)
    request.once('end', send)
    request.once('close', send)
    request.resume()
    return response
  }) as ServerResponse['end']
}

/** How long a connection answered for a request it could not read waits for its client to close. */
const UNREADABLE_CLOSE_MS = 2_000

/**
 * A request node:http could not read: 431 for a request line and headers over the limit (a long
 * URL), 400 for one that is not HTTP, each with the spec's error body; the connection then closes
 * once the client has read the answer (what it still sends is dropped, so it is not reset).
 */
function answerUnreadable(
  error: NodeJS.ErrnoException & { reason?: string },
  socket: Duplex,
  log: Logger,
): void {
  const code = error.code ?? ''
  if (!socket.writable || !code.startsWith('HPE_')) {
    socket.destroy()
    return
  }
  const answer =
    code === 'HPE_HEADER_OVERFLOW'
      ? errors.headersTooLarge(maxHeaderSize)
      : errors.malformedRequest(error.reason ?? error.message)
  log({ msg: 'request', status: answer.status, unreadable: code })
  socket.removeAllListeners('data')
  socket.on('data', () => undefined)
  socket.on('error', () => undefined)
  socket.end(rawErrorAnswer(answer))
  setTimeout(() => socket.destroy(), UNREADABLE_CLOSE_MS).unref()
}

/** Stops accepting connections, lets the requests in flight finish (up to `timeoutMs`), closes the rest. */
async function stopServing(server: Server, connections: ConnectionLimit, timeoutMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  server.closeIdleConnections()
  await connections.settled(timeoutMs)
  // Finished keep-alive connections are idle now; anything still open ran out of time.
  server.closeIdleConnections()
  server.closeAllConnections()
  await closed
}
