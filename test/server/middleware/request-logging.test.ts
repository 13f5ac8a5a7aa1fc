import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../../../src/server/app-env.js'
import { requestLogging } from '../../../src/server/middleware/request-logging.js'
import type { LogEntry } from '../../../src/server/request-log.js'

describe('the request logging middleware', () => {
  const logs: LogEntry[] = []
  const app = new Hono<AppEnv>()
  app.use(
    '*',
    requestLogging((entry) => logs.push(entry)),
  )
  app.get('/:tenant/thing', (c) => {
    c.set('tenant', c.req.param('tenant'))
    return c.json({ id: c.get('requestId') })
  })

  it("keeps a valid X-Request-Id of the client, answers it, and logs the request's line with it", async () => {
    const response = await app.request('/acme/thing', { headers: { 'x-request-id': 'req-1.a:b' } })
    expect(response.headers.get('x-request-id')).toBe('req-1.a:b')
    expect(await response.json()).toEqual({ id: 'req-1.a:b' })
    expect(logs.at(-1)).toMatchObject({
      msg: 'request',
      request_id: 'req-1.a:b',
      method: 'GET',
      path: '/acme/thing',
      status: 200,
      tenant: 'acme',
    })
    expect(typeof logs.at(-1)?.ms).toBe('number')
  })

  it('gives a request without a valid id a new one', async () => {
    for (const given of [undefined, 'has space', 'x'.repeat(129)]) {
      const response = await app.request('/acme/nothing', given ? { headers: { 'x-request-id': given } } : {})
      const id = response.headers.get('x-request-id')
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/)
      expect(logs.at(-1)).toMatchObject({ request_id: id, status: 404 })
      expect(logs.at(-1)).not.toHaveProperty('tenant')
    }
  })
})
