import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { AnswerCache } from '../../src/server/answer-cache.js'
import { TenantPool } from '../../src/server/tenant-pool.js'
import { createAnalyticsTenant } from '../analytics/analytics-tenant.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { call, eventually, startTestServer, tokenFor } from './server-helpers.js'

const answer = (json: string) => ({
  status: 200 as const,
  body: Buffer.from(json),
  headers: {},
  scope: 'read' as const,
})

describe('the answer cache', () => {
  it('answers only at the version an answer was computed at, and lets the least recently used go first', () => {
    // 80 bytes: eight answers of ten bytes.
    const cache = new AnswerCache(80)
    cache.set('a', 'v1', answer('"a"......."'.slice(0, 10)))
    expect(cache.get('a', 'v1')?.body).toHaveLength(10)
    expect(cache.get('a', 'v2')).toBeUndefined()
    expect(cache.get('a', 'v1')).toBeUndefined()
    for (const key of 'bcdefghi') cache.set(key, 'v1', answer(`"${key}"`.padEnd(10, '.')))
    cache.get('b', 'v1')
    cache.set('j', 'v1', answer('"j"'.padEnd(10, '.')))
    // The least recently used (c, not b, which was just read) left to make room for j.
    expect(cache.get('b', 'v1')).toBeDefined()
    expect(cache.get('c', 'v1')).toBeUndefined()
    expect(cache.get('d', 'v1')).toBeDefined()
    expect(cache.get('j', 'v1')).toBeDefined()
  })
})

describe('answers of the server', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  afterAll(() => temp.cleanup())

  it('answers a GET again from the cache until a write changes the tenant, then afresh', async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    tenant.database.close()
    const server = await startTestServer(dataDir)
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${server.url}/acme/eu`
      const body = { external_id: 'co-1', name: 'Acme NV', vat: 'BE0123456789' }
      expect((await call(`${base}/companies`, { method: 'POST', token, body })).status).toBe(204)
      const first = await call(`${base}/companies/co-1`, { token })
      expect(first.json).toMatchObject({ name: 'Acme NV' })
      expect((await call(`${base}/companies/co-1`, { token })).text).toBe(first.text)
      const patch = { name: 'Acme Group NV' }
      expect((await call(`${base}/companies/co-1`, { method: 'PATCH', token, body: patch })).status).toBe(204)
      expect((await call(`${base}/companies/co-1`, { token })).json).toMatchObject({ name: 'Acme Group NV' })
      // A query string is part of what is asked.
      const page = await call(`${base}/companies?limit=1`, { token })
      expect(page.json).toMatchObject({ records: [{ external_id: 'co-1' }] })
      expect((await call(`${base}/companies?limit=0`, { token })).status).toBe(422)
    } finally {
      await server.close()
    }
  })

  it('answers the skill gap from the data as it is after each write, from the gap index', async () => {
    const tenant = await createAnalyticsTenant(dataDir, 'gaps')
    tenant.database.close()
    const server = await startTestServer(dataDir)
    try {
      const token = await tokenFor(dataDir, 'gaps')
      const base = `${server.url}/gaps/eu`
      const gap = (employee: string) => call(`${base}/employees/${employee}/vacancies/vac-1/gap`, { token })
      expect((await gap('e-new')).status).toBe(404)
      expect((await gap('e-deep-1')).status).toBe(200)
      const created = await call(`${base}/employees`, {
        method: 'POST',
        token,
        body: { external_id: 'e-new' },
      })
      expect(created.status).toBe(204)
      // No profile yet: every skill of the vacancy is missing, as for e-none, which has none either
      // (the background derivation may change the vacancy's profile meanwhile: both follow it).
      await eventually(async () => {
        const [fresh, none] = [await gap('e-new'), await gap('e-none')]
        return fresh.status === 200 && fresh.text === none.text && fresh.text !== '[]' ? true : undefined
      })
      expect((await call(`${base}/vacancies/vac-1`, { method: 'DELETE', token })).status).toBe(204)
      expect((await gap('e-new')).json).toEqual([
        { title: '404 Not Found', description: "vacancy 'vac-1' does not exist; create it first" },
      ])
    } finally {
      await server.close()
    }
  })

  it('runs reads beside each other and beside a derivation, but not beside a write', async () => {
    await createOpenTenant(dataDir, 'lanes').then((open) => open.database.close())
    const pool = new TenantPool(dataDir)
    const order: string[] = []
    let finish: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      finish = resolve
    })
    try {
      const derivation = pool.useForDerivation('lanes', async () => {
        order.push('derive')
        await held
        order.push('derive done')
      })
      const versionBefore = pool.version('lanes')
      // Two reads at once while the derivation holds the tenant, each on its own connection.
      const reads = await Promise.all(
        [1, 2].map((n) =>
          pool.useForReading('lanes', async (open) => {
            order.push(`read ${n}`)
            await new Promise((resolve) => setTimeout(resolve, 50))
            return open.database.connection
          }),
        ),
      )
      expect(reads[0]).not.toBe(reads[1])
      const write = pool.use('lanes', async () => {
        order.push('write')
      })
      const late = pool.useForReading('lanes', async () => {
        order.push('read 3')
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
      // The database opens on first use, so the three start in any order, but all three ran.
      expect([...order].sort()).toEqual(['derive', 'read 1', 'read 2'])
      expect(pool.version('lanes')).toBe(versionBefore)
      finish()
      await Promise.all([derivation, write, late])
      expect(order.slice(3)).toEqual(['derive done', 'write', 'read 3'])
      expect(pool.version('lanes')).not.toBe(versionBefore)
    } finally {
      finish()
      await pool.close()
    }
  })
})
