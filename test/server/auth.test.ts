import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApiRoute } from '../../src/api/api-route.js'
import { mintAccessToken } from '../../src/auth/access-tokens.js'
import { createClient, revokeClient } from '../../src/auth/oauth-clients.js'
import { loadOrCreateSigningKey } from '../../src/auth/signing-key.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { type ApiAnswer, call, errorTitles, startTestServer, tokenFor } from './server-helpers.js'

/** A concrete path of a route: every parameter named `x`. */
const pathOf = (route: ApiRoute) => route.path.replace(/:[a-z_]+/g, 'x')
const scopeOf = (route: ApiRoute) => route.scope ?? (route.method === 'GET' ? 'read' : 'write')

function expectError(answer: ApiAnswer, status: number, label: string) {
  expect(answer.status, `${label}: ${answer.text}`).toBe(status)
  expect(errorTitles(answer)[0]).toMatch(new RegExp(`^${status} `))
}

describe('access tokens on every route', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let base: string
  const tokens = { good: '', read: '', write: '', otherTenant: '', expired: '', forged: '' }

  beforeAll(async () => {
    for (const name of ['acme', 'beta']) (await createOpenTenant(dataDir, name)).database.close()
    server = await startTestServer(dataDir)
    base = `${server.url}/acme/eu`
    const key = await loadOrCreateSigningKey(dataDir)
    const foreign = await generateKeyPair('ES256')
    tokens.good = await tokenFor(dataDir, 'acme')
    tokens.read = await tokenFor(dataDir, 'acme', ['read'])
    tokens.write = await tokenFor(dataDir, 'acme', ['write'])
    tokens.otherTenant = await tokenFor(dataDir, 'beta')
    tokens.expired = await mintAccessToken(key, {
      sub: 't',
      tenant: 'acme',
      scopes: ['read', 'write'],
      expiresIn: -60,
    })
    // Right claims and key id, wrong key: the signature does not verify.
    tokens.forged = await new SignJWT({ tenant: 'acme', scope: 'read write' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer('skillhouse')
      .setSubject('t')
      .setExpirationTime('5m')
      .sign(foreign.privateKey)
  })
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  it('registers the endpoints of sections 4.1–4.13 and the resource pattern under the base URL', () => {
    const paths = server.app.routes.map((route) => `${route.method} ${route.path}`)
    for (const expected of [
      'POST /taxonomy/domains',
      'POST /employees/:employee_external_id/skill_events',
      'POST /companies',
      'POST /job_architecture/changes/preview',
      'GET /job_architecture/changes/:change_id',
      'GET /employees/:employee_external_id/vacancies/:vacancy_external_id/gap',
      'GET /organisational_units/export',
      'GET /taxonomy/subdomains/:external_id',
      'GET /employees/custom_properties',
      'POST /vacancies/custom_properties',
      'GET /skill_clusters/metrics/count',
      'GET /employees/:external_id/skill_profile',
      'GET /job_architecture/jobs/:external_id/skill_profile',
      'GET /courses/:external_id/skill_profile',
      'GET /taxonomy/skills/:external_id',
      'GET /taxonomy/skills/languages',
      'POST /taxonomy/changes',
      'GET /job_architecture/job_families',
      'PATCH /organisational_units/:external_id',
      'DELETE /vacancies/:external_id',
    ]) {
      expect(paths).toContain(expected)
    }
  })

  it('refuses a request without a token, or with a malformed, expired or forged one, with 401 on every route', async () => {
    for (const route of server.app.routes) {
      const url = `${base}${pathOf(route)}`
      const label = `${route.method} ${route.path}`
      const missing = await call(url, { method: route.method })
      expectError(missing, 401, `${label} without a token`)
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/)
      expectError(await call(url, { method: route.method, token: 'not-a-jwt' }), 401, `${label} malformed`)
      expectError(
        await call(url, { method: route.method, headers: { authorization: `Basic ${tokens.good}` } }),
        401,
        `${label} other scheme`,
      )
      expectError(await call(url, { method: route.method, token: tokens.expired }), 401, `${label} expired`)
      expectError(await call(url, { method: route.method, token: tokens.forged }), 401, `${label} forged`)
    }
  })

  it("refuses another tenant's token with 403 on every route", async () => {
    for (const route of server.app.routes) {
      const answer = await call(`${base}${pathOf(route)}`, {
        method: route.method,
        token: tokens.otherTenant,
      })
      expectError(answer, 403, `${route.method} ${route.path}`)
      expect((answer.json as { description: string }[])[0]?.description).toContain(
        'for tenant beta, not for acme',
      )
    }
  })

  it('refuses a token without the scope of the route with 403, and lets one with it through', async () => {
    for (const route of server.app.routes) {
      const url = `${base}${pathOf(route)}`
      const label = `${route.method} ${route.path}`
      const needed = scopeOf(route)
      const lacking = needed === 'read' ? tokens.write : tokens.read
      const refused = await call(url, { method: route.method, token: lacking })
      expectError(refused, 403, `${label} without ${needed}`)
      expect(refused.headers.get('www-authenticate')).toContain(`scope="${needed}"`)
      const allowed = await call(url, {
        method: route.method,
        token: needed === 'read' ? tokens.read : tokens.write,
      })
      expect([401, 403], `${label} with ${needed}: ${allowed.text}`).not.toContain(allowed.status)
    }
  })

  it('answers an unknown tenant, a tenant in another region and a known tenant alike without a token: the same 401', async () => {
    const answers = await Promise.all(
      ['/nobody/eu/employees', '/acme/us/employees', '/acme/eu/employees'].map((path) =>
        call(`${server.url}${path}`),
      ),
    )
    for (const answer of answers) expectError(answer, 401, 'no token')
    const [unknown, otherRegion, known] = answers as [ApiAnswer, ApiAnswer, ApiAnswer]
    expect(otherRegion.json).toEqual(known.json)
    expect(unknown.json).toEqual(known.json)
    expect(otherRegion.headers.get('www-authenticate')).toBe(known.headers.get('www-authenticate'))
    expect(`${unknown.text}${otherRegion.text}`).not.toMatch(/region eu|nobody|acme/)
  })

  it('answers 404 for an unknown tenant or region once the token is valid, naming the region only to the tenant itself', async () => {
    const unknownTenant = await call(`${server.url}/nobody/eu/employees`, { token: tokens.good })
    expectError(unknownTenant, 404, 'unknown tenant')
    expect(unknownTenant.text).toContain("tenant 'nobody' does not exist")
    const wrongRegion = await call(`${server.url}/acme/us/employees`, { token: tokens.good })
    expectError(wrongRegion, 404, 'wrong region')
    expect(wrongRegion.text).toContain('/acme/eu')
    const othersRegion = await call(`${server.url}/acme/us/employees`, { token: tokens.otherTenant })
    expectError(othersRegion, 404, "another tenant's client, wrong region")
    expect(othersRegion.text).not.toContain('/acme/eu')
  })

  it('serves /healthz without a token', async () => {
    const answer = await call(`${server.url}/healthz`)
    expect(answer.status).toBe(200)
    expect(answer.json).toMatchObject({ status: 'ok' })
  })
})

