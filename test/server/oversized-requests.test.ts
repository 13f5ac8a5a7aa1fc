import { request as httpRequest } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../src/server/start-server.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { startTestServer, tokenFor } from './server-helpers.js'

/** What a client read back: the status and body, or the socket error that ended the exchange. */
interface Received {
  status?: number
  body: string
  error?: string
}

const TWO_MB = Buffer.alloc(2 * 1024 * 1024, 'a')

/**
 * POSTs 2 MB to `url` over its own connection, sent with a Content-Length or chunked (without
 * one), and reads what comes back, however the exchange ends. The body leaves in 64 KiB pieces a
 * few milliseconds apart, as over a real network: the server answers long before the last one.
 */
function postOversized(url: string, token: string, chunked: boolean): Promise<Received> {
  return new Promise((resolve) => {
    const request = httpRequest(url, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(chunked ? {} : { 'content-length': String(TWO_MB.length) }),
      },
    })
    let settled = false
    const settle = (received: Received) => {
      if (settled) return
      settled = true
      resolve(received)
    }
    request.on('response', (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (text: string) => {
        body += text
      })
      response.on('end', () => settle({ status: response.statusCode ?? 0, body }))
      response.on('error', (error) =>
        settle({ status: response.statusCode ?? 0, body, error: error.message }),
      )
    })
    request.on('error', (error) =>
      settle({ body: '', error: (error as NodeJS.ErrnoException).code ?? error.message }),
    )
    const piece = 64 * 1024
    let offset = 0
    const writeNext = () => {
      if (request.destroyed) return
      if (offset >= TWO_MB.length) {
        request.end()
        return
      }
      request.write(TWO_MB.subarray(offset, offset + piece))
      offset += piece
      setTimeout(writeNext, 25)
    }
    writeNext()
  })
}

/** Sends `head` (a request line and headers) on a raw socket and reads everything until it closes. */
function rawExchange(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

const specBody = (text: string, status: number) => {
  const body = JSON.parse(text) as { title: string; description: string }[]
  expect(Array.isArray(body), text).toBe(true)
  for (const entry of body) {
    expect(entry.title.startsWith(`${status} `), text).toBe(true)
    expect(entry.description.length, text).toBeGreaterThan(0)
  }
  return body
}

describe('requests larger than the server takes', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let token: string

  beforeAll(async () => {
    ;(await createOpenTenant(dataDir, 'acme')).database.close()
    server = await startTestServer(dataDir)
    token = await tokenFor(dataDir, 'acme')
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    temp.cleanup()
  })

  for (const chunked of [false, true]) {
    it(`answers every 2 MB body sent ${chunked ? 'chunked, without a Content-Length' : 'with a Content-Length'} with 413 and the spec's error body, never a reset`, async () => {
      const url = `${server.url}/acme/eu/companies`
      // Eight at a time, as a busy client sends them.
      const answers: Received[] = []
      for (let round = 0; round < 3; round++) {
        answers.push(
          ...(await Promise.all(Array.from({ length: 8 }, () => postOversized(url, token, chunked)))),
        )
      }
      for (const answer of answers) {
        expect(answer.error, JSON.stringify(answer)).toBeUndefined()
        expect(answer.status, answer.body).toBe(413)
        expect(specBody(answer.body, 413)[0]?.description).toContain('1048576 bytes')
      }
    }, 120_000)
  }

  it('keeps the connection of a 413 usable for the next request once the body has been sent', async () => {
    const head = (length: number, close: boolean) =>
      `POST /acme/eu/companies HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`
    const socket = connect(server.port, '127.0.0.1')
    const received: string[] = []
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => received.push(chunk))
    const ended = new Promise<void>((resolve) => socket.on('end', resolve))
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    socket.write(head(TWO_MB.length, false))
    socket.write(TWO_MB)
    socket.write(`${head(2, true)}{}`)
    await ended
    const text = received.join('')
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]))
    // The second request is read after the first's body: its own answer (400, a company needs fields).
    expect(statuses, text).toEqual([413, 400])
  }, 60_000)

  it("answers a 20,000-character URL with 431 and the spec's error body", async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const text = await rawExchange(
        server.port,
        `GET /acme/eu/employees?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      )
      const [head = '', body = ''] = text.split('\r\n\r\n')
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large')
      expect(head.toLowerCase()).toContain('content-type: application/json')
      expect(head.toLowerCase()).toContain(`content-length: ${Buffer.byteLength(body)}`)
      expect(specBody(body, 431)[0]?.description).toContain('16384')
    }
  })
})
