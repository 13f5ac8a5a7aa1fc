import { existsSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { HTTP } from 'cloudevents'
import { afterEach, describe, expect, it } from 'vitest'
import { type PreparedEvent, postCloudEvent, prepareCloudEvent } from '../../src/events/webhook-post.js'
import { sameThreadSender, ThreadSender, webhookSender } from '../../src/events/webhook-sender.js'
import { projectRoot } from '../../src/util/project-paths.js'

/**
 * One webhook request against real node:http consumers on loopback: what each kind of answer
 * (or none) means for delivery, and the same through the sender's own thread (the compiled
 * worker the server runs).
 */

const event = {
  specversion: '1.0',
  id: 'f9d1c5a2-0000-4000-8000-000000000001',
  type: 'ai.vendor.skill_profile.updated',
  source: 'http://127.0.0.1/acme/eu/employees/e-1/skill_profile',
  time: '2026-11-21T10:00:00.000Z',
  datacontenttype: 'application/json',
  data: { employee_id: 'e-1' },
}

type Handler = (request: IncomingMessage, response: ServerResponse, index: number) => void

const servers: Server[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A consumer that reads each request whole, then answers as `handle` says. */
async function consumer(handle: Handler): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'))
      handle(request, response, bodies.length - 1)
    })
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, bodies, server }
}

const answer =
  (status: number, body = '') =>
  (_: IncomingMessage, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'text/plain' })
    response.end(body)
  }

describe('one webhook request', () => {
  it('POSTs the event in structured mode and takes a 2XX as delivered', async () => {
    const target = await consumer(answer(204))
    const outcome = await postCloudEvent(target.url, event, { timeoutMs: 2000 })
    expect(outcome).toEqual({ ok: true, status: 204, error: null, consumerDown: false })
    const received = HTTP.toEvent({
      headers: { 'content-type': 'application/cloudevents+json; charset=utf-8' },
      body: target.bodies[0] as string,
    })
    expect(received).toMatchObject({ id: event.id, type: event.type, data: event.data })
  })

  it('tells a refused payload (4XX of the event) from a consumer that is down, with the start of its answer', async () => {
    const refused = await consumer(answer(422, 'bad event'))
    expect(await postCloudEvent(refused.url, event, { timeoutMs: 2000 })).toEqual({
      ok: false,
      status: 422,
      error: 'answered 422: bad event',
      consumerDown: false,
    })
    const failing = await consumer(answer(503, `${'overloaded '.repeat(100)}`))
    const outcome = await postCloudEvent(failing.url, event, { timeoutMs: 2000 })
    expect(outcome).toMatchObject({ ok: false, status: 503, consumerDown: true })
    // The excerpt is bounded: 200 characters and an ellipsis.
    expect(outcome.error).toBe(
      `answered 503: ${'overloaded '.repeat(100).replace(/\s+/g, ' ').slice(0, 200)}…`,
    )
  })

  it('does not follow a redirect: the consumer answers where it subscribed', async () => {
    const elsewhere = await consumer(answer(204))
    const moved = await consumer((_, response) => {
      response.writeHead(307, { location: elsewhere.url })
      response.end()
    })
    expect(await postCloudEvent(moved.url, event, { timeoutMs: 2000 })).toMatchObject({
      ok: false,
      status: 307,
      consumerDown: true,
    })
    expect(elsewhere.bodies).toHaveLength(0)
  })

  it('reports a consumer that does not answer in time, and one that refuses connections', async () => {
    const hung = await consumer(() => undefined)
    const started = Date.now()
    expect(await postCloudEvent(hung.url, event, { timeoutMs: 300 })).toEqual({
      ok: false,
      status: null,
      error: 'no answer within 300 ms',
      consumerDown: true,
    })
    expect(Date.now() - started).toBeLessThan(5000)
    const gone = await consumer(answer(204))
    gone.server.close()
    gone.server.closeAllConnections()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await postCloudEvent(gone.url, event, { timeoutMs: 2000 })).toEqual({
      ok: false,
      status: null,
      error: 'no answer: ECONNREFUSED',
      consumerDown: true,
    })
  })

  it('acknowledges nothing when a 2XX answer is cut off before its end', async () => {
    const cut = await consumer((_, response) => {
      response.writeHead(200, { 'content-length': '1000' })
      response.write('partial')
      setTimeout(() => response.socket?.destroy(), 20)
    })
    const outcome = await postCloudEvent(cut.url, event, { timeoutMs: 2000 })
    expect(outcome).toMatchObject({ ok: false, status: null, consumerDown: true })
  })

  it('sends again, once, a request whose connection the consumer closed under it', async () => {
    // As a consumer does that closes an idle kept connection just as a request goes out on it.
    const closing = await consumer((request, response, index) => {
      if (index === 1) request.socket.destroy()
      else answer(204)(request, response)
    })
    expect((await postCloudEvent(closing.url, event, { timeoutMs: 2000 })).ok).toBe(true)
    expect((await postCloudEvent(closing.url, event, { timeoutMs: 2000 })).ok).toBe(true)
    // The second event went twice: on the closed connection, then on a new one.
    expect(closing.bodies).toHaveLength(3)

    const alwaysClosing = await consumer((request) => request.socket.destroy())
    const outcome = await postCloudEvent(alwaysClosing.url, event, { timeoutMs: 2000 })
    expect(outcome).toEqual({
      ok: false,
      status: null,
      error: 'no answer: other side closed',
      consumerDown: true,
    })
    expect(alwaysClosing.bodies).toHaveLength(2)
  })
})

