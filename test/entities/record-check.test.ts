import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EntityKind, entityKind } from '../../src/records/entity-kinds.js'
import { checkRecord, existingIds, lookupReferences } from '../../src/records/record-check.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { failure } from './failure.js'

const temp = tempDir()
let tenant: OpenTenant
const employees = entityKind('employees') as EntityKind

beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'))
  await tenant.database.run(
    `INSERT INTO jobs (external_id, doc, doc_hash, updated_at, change_seq)
     VALUES ('job-1', '{"external_id":"job-1","name":"Developer"}', 'h', now(), nextval('change_seq'))`,
  )
}, 60_000)
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

describe('checking one record against the tenant database', () => {
  it('finds which ids exist in a table, a job or a job family for desired functions', async () => {
    expect(await existingIds(tenant.database, 'jobs', ['job-1', 'job-2', 'job-1'])).toEqual(
      new Set(['job-1']),
    )
    expect(await existingIds(tenant.database, 'jobs_or_job_families', ['job-1', 'nope'])).toEqual(
      new Set(['job-1']),
    )
    expect(await existingIds(tenant.database, 'jobs', [])).toEqual(new Set())
    const lookup = await lookupReferences(tenant.database, [
      { path: 'job_id', target: 'jobs', id: 'job-1' },
      { path: 'organisational_unit_id', target: 'organisational_units', id: 'job-1' },
    ])
    expect(lookup.has('jobs', 'job-1')).toBe(true)
    expect(lookup.has('organisational_units', 'job-1')).toBe(false)
  })

  it('returns the record as ingest stores it, and answers 400, 422 and 404 as the spec says', async () => {
    expect(
      await checkRecord(tenant, employees, { external_id: 'e-1', job_id: 'job-1' }, 'an employee'),
    ).toEqual({
      external_id: 'e-1',
      job_id: 'job-1',
    })
    expect((await failure(checkRecord(tenant, employees, [], 'an employee'))).status).toBe(400)
    expect(
      (await failure(checkRecord(tenant, employees, { external_id: 'bad id' }, 'an employee'))).status,
    ).toBe(422)
    expect(
      await failure(checkRecord(tenant, employees, { external_id: 'e-2', job_id: 'job-9' }, 'an employee')),
    ).toEqual({
      status: 404,
      descriptions: ["job_id: job 'job-9' does not exist; create it first"],
    })
  })
})
