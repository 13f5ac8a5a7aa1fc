import { existsSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { ENTITY_COLLECTIONS } from '../../src/entities/entity-collections.js'
import { createEntity, deleteEntity } from '../../src/entities/entity-store.js'
import { extractorFor } from '../../src/extraction/extractor-cache.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const collection = (path: string) => {
  const found = ENTITY_COLLECTIONS.find((each) => each.path === path)
  if (!found) throw new Error(`no collection ${path}`)
  return found
}

describe('the stems kept from a tenant’s texts', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('are forgotten, in memory and beside the database, when an employee is deleted', async () => {
    const tenant = await createOpenTenant(temp.dir, 'stems')
    try {
      const extractor = await extractorFor(tenant.database, 'vendor_default')
      extractor.extract('Negotiations with suppliers and accountants', { language: 'en' })
      expect(extractor.stems.size).toBeGreaterThan(0)
      const file = `${tenant.database.path}.vendor_default.stems`
      writeFileSync(file, JSON.stringify({ stamp: 'kept', stems: { en: ['accountants', 'account'] } }))

      // A job's deletion leaves them: job texts are not about a person.
      await createEntity(tenant, collection('job_architecture/jobs'), {
        external_id: 'j-1',
        title: 'Accountant',
      })
      await deleteEntity(tenant, collection('job_architecture/jobs'), 'j-1')
      expect(existsSync(file)).toBe(true)

      await createEntity(tenant, collection('employees'), { external_id: 'e-1' })
      await deleteEntity(tenant, collection('employees'), 'e-1')
      expect(existsSync(file)).toBe(false)
      expect(extractor.stems.size).toBe(0)
      // Learned again from the words read next.
      extractor.extract('Bookkeeping for several warehouses', { language: 'en' })
      expect(extractor.stems.size).toBeGreaterThan(0)
    } finally {
      tenant.database.close()
    }
  })
})