/** The sender thread's compiled module: the suite builds before it tests. */
const WORKER = pathToFileURL(join(projectRoot(), 'dist', 'src', 'events', 'webhook-sender-worker.js'))

describe.runIf(existsSync(WORKER))('webhook requests on a thread of their own', () => {
  const prepared: PreparedEvent = prepareCloudEvent(event)

  it('sends the runs of many lanes at once, each in order, and stops a run at a consumer that is down', async () => {
    const ok = await consumer(answer(204))
    const refusing = await consumer((request, response, index) =>
      answer(index === 1 ? 422 : 204)(request, response),
    )
    const failing = await consumer(answer(500, 'down'))
    const sender = new ThreadSender(WORKER)
    try {
      const run = Array.from({ length: 5 }, () => prepared)
      const [toOk, toRefusing, toFailing] = await Promise.all(
        [ok, refusing, failing].map((target) => sender.send(target.url, run, { timeoutMs: 2000 })),
      )
      const delivered = { ok: true, status: 204, error: null, consumerDown: false }
      expect(toOk).toEqual(run.map(() => delivered))
      expect(ok.bodies).toEqual(run.map((event) => event.body))
      // A refused payload is that event's failure: the run goes on.
      expect(toRefusing).toEqual([
        delivered,
        { ok: false, status: 422, error: 'answered 422', consumerDown: false },
        delivered,
        delivered,
        delivered,
      ])
      // A consumer that is down: the run ends at its first failure.
      expect(toFailing).toEqual([{ ok: false, status: 500, error: 'answered 500: down', consumerDown: true }])
      expect(failing.bodies).toHaveLength(1)
    } finally {
      await sender.close()
    }
  })

  it('gives the outcomes of the sender on the calling thread', async () => {
    const refusing = await consumer((request, response, index) =>
      answer(index % 2 === 1 ? 422 : 204)(request, response),
    )
    const run = Array.from({ length: 4 }, () => prepared)
    const threaded = webhookSender(WORKER)
    const here = sameThreadSender()
    try {
      expect(threaded).toBeInstanceOf(ThreadSender)
      const outcomes = await threaded.send(refusing.url, run, { timeoutMs: 2000 })
      expect(outcomes.map((outcome) => outcome.status)).toEqual([204, 422, 204, 422])
      expect(await here.send(refusing.url, run, { timeoutMs: 2000 })).toEqual(outcomes)
    } finally {
      await threaded.close()
    }
  })

  it('ends each run after its request in flight once told to stop sending', async () => {
    const slow = await consumer((request, response) => setTimeout(() => answer(204)(request, response), 300))
    const sender = new ThreadSender(WORKER)
    try {
      const running = sender.send(
        slow.url,
        Array.from({ length: 10 }, () => prepared),
        { timeoutMs: 2000 },
      )
      await new Promise((resolve) => setTimeout(resolve, 100))
      sender.stopSending()
      expect((await running).map((outcome) => outcome.ok)).toEqual([true])
      expect(slow.bodies).toHaveLength(1)
    } finally {
      await sender.close()
    }
  })

  it('answers a run in flight when it is closed, and starts a new thread for the next', async () => {
    const hung = await consumer(() => undefined)
    const ok = await consumer(answer(204))
    const sender = new ThreadSender(WORKER)
    try {
      const inFlight = sender.send(hung.url, [prepared, prepared], { timeoutMs: 60_000 })
      await new Promise((resolve) => setTimeout(resolve, 200))
      await sender.close()
      expect(await inFlight).toEqual([
        { ok: false, status: null, error: 'the delivery thread was stopped', consumerDown: true },
      ])
      expect(await sender.send(ok.url, [prepared], { timeoutMs: 2000 })).toMatchObject([{ ok: true }])
    } finally {
      await sender.close()
    }
  })
})
