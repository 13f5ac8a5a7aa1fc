import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type CloudEvent, HTTP } from 'cloudevents'
import { afterAll } from 'vitest'
import { tempDir } from '../helpers/temp-tenant.js'

/** One request a receiver got, the CloudEvent it carried, and the status it answered. */
export interface ReceivedRequest {
  headers: IncomingHttpHeaders
  body: string
  event: CloudEvent<unknown>
  status: number
  /** When the request arrived (ms since the epoch). */
  receivedAt: number
}

/**
 * Decides the answer to a request: a status, `hang` to never answer (a consumer that times out),
 * or a status sent after a while (a slow consumer). Gets the event and the number of requests
 * received before it.
 */
export type Answer = (
  event: CloudEvent<unknown>,
  index: number,
) => number | 'hang' | { status: number; afterMs: number }

/**
 * A real webhook consumer on a free loopback port (node:http): it parses every request as a
 * structured-mode CloudEvent with the SDK and answers as `answer` says.
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = []
  private readonly hanging = new Set<ServerResponse>()

  private constructor(
    private readonly server: Server,
    readonly url: string,
    public answer: Answer,
  ) {}

  static async start(answer: Answer = () => 200, path = '/hooks'): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined
    const server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8')
        const event = HTTP.toEvent({ headers: request.headers, body }) as CloudEvent<unknown>
        const self = receiver as WebhookReceiver
        const answer = self.answer(event, self.requests.length)
        const status = typeof answer === 'object' ? answer.status : answer
        self.requests.push({
          headers: request.headers,
          body,
          event,
          status: status === 'hang' ? 0 : status,
          receivedAt: Date.now(),
        })
        if (status === 'hang') {
          self.hanging.add(response)
          return
        }
        const send = () => {
          self.hanging.delete(response)
          response.writeHead(status, { 'content-type': 'text/plain' })
          response.end(status >= 300 ? `refused with ${status}` : 'ok')
        }
        if (typeof answer === 'object') {
          self.hanging.add(response)
          setTimeout(send, answer.afterMs)
        } else send()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}${path}`, answer)
    return receiver
  }

  /** The events other than health checks. */
  events(): ReceivedRequest[] {
    return this.requests.filter((request) => request.event.type !== 'ai.vendor.health_check')
  }

  /** Ids of the events answered with a 2XX. */
  acknowledgedIds(): string[] {
    return this.events()
      .filter((request) => request.status >= 200 && request.status < 300)
      .map((request) => request.event.id)
  }

  /** Requests not answered yet: hanging, or waiting for a slow answer. */
  unanswered(): number {
    return this.hanging.size
  }

  /** Stops listening and drops every connection: the consumer is down (connections refused). */
  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy()
    this.hanging.clear()
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  /** Listens again on the same port: the consumer is back. */
  async resume(): Promise<void> {
    const { port } = new URL(this.url)
    await new Promise<void>((resolve) => this.server.listen(Number(port), '127.0.0.1', resolve))
  }

  async close(): Promise<void> {
    if (this.server.listening) await this.stop()
  }
}

/** A loopback URL where nothing listens: a port that was free a moment ago. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}/hooks`
}

/**
 * A data directory and the receivers of one `describe`, removed and closed after it: `receiver`
 * starts one that is closed then.
 */
export function webhookTestBed(): {
  dataDir: string
  receivers: WebhookReceiver[]
  receiver: (answer?: Answer) => Promise<WebhookReceiver>
} {
  const temp = tempDir()
  const receivers: WebhookReceiver[] = []
  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()))
    temp.cleanup()
  })
  return {
    dataDir: join(temp.dir, 'data'),
    receivers,
    receiver: async (answer) => {
      const started = await WebhookReceiver.start(answer)
      receivers.push(started)
      return started
    },
  }
}
