import { join } from 'node:path'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant, type OpenTenant, withTenant } from '../../src/tenants/tenant-service.js'

/**
 * The tenant `bench` of a benchmark: made by `skillhouse generate` (five skill events per
 * employee) in `scratch`, ingested and derived as of 2026-11-01; `then` runs on it while it is
 * open. Returns its data directory and what `then` returned.
 */
export async function benchTenant<T>(
  scratch: string,
  size: { seed: number; employees: number; jobs: number; vacancies: number },
  then: (tenant: OpenTenant) => Promise<T>,
): Promise<{ dataDir: string; result: T }> {
  const inbox = join(scratch, 'inbox')
  console.log(`  … generating a tenant of ${size.employees} employees`)
  await generateTenant({ out: inbox, ...size, events: size.employees * 5 })
  const dataDir = join(scratch, 'data')
  await createTenant({ dataDir, name: 'bench', region: 'eu', initialise: initialiseTenant })
  console.log('  … ingesting and deriving')
  const result = await withTenant(dataDir, 'bench', async (tenant) => {
    await ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: [inbox],
      rejectsDir: join(scratch, 'rejects'),
    })
    await deriveProfiles({ tenant, asOf: '2026-11-01', full: true })
    return then(tenant)
  })
  return { dataDir, result }
}

/** The body of a skill event the benchmarks POST (4.2), with its own external id. */
export function benchSkillEvent(externalId: string): string {
  return JSON.stringify({
    external_id: externalId,
    event_type: 'working_history',
    timestamp: '2026-10-01',
    content: {
      job_title: 'Data engineer',
      company: 'Initech',
      start_date: '2024-01-01',
      end_date: '2026-09-30',
      job_description: 'Wrote Python and SQL data pipelines; reviewed Kubernetes deployments.',
    },
    source: 'bench',
  })
}