describe('POST /oauth/token (client credentials)', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let client: { client_id: string; client_secret: string }
  let readOnly: { client_id: string; client_secret: string }

  beforeAll(async () => {
    ;(await createOpenTenant(dataDir, 'acme')).database.close()
    client = createClient(dataDir, 'acme', [])
    readOnly = createClient(dataDir, 'acme', ['read'])
    server = await startTestServer(dataDir)
  })
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  const tokenUrl = () => `${server.url}/oauth/token`
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })

  it('issues a bearer token for a form request that works on the tenant', async () => {
    const answer = await call(
      tokenUrl(),
      form({
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
      }),
    )
    expect(answer.status).toBe(200)
    expect(answer.headers.get('cache-control')).toBe('no-store')
    const token = answer.json as {
      access_token: string
      token_type: string
      expires_in: number
      scope: string
    }
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' })
    const languages = await call(`${server.url}/acme/eu/taxonomy/skills/languages`, {
      token: token.access_token,
    })
    expect(languages.status).toBe(200)
  })

  it('accepts JSON bodies and HTTP Basic client credentials', async () => {
    const json = await call(tokenUrl(), {
      method: 'POST',
      body: {
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
      },
    })
    expect(json.status).toBe(200)
    const basic = await call(tokenUrl(), {
      ...form({ grant_type: 'client_credentials' }),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      },
    })
    expect(basic.status).toBe(200)
  })

  it('narrows the token to the scope asked for', async () => {
    const answer = await call(
      tokenUrl(),
      form({
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
        scope: 'read',
      }),
    )
    const token = answer.json as { access_token: string; scope: string }
    expect(token.scope).toBe('read')
    const write = await call(`${server.url}/acme/eu/companies`, {
      method: 'POST',
      token: token.access_token,
      body: { external_id: 'c1', name: 'C', vat: 'BE1' },
    })
    expect(write.status).toBe(403)
  })

  it('answers 400 for another grant, missing credentials or a scope the client lacks, 401 for wrong credentials, 415 for other content', async () => {
    const good = { client_id: client.client_id, client_secret: client.client_secret }
    expectError(await call(tokenUrl(), form({ grant_type: 'password', ...good })), 400, 'grant type')
    expectError(
      await call(tokenUrl(), form({ grant_type: 'client_credentials' })),
      400,
      'missing credentials',
    )
    expectError(
      await call(tokenUrl(), form({ grant_type: 'client_credentials', ...good, scope: 'admin' })),
      400,
      'unknown scope',
    )
    expectError(
      await call(
        tokenUrl(),
        form({
          grant_type: 'client_credentials',
          client_id: readOnly.client_id,
          client_secret: readOnly.client_secret,
          scope: 'write',
        }),
      ),
      400,
      'scope beyond the client',
    )
    const wrong = await call(
      tokenUrl(),
      form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'nope' }),
    )
    expectError(wrong, 401, 'wrong secret')
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/)
    expectError(
      await call(
        tokenUrl(),
        form({ grant_type: 'client_credentials', client_id: 'client-unknown', client_secret: 'x' }),
      ),
      401,
      'unknown client',
    )
    expectError(
      await call(tokenUrl(), {
        method: 'POST',
        body: 'grant_type=client_credentials',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'content type',
    )
    expectError(await call(tokenUrl()), 405, 'GET')
  })

  it("refuses a revoked client's secret and the tokens it already has with 401", async () => {
    const victim = createClient(dataDir, 'acme', [])
    const issued = await call(
      tokenUrl(),
      form({
        grant_type: 'client_credentials',
        client_id: victim.client_id,
        client_secret: victim.client_secret,
      }),
    )
    const token = (issued.json as { access_token: string }).access_token
    expect((await call(`${server.url}/acme/eu/employees`, { token })).status).toBe(200)
    revokeClient(dataDir, victim.client_id)
    expectError(await call(`${server.url}/acme/eu/employees`, { token }), 401, 'revoked token')
    expectError(
      await call(
        tokenUrl(),
        form({
          grant_type: 'client_credentials',
          client_id: victim.client_id,
          client_secret: victim.client_secret,
        }),
      ),
      401,
      'revoked client',
    )
  })
})

