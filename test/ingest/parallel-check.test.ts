import { appendFileSync, readFileSync, renameSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { ParallelCheckThreads } from '../../src/ingest/ingest-types.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { builtWorkerScript } from '../helpers/built-scripts.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

/**
 * The check of a file of skill events on worker threads (parallel-ndjson.ts, the compiled
 * worker script) against the check on this thread: the same events stored, the same rejects
 * with the same lines, for NDJSON and CSV.
 */
describe('skill events checked on worker threads', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  /** A tenant holding the generated records, then the events file checked with `threads`. */
  async function ingestEvents(name: string, inbox: string, file: string, threads: ParallelCheckThreads) {
    const tenant = await createOpenTenant(join(temp.dir, name), 'p')
    const options = { database: tenant.database, settings: tenant.settings, sqlPath: false }
    const records = await ingestPaths({ ...options, paths: [inbox], rejectsDir: join(temp.dir, name) })
    expect(records.rows_rejected).toBe(0)
    try {
      const summary = await ingestPaths({
        ...options,
        paths: [file],
        rejectsDir: join(temp.dir, name, 'rejects'),
        checkThreads: threads,
      })
      return { tenant, summary }
    } catch (error) {
      tenant.database.close()
      throw error
    }
  }

  const stored = (tenant: OpenTenant) =>
    tenant.database.all(
      `SELECT external_id, employee_id, event_type, strftime(timestamp, '%Y-%m-%d') AS timestamp,
              content::VARCHAR AS content, content_hash FROM skill_events ORDER BY external_id`,
    )

  it('stores the same events and rejects the same lines as the check on this thread', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 9, employees: 200, events: 3000 })
    // The events apart from the other records, which are ingested first.
    const file = join(temp.dir, 'skill_events.ndjson')
    renameSync(join(inbox, 'skill_events.ndjson'), file)
    // Lines no check lets through: bad JSON, an unknown employee, a missing field.
    appendFileSync(file, '{"external_id": "broken"\n')
    const first = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string) as Record<string, unknown>
    appendFileSync(
      file,
      `${JSON.stringify({ ...first, external_id: 'ev-stranger', employee_id: 'emp-nobody' })}\n`,
    )
    appendFileSync(
      file,
      `${JSON.stringify({ ...first, external_id: 'ev-untyped', event_type: undefined })}\n`,
    )
    const threaded = await ingestEvents('threaded', inbox, file, {
      script: builtWorkerScript('ingest/ndjson-check-worker'),
      minBytes: 0,
    })
    const here = await ingestEvents('here', inbox, file, { minBytes: Number.POSITIVE_INFINITY })
    try {
      const events = await stored(here.tenant)
      expect(events.length).toBeGreaterThan(2000)
      expect(await stored(threaded.tenant)).toEqual(events)
      const rejected = (summary: typeof here.summary) =>
        summary.files.map((entry) => ({
          read: entry.rows_read,
          rejected: entry.rows_rejected,
          rejects: entry.rejects_file ? readFileSync(entry.rejects_file, 'utf8') : null,
        }))
      expect(rejected(threaded.summary)).toEqual(rejected(here.summary))
      expect(here.summary.rows_rejected).toBe(3)
      // The threads did check the file: a script that is not there fails the ingest.
      await expect(
        ingestEvents('broken', inbox, file, {
          script: builtWorkerScript('ingest/no-such-worker'),
          minBytes: 0,
        }),
      ).rejects.toThrow()
    } finally {
      threaded.tenant.database.close()
      here.tenant.database.close()
    }
  })
})
