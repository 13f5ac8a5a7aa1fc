import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { entityCollection } from '../../src/entities/entity-collections.js'
import {
  createEntity,
  deleteEntity,
  getEntity,
  listEntities,
  updateEntity,
} from '../../src/entities/entity-store.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { failure } from './failure.js'

const temp = tempDir()
let tenant: OpenTenant
const units = entityCollection('organisational_units')
const companies = entityCollection('companies')

beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'))
}, 60_000)
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

describe('records of a collection in the tenant database', () => {
  it('creates, reads, patches and lists records; a second create of an id is a 409', async () => {
    if (!companies) throw new Error('no companies collection')
    await createEntity(tenant, companies, { external_id: 'c-1', name: 'Acme', vat: 'NL1' })
    await createEntity(tenant, companies, { external_id: 'c-2', name: 'Initech', vat: 'NL2' })
    expect(await getEntity(tenant, companies, 'c-1')).toEqual({
      external_id: 'c-1',
      name: 'Acme',
      vat: 'NL1',
    })
    expect(
      await failure(createEntity(tenant, companies, { external_id: 'c-1', name: 'X', vat: 'NL3' })),
    ).toEqual({
      status: 409,
      descriptions: ["company 'c-1' already exists"],
    })
    expect(await updateEntity(tenant, companies, 'c-1', { name: 'Acme BV' })).toBe(true)
    expect(await updateEntity(tenant, companies, 'c-1', { name: 'Acme BV' })).toBe(false)
    expect((await getEntity(tenant, companies, 'c-1')).name).toBe('Acme BV')
    const page = await listEntities(tenant, companies, { limit: '1' })
    expect(page.records.map((record) => record.external_id)).toEqual(['c-1'])
    expect(page).toMatchObject({ has_next: true, next_starting_after: 'c-1' })
  })

  it('refuses a unit under a parent that does not exist (404), and the delete of a unit others sit under (409)', async () => {
    if (!units) throw new Error('no organisational_units collection')
    expect(
      await failure(createEntity(tenant, units, { external_id: 'u-2', name: 'Sales', parent_id: 'u-1' })),
    ).toEqual({
      status: 404,
      descriptions: ["parent_id: organisational unit 'u-1' does not exist; create it first"],
    })
    await createEntity(tenant, units, { external_id: 'u-1', name: 'Company' })
    await createEntity(tenant, units, { external_id: 'u-2', name: 'Sales', parent_id: 'u-1' })
    expect(await failure(deleteEntity(tenant, units, 'u-1'))).toEqual({
      status: 409,
      descriptions: [
        "organisational unit 'u-1' is still referred to by child units (u-2); delete them or point them elsewhere first",
      ],
    })
    await deleteEntity(tenant, units, 'u-2')
    await deleteEntity(tenant, units, 'u-1')
    expect((await failure(getEntity(tenant, units, 'u-1'))).status).toBe(404)
  })
})
