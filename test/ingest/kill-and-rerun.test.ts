import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const TABLES = [
  'custom_property_definitions',
  'companies',
  'organisational_units',
  'job_families',
  'jobs',
  'courses',
  'vacancies',
  'employees',
  'skill_events',
]

async function tableCounts(dataDir: string): Promise<Record<string, number>> {
  const database = await TenantDatabase.open(join(dataDir, 'kill.duckdb'))
  try {
    const counts: Record<string, number> = {}
    for (const table of TABLES)
      counts[table] = (await database.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n ?? 0
    const ids = await database.one<{ digest: string }>(
      "SELECT md5(string_agg(external_id || ':' || content_hash, ',' ORDER BY external_id)) AS digest FROM skill_events",
    )
    counts.digest = ids?.digest as unknown as number
    return counts
  } finally {
    database.close()
  }
}

describe('an ingest killed with SIGKILL halfway', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('leaves a database that opens, holds whole files only, and finishes correctly on re-run', async () => {
    const inbox = join(temp.dir, 'inbox')
    const generated = await generateTenant({ out: inbox, seed: 11, employees: 2000, events: 300_000 })
    const expectedRows = Object.fromEntries(
      generated.files.map((file) => [file.file.split('.')[0], file.rows]),
    )

    // A reference run gives what a complete ingest holds.
    const reference = join(temp.dir, 'reference')
    await runCli(['tenant', 'create', 'kill', '--region', 'eu', '--data-dir', reference])
    expect((await runCli(['ingest', inbox, '--data-dir', reference])).exitCode).toBe(0)
    const complete = await tableCounts(reference)

    const dataDir = join(temp.dir, 'killed')
    await runCli(['tenant', 'create', 'kill', '--region', 'eu', '--data-dir', dataDir])
    const child = runCli(['ingest', inbox, '--data-dir', dataDir, '--progress'])
    // Kill while the skill events, the largest file and the last one ingested, are being read
    // (by the SQL path: during its one statement).
    await new Promise<void>((resolve) => {
      let seen = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString()
        if (/progress skill_events .*: \d+ rows/.test(seen)) resolve()
      })
    })
    child.kill('SIGKILL')
    const killed = await child
    expect(killed.signal).toBe('SIGKILL')

    const after = await tableCounts(dataDir)
    for (const table of TABLES) {
      // Each file is one transaction: a table holds all of its file or none of it.
      expect([0, expectedRows[table]]).toContain(after[table])
    }

    // The kill came before the last file committed, so the re-run has work to finish.
    expect(after.skill_events).toBe(0)

    const rerun = await runCli(['ingest', inbox, '--data-dir', dataDir])
    expect(rerun.exitCode).toBe(0)
    expect(await tableCounts(dataDir)).toEqual(complete)
  })
})