describe('tokens of an external authorization server (--jwks-file)', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let external: CryptoKey

  beforeAll(async () => {
    // `remote` is served only by the second server below: one process, one open database per file.
    for (const name of ['acme', 'remote']) (await createOpenTenant(dataDir, name)).database.close()
    const pair = await generateKeyPair('RS256')
    external = pair.privateKey
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }
    const jwksFile = join(temp.dir, 'jwks.json')
    writeFileSync(jwksFile, JSON.stringify({ keys: [jwk] }))
    server = await startTestServer(dataDir, { jwks: { jwksFile, issuer: 'https://idp.example' } })
  })
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  const externalToken = (claims: Record<string, unknown>, issuer = 'https://idp.example') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' })
      .setIssuer(issuer)
      .setSubject('svc-1')
      .setExpirationTime('5m')
      .sign(external)

  it('accepts its tokens with the tenant claim and scp or scope', async () => {
    const url = `${server.url}/acme/eu/taxonomy/skills/languages`
    expect((await call(url, { token: await externalToken({ tenant: 'acme', scp: ['read'] }) })).status).toBe(
      200,
    )
    expect(
      (await call(url, { token: await externalToken({ tenant: 'acme', scope: 'read write' }) })).status,
    ).toBe(200)
  })

  it('refuses its tokens for another issuer, the server key, and tokens without scope or tenant', async () => {
    const url = `${server.url}/acme/eu/taxonomy/skills/languages`
    expectError(
      await call(url, {
        token: await externalToken({ tenant: 'acme', scp: 'read' }, 'https://evil.example'),
      }),
      401,
      'issuer',
    )
    expectError(await call(url, { token: await tokenFor(dataDir, 'acme') }), 401, 'own key')
    expectError(await call(url, { token: await externalToken({ scp: 'read' }) }), 401, 'no tenant')
    expectError(await call(url, { token: await externalToken({ tenant: 'acme' }) }), 403, 'no scope')
  })

  it('fetches the key set from --jwks-url', async () => {
    const keys = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(readFileSync(join(temp.dir, 'jwks.json')))
    })
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', () => resolve()))
    const jwksUrl = `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks.json`
    const remote = await startTestServer(dataDir, { jwks: { jwksUrl } })
    try {
      const url = `${remote.url}/remote/eu/taxonomy/skills/languages`
      expect(
        (await call(url, { token: await externalToken({ tenant: 'remote', scp: 'read' }) })).status,
      ).toBe(200)
      expectError(await call(url, { token: await tokenFor(dataDir, 'remote') }), 401, 'own key')
    } finally {
      await remote.close()
      keys.close()
    }
  })

  it('does not issue tokens itself', async () => {
    const answer = await call(`${server.url}/oauth/token`, {
      method: 'POST',
      body: { grant_type: 'client_credentials' },
    })
    expectError(answer, 404, 'token endpoint')
  })
})
