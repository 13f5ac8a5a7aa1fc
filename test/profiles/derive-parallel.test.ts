import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

describe('derivation in worker threads', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('derives the same profiles as derivation on one thread, reading every event', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 5, employees: 2500, events: 25_000 })
    const digests: string[] = []
    for (const threshold of ['0', '999999999']) {
      const dataDir = join(temp.dir, `data-${threshold}`)
      await runCli(['tenant', 'create', 'p', '--region', 'eu', '--data-dir', dataDir])
      expect((await runCli(['ingest', inbox, '--data-dir', dataDir])).exitCode).toBe(0)
      const derived = await runCli(['derive', '--as-of', '2026-06-30', '--data-dir', dataDir, '--json'], {
        env: { NO_COLOR: '1', SKILLHOUSE_PARALLEL_MIN_EMPLOYEES: threshold },
      })
      expect(derived.exitCode, String(derived.stderr)).toBe(0)
      const database = await TenantDatabase.open(join(dataDir, 'p.duckdb'))
      // Every event was read: profiles are written while the events stream (a regression once cut the stream short).
      const text = await database.one<{ bytes: number }>(
        'SELECT sum(length(content::VARCHAR)) AS bytes FROM skill_events',
      )
      expect(JSON.parse(String(derived.stdout)).text_bytes).toBe(text?.bytes)
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
