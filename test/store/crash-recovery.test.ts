// A process killed after committing leaves its changes in the write-ahead log. The next process
// that opens the database replays them; whatever it does then, the indexes must find every row.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

/** Skill events committed by a process that is then killed (SIGKILL: no close, no checkpoint). */
async function killedAfterWriting(path: string): Promise<void> {
  const module = join(projectRoot(), 'dist', 'src', 'store', 'tenant-database.js')
  const script = `
    const { TenantDatabase } = await import(${JSON.stringify(module)})
    const database = await TenantDatabase.open(${JSON.stringify(path)}, { create: true })
    await database.run('CHECKPOINT')
    for (let i = 0; i < 40; i++) {
      await database.run(
        "INSERT INTO skill_events (external_id, employee_id, event_type, timestamp, source, content, content_hash, received_at, change_seq) VALUES ($1, $2, 'project', DATE '2025-03-01', 'test', '{}', 'h', now(), $3)",
        ['evt-' + i, 'e-' + (i % 4), i + 1],
      )
    }
    process.kill(process.pid, 'SIGKILL')
  `
  const child = await execa('node', ['--input-type=module', '-e', script], { reject: false })
  expect(child.signal, String(child.stderr)).toBe('SIGKILL')
}

describe('a tenant database after a crash', () => {
  it('finds every committed row by its index after a process that only looked at it', async () => {
    const path = join(temp.dir, 'crashed.duckdb')
    await killedAfterWriting(path)
    expect(existsSync(`${path}.wal`)).toBe(true)

    // A process that opens the database and closes it without touching the index (as a server
    // looking for webhook backlog at start does).
    const glance = await TenantDatabase.open(path)
    await glance.all('SELECT 1')
    glance.close()

    const database = await TenantDatabase.open(path)
    try {
      const byIndex = await database.all<{ n: number }>(
        "SELECT count(*)::INTEGER AS n FROM skill_events WHERE employee_id = 'e-1'",
      )
      const all = await database.all<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM skill_events GROUP BY employee_id ORDER BY employee_id',
      )
      expect(all.map((row) => row.n)).toEqual([10, 10, 10, 10])
      expect(byIndex[0]?.n).toBe(10)
    } finally {
      database.close()
    }
  })
})
