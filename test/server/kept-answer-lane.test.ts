import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LogEntry } from '../../src/server/request-log.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { call, errorTitles, startTestServer, tokenFor } from './server-helpers.js'

describe('GET answers kept from before, given before the app runs', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  const logs: LogEntry[] = []
  let server: RunningServer
  let base: string
  const tokens = { acme: '', writeOnly: '', beta: '' }

  beforeAll(async () => {
    for (const name of ['acme', 'beta']) (await createOpenTenant(dataDir, name)).database.close()
    server = await startTestServer(dataDir, { logs })
    base = `${server.url}/acme/eu`
    tokens.acme = await tokenFor(dataDir, 'acme')
    tokens.writeOnly = await tokenFor(dataDir, 'acme', ['write'])
    tokens.beta = await tokenFor(dataDir, 'beta')
    const body = { external_id: 'co-1', name: 'Acme NV', vat: 'BE0123456789' }
    expect((await call(`${base}/companies`, { method: 'POST', token: tokens.acme, body })).status).toBe(204)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    temp.cleanup()
  })

  it('answers again with the same bytes and headers, its own request id, and one log line each', async () => {
    const ask = (id: string) =>
      call(`${base}/companies/co-1`, { token: tokens.acme, headers: { 'x-request-id': id } })
    const first = await ask('kept-first')
    const again = await ask('kept-again')
    expect(again.text).toBe(first.text)
    expect(again.status).toBe(200)
    for (const name of ['content-type', 'content-length'])
      expect(again.headers.get(name), name).toBe(first.headers.get(name))
    expect(again.headers.get('x-request-id')).toBe('kept-again')
    const lines = logs.filter((line) => String(line.request_id).startsWith('kept-'))
    expect(lines.map(({ ms: _, ...line }) => line)).toEqual(
      ['kept-first', 'kept-again'].map((id) => ({
        msg: 'request',
        request_id: id,
        method: 'GET',
        path: '/acme/eu/companies/co-1',
        status: 200,
        tenant: 'acme',
        client: expect.any(String),
      })),
    )
  })

  it("never gives a kept answer to a request without a token, with another tenant's or without the read scope", async () => {
    const url = `${base}/companies/co-1`
    expect((await call(url, { token: tokens.acme })).status).toBe(200)
    expect((await call(url, { token: tokens.acme })).status).toBe(200)
    const refusals: [string | undefined, number][] = [
      [undefined, 401],
      [tokens.beta, 403],
      [tokens.writeOnly, 403],
      ['not-a-token', 401],
    ]
    for (const [token, status] of refusals) {
      const answer = await call(url, token ? { token } : {})
      expect(answer.status).toBe(status)
      expect(errorTitles(answer)[0]?.startsWith(`${status} `)).toBe(true)
    }
  })

  it('answers afresh once a write changed the tenant', async () => {
    const url = `${base}/companies/co-1`
    expect((await call(url, { token: tokens.acme })).json).toMatchObject({ name: 'Acme NV' })
    const patch = { name: 'Acme Group NV' }
    expect((await call(url, { method: 'PATCH', token: tokens.acme, body: patch })).status).toBe(204)
    expect((await call(url, { token: tokens.acme })).json).toMatchObject({ name: 'Acme Group NV' })
  }, 60_000)
})
