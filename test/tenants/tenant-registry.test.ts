import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { tenantsFile } from '../../src/tenants/data-directory.js'
import {
  hashSecret,
  newOAuthClient,
  type TenantEntry,
  TenantRegistry,
  verifySecret,
} from '../../src/tenants/tenant-registry.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

const entry = (name: string): TenantEntry => ({
  settings: {
    name,
    region: 'eu',
    model_configuration: 'MC_2025_Q1_V1',
    vendors: ['vendor_default'],
    languages: ['en_uk'],
    features: { proficiency_matching: false, use_criticalities: false },
    created_at: '2026-01-01T00:00:00.000Z',
  },
  base_url: `http://127.0.0.1:8080/${name}/eu`,
  clients: [],
})

const dataDir = (name: string) => join(temp.dir, name)

describe('TenantRegistry', () => {
  it('is empty in a data directory without tenants.json, and the pick says how to make a tenant', () => {
    const registry = TenantRegistry.load(dataDir('none'))
    expect(registry.list()).toEqual([])
    expect(() => registry.pick(undefined)).toThrow(
      /no tenant exists in .*; run `skillhouse tenant create NAME --region R`/,
    )
  })

  it('keeps each change written by update, listed by name', () => {
    const dir = dataDir('two')
    TenantRegistry.update(dir, (registry) => registry.put(entry('zeta')))
    const returned = TenantRegistry.update(dir, (registry) => {
      registry.put(entry('alpha'))
      return 'done'
    })
    expect(returned).toBe('done')
    const registry = TenantRegistry.load(dir)
    expect(registry.list().map((item) => item.settings.name)).toEqual(['alpha', 'zeta'])
    expect(JSON.parse(readFileSync(tenantsFile(dir), 'utf8')).version).toBe(1)
  })

  it('picks the named tenant, the only one, or asks for a name among several', () => {
    const dir = dataDir('pick')
    TenantRegistry.update(dir, (registry) => registry.put(entry('solo')))
    expect(TenantRegistry.load(dir).pick(undefined).settings.name).toBe('solo')
    TenantRegistry.update(dir, (registry) => registry.put(entry('other')))
    const registry = TenantRegistry.load(dir)
    expect(registry.pick('other').settings.name).toBe('other')
    expect(() => registry.pick(undefined)).toThrow(
      'several tenants exist (other, solo): name one with --tenant NAME or SKILLHOUSE_TENANT=NAME, or make one the default with `skillhouse tenant use NAME`',
    )
    expect(() => registry.get('missing')).toThrow(/known tenants: solo, other/)
  })

  it('picks the default tenant among several, while it exists', () => {
    const dir = dataDir('default')
    TenantRegistry.update(dir, (registry) => {
      registry.put(entry('solo'))
      registry.put(entry('other'))
      registry.setDefault('solo')
    })
    expect(TenantRegistry.load(dir).pick(undefined).settings.name).toBe('solo')
    expect(TenantRegistry.load(dir).pick('other').settings.name).toBe('other')
    expect(() => TenantRegistry.update(dir, (registry) => registry.setDefault('missing'))).toThrow(
      /tenant 'missing' does not exist/,
    )
    TenantRegistry.update(dir, (registry) => registry.put(entry('third')))
    TenantRegistry.update(dir, (registry) => registry.remove('solo'))
    expect(() => TenantRegistry.load(dir).pick(undefined)).toThrow(/several tenants exist \(other, third\)/)
  })

  it('finds own entries only, never a member of Object.prototype', () => {
    const dir = dataDir('proto')
    TenantRegistry.update(dir, (registry) => registry.put(entry('acme')))
    const registry = TenantRegistry.load(dir)
    expect(registry.find('constructor')).toBeUndefined()
    expect(registry.find('acme')?.settings.name).toBe('acme')
  })

  it('removes a tenant', () => {
    const dir = dataDir('remove')
    TenantRegistry.update(dir, (registry) => {
      registry.put(entry('a'))
      registry.put(entry('b'))
    })
    TenantRegistry.update(dir, (registry) => registry.remove('a'))
    expect(
      TenantRegistry.load(dir)
        .list()
        .map((item) => item.settings.name),
    ).toEqual(['b'])
  })

  it('answers a damaged tenants.json with a 503 naming the file and what is wrong', () => {
    const notJson = dataDir('not-json')
    TenantRegistry.update(notJson, () => undefined)
    writeFileSync(tenantsFile(notJson), '{"version": 1, ')
    expect(() => TenantRegistry.load(notJson)).toThrow(
      /tenants\.json is not valid JSON .*restore it from a backup/,
    )

    const wrongShape = dataDir('wrong-shape')
    TenantRegistry.update(wrongShape, () => undefined)
    writeFileSync(tenantsFile(wrongShape), JSON.stringify({ version: 1, tenants: { acme: { base_url: 3 } } }))
    try {
      TenantRegistry.load(wrongShape)
      expect.unreachable()
    } catch (error) {
      expect((error as { status: number }).status).toBe(503)
      expect((error as Error).message).toContain(`${tenantsFile(wrongShape)} is damaged at tenants.acme.`)
    }
  })
})

describe('OAuth client secrets', () => {
  it('stores a new client secret only as a salted hash that verifies it', () => {
    const { client, secret } = newOAuthClient(['read'])
    expect(client.client_id).toMatch(/^client-[0-9a-f]{16}$/)
    expect(client.secret_hash).not.toContain(secret)
    expect(client.scopes).toEqual(['read'])
    expect(verifySecret(secret, client.secret_hash)).toBe(true)
    expect(verifySecret(`${secret}x`, client.secret_hash)).toBe(false)
  })

  it('salts each hash, and refuses a hash of another scheme', () => {
    expect(hashSecret('same')).not.toBe(hashSecret('same'))
    expect(verifySecret('same', 'plain$abc$def')).toBe(false)
    expect(verifySecret('same', 'scrypt$only-salt')).toBe(false)
  })
})
