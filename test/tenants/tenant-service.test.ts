import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { listTenantsOf } from '../../src/operations/tenant-operations.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tenantDatabaseFile } from '../../src/tenants/data-directory.js'
import { TenantRegistry, verifySecret } from '../../src/tenants/tenant-registry.js'
import { createTenant, updateTenant, withTenant } from '../../src/tenants/tenant-service.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

/** The error `work` fails with. */
async function failure(work: () => Promise<unknown>): Promise<SkillhouseError> {
  try {
    await work()
  } catch (error) {
    expect(error).toBeInstanceOf(SkillhouseError)
    return error as SkillhouseError
  }
  throw new Error('expected a failure')
}

describe('createTenant', () => {
  it('registers the tenant with its first client and a database holding its settings', async () => {
    const dataDir = join(temp.dir, 'create')
    const created = await createTenant({
      dataDir,
      name: 'acme',
      region: 'us',
      origin: 'https://skills.example.com/',
      vendors: ['vendor_a'],
      languages: ['es'],
    })
    expect(created.base_url).toBe('https://skills.example.com/acme/us')
    expect(created.database).toBe(tenantDatabaseFile(dataDir, 'acme'))
    expect(created.settings.languages).toEqual(['en_uk', 'en_us', 'de', 'fr', 'nl', 'es'])
    expect(created.settings.vendors).toEqual(['vendor_default', 'vendor_a'])
    const entry = TenantRegistry.load(dataDir).get('acme')
    expect(entry.clients.map((client) => client.client_id)).toEqual([created.client_id])
    expect(verifySecret(created.client_secret, entry.clients[0]?.secret_hash as string)).toBe(true)
    // Nothing of the build is left beside the database.
    expect(readdirSync(dataDir).filter((name) => name.includes('creating'))).toEqual([])
    await withTenant(dataDir, 'acme', async (tenant) => {
      const row = await tenant.database.one<{ value: string }>(
        "SELECT value::VARCHAR AS value FROM settings WHERE key = 'base_url'",
      )
      expect(JSON.parse(row?.value as string)).toBe('https://skills.example.com/acme/us')
    })
  })

  it('refuses a second tenant of the same name with a 409', async () => {
    const dataDir = join(temp.dir, 'twice')
    await createTenant({ dataDir, name: 'acme', region: 'eu' })
    const error = await failure(() => createTenant({ dataDir, name: 'acme', region: 'eu' }))
    expect(error.status).toBe(409)
  })

  it('names the field of a bad setting with a 422, and leaves no database behind', async () => {
    const dataDir = join(temp.dir, 'bad')
    const error = await failure(() => createTenant({ dataDir, name: 'Acme Corp', region: 'eu' }))
    expect(error.status).toBe(422)
    expect(error.message).toMatch(/^`name`: must be lower-case letters/)
    const region = await failure(() => createTenant({ dataDir, name: 'acme', region: 'mars' }))
    expect(region.message).toMatch(/^`region`: /)
    expect(existsSync(tenantDatabaseFile(dataDir, 'acme'))).toBe(false)
  })

  it("refuses a language only vendor_a's vocabulary has unless vendor_a is activated", async () => {
    const dataDir = join(temp.dir, 'vendor-a')
    const error = await failure(() =>
      createTenant({ dataDir, name: 'acme', region: 'eu', languages: ['ja'] }),
    )
    expect(error.status).toBe(422)
    expect(error.message).toContain("only vendor_a's vocabulary has this language; add `vendors` vendor_a")
  })

  it('removes the database it was building when initialising fails', async () => {
    const dataDir = join(temp.dir, 'init-fails')
    await expect(
      createTenant({
        dataDir,
        name: 'acme',
        region: 'eu',
        initialise: async () => {
          throw new Error('initialising failed')
        },
      }),
    ).rejects.toThrow('initialising failed')
    expect(readdirSync(dataDir)).toEqual([])
  })
})

describe('updateTenant', () => {
  it('adds vendors and languages in tenants.json and in the database; activating them again changes nothing', async () => {
    const dataDir = join(temp.dir, 'update')
    await createTenant({ dataDir, name: 'acme', region: 'eu' })
    const settings = await updateTenant({ dataDir, name: 'acme', vendors: ['vendor_a'], languages: ['ja'] })
    expect(settings.vendors).toEqual(['vendor_default', 'vendor_a'])
    expect(settings.languages).toContain('ja')
    expect(await updateTenant({ dataDir, name: 'acme', vendors: ['vendor_a'] })).toEqual(settings)
    expect(TenantRegistry.load(dataDir).get('acme').settings).toEqual(settings)
    const database = await TenantDatabase.open(tenantDatabaseFile(dataDir, 'acme'))
    try {
      const row = await database.one<{ value: string }>(
        "SELECT value::VARCHAR AS value FROM settings WHERE key = 'vendors'",
      )
      expect(JSON.parse(row?.value as string)).toEqual(['vendor_default', 'vendor_a'])
    } finally {
      database.close()
    }
  })

  it('answers an unknown tenant with a 404 listing the known ones', async () => {
    const dataDir = join(temp.dir, 'update')
    const error = await failure(() => updateTenant({ dataDir, name: 'nobody', vendors: ['vendor_a'] }))
    expect(error.status).toBe(404)
    expect(error.message).toContain('known tenants: acme')
  })
})

describe('listTenantsOf', () => {
  it('lists every tenant by name with its region, base URL, counts and last run', async () => {
    const dataDir = join(temp.dir, 'list')
    await createTenant({ dataDir, name: 'beta', region: 'eu' })
    await createTenant({ dataDir, name: 'alpha', region: 'uk' })
    const summaries = await listTenantsOf(dataDir)
    expect(summaries.map((summary) => summary.tenant)).toEqual(['alpha', 'beta'])
    const [alpha] = summaries
    expect(alpha?.region).toBe('uk')
    expect(alpha?.counts).toMatchObject({ employees: 0, skill_events: 0, jobs: 0 })
    expect(alpha?.last_run).toBeNull()
    expect(alpha?.base_url).toBe('http://127.0.0.1:8080/alpha/uk')
  })
})
