import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { localTokenVerifier, mintAccessToken } from '../../../src/auth/access-tokens.js'
import { createClient, revokeClient } from '../../../src/auth/oauth-clients.js'
import { loadOrCreateSigningKey, type SigningKey } from '../../../src/auth/signing-key.js'
import type { AppEnv } from '../../../src/server/app-env.js'
import { asSkillhouseError, errorResponse } from '../../../src/server/http-io.js'
import { authentication, requireScope } from '../../../src/server/middleware/authentication.js'
import { TenantPool } from '../../../src/server/tenant-pool.js'
import { createTenant } from '../../../src/tenants/tenant-service.js'
import { tempDir } from '../../helpers/temp-tenant.js'

describe('the authentication middleware', () => {
  const temp = tempDir()
  let pool: TenantPool
  let key: SigningKey
  const reached: [string, string][] = []

  /** An app with only the middleware and one route that shows what it learnt. */
  const appWith = (fixedOrigin?: string) => {
    const app = new Hono<AppEnv>()
    app.onError((error) => errorResponse(asSkillhouseError(error, 'test')))
    app.use(
      '/:tenant/:region/*',
      authentication({
        verifier: localTokenVerifier(key),
        resolve: (tenant, region, reveal) => pool.resolve(tenant, region, reveal),
        topLevelPaths: ['/oauth/token'],
        fixedOrigin,
        reached: (tenant, origin) => reached.push([tenant, origin]),
      }),
    )
    for (const method of ['GET', 'POST'] as const) {
      app.on(method, '/:tenant/:region/whoami', requireScope({ method, path: '/whoami' }), (c) =>
        c.json({ tenant: c.get('tenant'), base_url: c.get('baseUrl'), client: c.get('claims').sub }),
      )
    }
    app.post('/oauth/token', (c) => c.text('the token endpoint'))
    return app
  }
  const token = (tenant: string, scopes: ('read' | 'write')[] = ['read', 'write'], sub = 'client-1') =>
    mintAccessToken(key, { sub, tenant, scopes, expiresIn: 60 })
  const bearer = async (value: Promise<string> | string) => ({ authorization: `Bearer ${await value}` })
  const descriptionOf = async (response: Response) =>
    ((await response.json()) as { description: string }[])[0]?.description

  beforeAll(async () => {
    await createTenant({ dataDir: temp.dir, name: 'acme', region: 'eu' })
    await createTenant({ dataDir: temp.dir, name: 'beta', region: 'us' })
    key = await loadOrCreateSigningKey(temp.dir)
    pool = new TenantPool(temp.dir)
  })
  afterAll(async () => {
    await pool.close()
    temp.cleanup()
  })

  it('lets a valid token of the tenant through, with the tenant, its base URL and the client', async () => {
    const response = await appWith().request('/acme/eu/whoami', { headers: await bearer(token('acme')) })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      tenant: 'acme',
      base_url: 'http://localhost/acme/eu',
      client: 'client-1',
    })
    expect(reached.at(-1)).toEqual(['acme', 'http://localhost'])
  })

  it('builds the base URL on the fixed origin when there is one, and records no origin', async () => {
    const before = reached.length
    const response = await appWith('https://skills.example.com').request('/acme/eu/whoami', {
      headers: await bearer(token('acme')),
    })
    expect(await response.json()).toMatchObject({ base_url: 'https://skills.example.com/acme/eu' })
    expect(reached).toHaveLength(before)
  })

  it('answers 401 with a Bearer challenge without a token or with another scheme', async () => {
    const missing = await appWith().request('/acme/eu/whoami')
    expect(missing.status).toBe(401)
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="skillhouse"')
    expect(await descriptionOf(missing)).toContain('the Authorization header is missing')
    const basic = await appWith().request('/acme/eu/whoami', { headers: { authorization: 'Basic YTpi' } })
    expect(basic.status).toBe(401)
    expect(await descriptionOf(basic)).toBe('the Authorization header must be "Bearer <access token>"')
  })

  it('answers 401 for a token that does not verify, before it says anything of the tenant', async () => {
    const response = await appWith().request('/nobody/eu/whoami', { headers: await bearer('not-a-jwt') })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"')
  })

  it('answers 404 for an unknown tenant, and names the region only to the tenant own clients', async () => {
    const unknown = await appWith().request('/nobody/eu/whoami', { headers: await bearer(token('acme')) })
    expect(unknown.status).toBe(404)
    expect(await descriptionOf(unknown)).toContain("tenant 'nobody' does not exist")
    const own = await appWith().request('/acme/us/whoami', { headers: await bearer(token('acme')) })
    expect(own.status).toBe(404)
    const named = await descriptionOf(own)
    expect(named).toContain("region 'us'")
    expect(named).toContain('tenant acme is in region eu')
    const other = await appWith().request('/acme/us/whoami', { headers: await bearer(token('beta')) })
    expect(other.status).toBe(404)
    expect(await descriptionOf(other)).not.toContain('is in region')
  })

  it("answers 403 for another tenant's token", async () => {
    const response = await appWith().request('/beta/us/whoami', { headers: await bearer(token('acme')) })
    expect(response.status).toBe(403)
    expect(await descriptionOf(response)).toBe('the access token is for tenant acme, not for beta')
  })

  it('answers 401 for a token of a client revoked since, at once', async () => {
    const client = createClient(temp.dir, 'acme', ['read'])
    const issued = await token('acme', ['read'], client.client_id)
    expect((await appWith().request('/acme/eu/whoami', { headers: await bearer(issued) })).status).toBe(200)
    const revoked = revokeClient(temp.dir, client.client_id)
    // The pool reads tenants.json again on its next turn.
    await new Promise((resolve) => setImmediate(resolve))
    const response = await appWith().request('/acme/eu/whoami', { headers: await bearer(issued) })
    expect(response.status).toBe(401)
    expect(await descriptionOf(response)).toBe(
      `the access token's client ${client.client_id} was revoked at ${revoked.revoked_at}`,
    )
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="skillhouse", error="invalid_token"')
  })

  it('leaves the paths outside every base URL alone', async () => {
    const response = await appWith().request('/oauth/token', { method: 'POST' })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('the token endpoint')
  })

  it('answers 403 with the insufficient_scope challenge for a token without the route scope', async () => {
    const headers = await bearer(token('acme', ['read']))
    expect((await appWith().request('/acme/eu/whoami', { headers })).status).toBe(200)
    const response = await appWith().request('/acme/eu/whoami', { method: 'POST', headers })
    expect(response.status).toBe(403)
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="skillhouse", error="insufficient_scope", scope="write"',
    )
    expect(await descriptionOf(response)).toBe(
      'POST /whoami needs the write scope; the access token has read',
    )
  })
})
