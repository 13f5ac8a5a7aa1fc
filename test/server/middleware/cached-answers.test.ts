import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { AnswerCache } from '../../../src/server/answer-cache.js'
import { type AppEnv, idHeader } from '../../../src/server/app-env.js'
import { asSkillhouseError, errorResponse, jsonResponse } from '../../../src/server/http-io.js'
import { cachedAnswers } from '../../../src/server/middleware/cached-answers.js'
import { requestLogging } from '../../../src/server/middleware/request-logging.js'
import { silentLogger } from '../../../src/server/request-log.js'

/**
 * An app whose one GET route counts the answers it computes: `/acme/items/:id` answers the id and
 * the count, `missing` answers 404. The tenant's data version is `state.version`.
 */
function countingApp(state: { version: string; computed: number }) {
  const app = new Hono<AppEnv>()
  app.use('*', requestLogging(silentLogger))
  app.onError((error, c) => errorResponse(asSkillhouseError(error, c.get('requestId'))))
  app.use('/:tenant/*', async (c, next) => {
    c.set('tenant', c.req.param('tenant') ?? '')
    return next()
  })
  const route = { method: 'GET' as const, headers: { Deprecation: '@1735689600' } }
  app.get(
    '/:tenant/items/:id',
    cachedAnswers(route, new AnswerCache(1024), () => state.version),
    async (c) => {
      state.computed++
      if (c.req.param('id') === 'missing') return errorResponse(asSkillhouseError(new Error('gone'), 'x'))
      const result = {
        status: 200 as const,
        json: JSON.stringify({ id: c.req.param('id'), computed: state.computed }),
      }
      c.set('routeResult', result)
      return jsonResponse(result.json, 200, { ...route.headers, ...idHeader(c) })
    },
  )
  return app
}

describe('the answer cache middleware', () => {
  it('answers a GET again as it was while the tenant version holds, with the new request id', async () => {
    const state = { version: 'v1', computed: 0 }
    const app = countingApp(state)
    const first = await app.request('/acme/items/a', { headers: { 'x-request-id': 'first' } })
    const again = await app.request('/acme/items/a', { headers: { 'x-request-id': 'again' } })
    expect(state.computed).toBe(1)
    const text = await first.text()
    expect(await again.text()).toBe(text)
    expect(again.status).toBe(200)
    expect(again.headers.get('content-type')).toBe('application/json')
    expect(again.headers.get('deprecation')).toBe('@1735689600')
    expect(again.headers.get('x-request-id')).toBe('again')
  })

  it('computes the answer again once the version moves on, and for another URL or tenant', async () => {
    const state = { version: 'v1', computed: 0 }
    const app = countingApp(state)
    await app.request('/acme/items/a')
    state.version = 'v2'
    expect(await (await app.request('/acme/items/a')).json()).toEqual({ id: 'a', computed: 2 })
    expect(await (await app.request('/acme/items/a?x=1')).json()).toEqual({ id: 'a', computed: 3 })
    expect(await (await app.request('/beta/items/a')).json()).toEqual({ id: 'a', computed: 4 })
    expect(await (await app.request('/acme/items/a')).json()).toEqual({ id: 'a', computed: 2 })
    expect(state.computed).toBe(4)
  })

  it('keeps no answer the route did not hand on as a 200', async () => {
    const state = { version: 'v1', computed: 0 }
    const app = countingApp(state)
    expect((await app.request('/acme/items/missing')).status).toBe(500)
    expect((await app.request('/acme/items/missing')).status).toBe(500)
    expect(state.computed).toBe(2)
  })
})
