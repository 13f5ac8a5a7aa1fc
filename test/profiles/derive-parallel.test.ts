import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

describe('derivation in worker threads', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('derives the same profiles as derivation on one thread', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 5, employees: 400, events: 6000 })
    const digests: string[] = []
    for (const threshold of ['0', '999999999']) {
      const dataDir = join(temp.dir, `data-${threshold}`)
      await runCli(['tenant', 'create', 'p', '--region', 'eu', '--data-dir', dataDir])
      expect((await runCli(['ingest', inbox, '--data-dir', dataDir])).exitCode).toBe(0)
      const derived = await runCli(['derive', '--as-of', '2026-06-30', '--data-dir', dataDir], {
        env: { NO_COLOR: '1', SKILLHOUSE_PARALLEL_MIN_EMPLOYEES: threshold },
      })
      expect(derived.exitCode, String(derived.stderr)).toBe(0)
      const database = await TenantDatabase.open(join(dataDir, 'p.duckdb'))
      const row = await database.one<{ digest: string; n: number }>(
        `SELECT count(*) AS n, md5(string_agg(entity_type || entity_id || skill_id || score || proficiency_float || evidence::VARCHAR, ',' ORDER BY entity_type, entity_id, skill_id)) AS digest
         FROM profile_skills`,
      )
      database.close()
      expect(row?.n).toBeGreaterThan(1000)
      digests.push(row?.digest as string)
    }
    expect(digests[0]).toBe(digests[1])
  })
})
