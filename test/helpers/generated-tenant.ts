import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { type GenerateOptions, generateTenant } from '../../src/generate/generate-tenant.js'
import { importPostalCodes } from '../../src/geo/postal-codes.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir, testFixture } from './temp-tenant.js'

/**
 * The tenant `gen` in `dir`: written by `generateTenant` with `size`, given the test postal codes
 * first when `postalCodes` is set, ingested and derived in full as of 2026-06-30. Answers it open,
 * with its employees' ids in order.
 */
export async function derivedGeneratedTenant(
  dir: string,
  size: Omit<GenerateOptions, 'out'>,
  options: { postalCodes?: boolean } = {},
): Promise<{ tenant: OpenTenant; employees: string[] }> {
  const inbox = join(dir, 'inbox')
  await generateTenant({ out: inbox, ...size })
  const tenant = await createOpenTenant(join(dir, 'data'), 'gen')
  if (options.postalCodes) await importPostalCodes(tenant.database, [testFixture('geo', 'postal-codes.csv')])
  await ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths: [inbox],
    rejectsDir: join(dir, 'rejects'),
  })
  await deriveProfiles({ tenant, asOf: '2026-06-30', full: true })
  const employees = (
    await tenant.database.all<{ id: string }>('SELECT external_id AS id FROM employees ORDER BY id')
  ).map((row) => row.id)
  return { tenant, employees }
}

/**
 * The generated tenant of a describe block (see derivedGeneratedTenant): made in a temp folder
 * before its tests, closed and removed after them. Its fields are set once the tests run.
 */
export function generatedTenantForSuite(
  size: Omit<GenerateOptions, 'out'>,
  options: { postalCodes?: boolean } = {},
): { tenant: OpenTenant; employees: string[] } {
  const temp = tempDir()
  const suite = {} as { tenant: OpenTenant; employees: string[] }
  beforeAll(async () => {
    Object.assign(suite, await derivedGeneratedTenant(temp.dir, size, options))
  }, 180_000)
  afterAll(() => {
    suite.tenant?.database.close()
    temp.cleanup()
  })
  return suite
}
