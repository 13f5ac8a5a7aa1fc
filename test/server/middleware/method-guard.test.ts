import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../../../src/server/app-env.js'
import { asSkillhouseError, errorResponse } from '../../../src/server/http-io.js'
import { MethodGuard, type RoutePath } from '../../../src/server/middleware/method-guard.js'
import { requestLogging } from '../../../src/server/middleware/request-logging.js'
import { silentLogger } from '../../../src/server/request-log.js'

const ROUTES: RoutePath[] = [
  { method: 'GET', path: '/employees/custom_properties' },
  { method: 'POST', path: '/employees/custom_properties' },
  { method: 'POST', path: '/employees' },
  { method: 'GET', path: '/employees' },
  { method: 'GET', path: '/employees/:external_id' },
  { method: 'DELETE', path: '/employees/:external_id' },
]

/** The routes above answering their own method and path; the guard before those with parameters. */
function guardedApp(): Hono<AppEnv> {
  const guard = new MethodGuard(ROUTES, [{ method: 'GET', path: '/healthz' }])
  const app = new Hono<AppEnv>()
  app.use('*', requestLogging(silentLogger))
  app.onError((error, c) => errorResponse(asSkillhouseError(error, c.get('requestId'))))
  app.get('/healthz', (c) => c.text('ok'))
  for (const route of ROUTES) {
    const answer = (c: { text(text: string): Response }) => c.text(`${route.method} ${route.path}`)
    const path = `/:tenant/:region${route.path}`
    if (route.path.includes(':')) app.on(route.method, path, guard.literalPathFirst(), answer)
    else app.on(route.method, path, answer)
  }
  app.notFound(guard.unmatched())
  return app
}

const descriptionOf = async (response: Response) =>
  ((await response.json()) as { description: string }[])[0]?.description

describe('the method guard', () => {
  const app = guardedApp()

  it('lets the routes answer their own methods', async () => {
    expect(await (await app.request('/acme/eu/employees/e-1')).text()).toBe('GET /employees/:external_id')
    expect(await (await app.request('/acme/eu/employees/custom_properties')).text()).toBe(
      'GET /employees/custom_properties',
    )
  })

  it('takes a path without parameters for that resource, never an item beside it (405)', async () => {
    const response = await app.request('/acme/eu/employees/custom_properties', { method: 'DELETE' })
    expect(response.status).toBe(405)
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST')
    expect(await descriptionOf(response)).toBe(
      'method DELETE is not allowed on /acme/eu/employees/custom_properties; allowed: GET, HEAD, POST',
    )
  })

  it('answers another method on a path of a route with 405 and the methods in the order GET, POST, PATCH, DELETE', async () => {
    const item = await app.request('/acme/eu/employees/e-1', { method: 'PUT' })
    expect(item.status).toBe(405)
    expect(item.headers.get('allow')).toBe('GET, HEAD, DELETE')
    expect(item.headers.get('x-request-id')).toBeTruthy()
    const collection = await app.request('/acme/eu/employees', { method: 'PATCH' })
    expect(collection.headers.get('allow')).toBe('GET, HEAD, POST')
    const root = await app.request('/healthz', { method: 'POST' })
    expect(root.status).toBe(405)
    expect(root.headers.get('allow')).toBe('GET, HEAD')
  })

  it('answers an endpoint with a trailing slash with 404 naming the endpoint', async () => {
    for (const path of ['/acme/eu/employees/', '/acme/eu/employees/custom_properties/']) {
      const response = await app.request(path)
      expect(response.status).toBe(404)
      expect(await descriptionOf(response)).toBe(
        `no endpoint ${path}; the endpoint is ${path.slice(0, -1)}, without the trailing slash`,
      )
    }
  })

  it('answers a path no route has with 404', async () => {
    const response = await app.request('/acme/eu/nothing/here')
    expect(response.status).toBe(404)
    expect(await descriptionOf(response)).toBe(
      "no endpoint /acme/eu/nothing/here; paths hang below a tenant's base URL /{tenant}/{region}",
    )
  })

  it('reads the path without parameters below any base URL', () => {
    const guard = new MethodGuard(ROUTES, [])
    expect(guard.literalMethods('/x/y/employees/custom_properties')).toEqual(['GET', 'POST'])
    expect(guard.literalMethods('/x/y/employees/custom_properties/')).toEqual(['GET', 'POST'])
    expect(guard.literalMethods('/x/y/employees/e-1')).toEqual([])
    expect(guard.literalMethods('/employees')).toEqual([])
  })
})
