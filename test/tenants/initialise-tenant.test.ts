import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { initialiseTenant, loadDefaultVocabulary } from '../../src/tenants/initialise-tenant.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { fixturesDir } from '../../src/util/project-paths.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

describe('the default vocabulary', () => {
  it('is read from every JSON file of the embedded vocabulary, once per process', () => {
    const files = readdirSync(fixturesDir('vocabulary', 'default')).filter((name) => name.endsWith('.json'))
    const vocabulary = loadDefaultVocabulary()
    expect(vocabulary).toHaveLength(files.length)
    expect(loadDefaultVocabulary()).toBe(vocabulary)
  })
})

describe('initialiseTenant', () => {
  it('gives a new tenant the default vocabulary as vendor_default, with one taxonomy event and no skill events', async () => {
    const dataDir = join(temp.dir, 'data')
    const tenant = await createOpenTenant(dataDir, 'acme', { initialise: initialiseTenant })
    tenant.database.close()
    await withTenant(dataDir, 'acme', async (open) => {
      const skills = await open.database.one<{ n: number; vendors: number }>(
        'SELECT count(*) AS n, count(DISTINCT external_vendor) AS vendors FROM skills',
      )
      expect(skills?.n).toBeGreaterThan(100)
      expect(skills?.vendors).toBe(1)
      const vendor = await open.database.one<{ external_vendor: string }>(
        'SELECT DISTINCT external_vendor FROM skills',
      )
      expect(vendor?.external_vendor).toBe('vendor_default')
      const events = await open.database.all<{ type: string }>('SELECT type FROM outbox ORDER BY seq')
      expect(events.map((event) => event.type)).toEqual(['ai.vendor.taxonomy.updated.v1'])
    })
  })
})
