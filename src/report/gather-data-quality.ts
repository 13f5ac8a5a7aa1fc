import { basename } from 'node:path'
import { eventsDatedAfter } from '../entities/skill-event-store.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { DataQuality } from './report-model.js'

/** Event types without a text of their own: they validate or reject a named skill. */
const WITHOUT_TEXT = new Set(['skill_profile_feedback'])

/**
 * Data quality: stored skill events per type; per type, the events that gave no skill to their
 * employee's profile (no profile skill names them as evidence: the extraction found no
 * vocabulary skill in the text, or too little to count); and the rejected rows of the last
 * nightly run (`skillhouse run`), per input file as its manifest lists them; the events dated after
 * the day profiles were derived as of.
 */
export async function gatherDataQuality(
  database: TenantDatabase,
  vendor: ExternalVendor,
  options: { derived: boolean; asOf: string },
): Promise<DataQuality> {
  const types = await database.all<{ event_type: string; events: number; without_skill: number }>(
    `WITH used AS (
       SELECT DISTINCT unnest(json_extract_string(evidence, '$[*].external_id')) AS event_id
         FROM profile_skills WHERE entity_type = 'employee' AND external_vendor = $1)
     SELECT e.event_type, count(*)::INTEGER AS events,
            (count(*) FILTER (WHERE u.event_id IS NULL))::INTEGER AS without_skill
       FROM skill_events e LEFT JOIN used u ON u.event_id = e.external_id
      GROUP BY e.event_type ORDER BY events DESC, e.event_type`,
    [vendor],
  )
  const run = await database.one<{
    run_id: string
    status: string
    started_at: Date
    finished_at: Date | null
    summary: string | null
  }>(
    `SELECT run_id, status, started_at, finished_at, summary::VARCHAR AS summary
       FROM runs WHERE kind = 'nightly' ORDER BY started_at DESC LIMIT 1`,
  )
  let lastRun: DataQuality['last_run'] = null
  if (run) {
    const files = await database.all<{
      file: string
      entity: string
      rows_read: number
      rows_rejected: number
    }>(
      `SELECT f.path AS file, f.entity, f.rows_read::INTEGER AS rows_read, f.rows_rejected::INTEGER AS rows_rejected
         FROM ingested_files f, runs r
        WHERE r.run_id = $1 AND f.finished_at >= r.started_at AND f.finished_at <= coalesce(r.finished_at, now())
        ORDER BY f.finished_at, f.path`,
      [run.run_id],
    )
    const summary = run.summary ? (JSON.parse(run.summary) as { rejected_rows?: number }) : {}
    lastRun = {
      run_id: run.run_id,
      status: run.status,
      finished_at: run.finished_at ? run.finished_at.toISOString() : null,
      rejected_rows: summary.rejected_rows ?? files.reduce((sum, file) => sum + file.rows_rejected, 0),
      files: files.map((file) => ({ ...file, file: basename(file.file) })),
    }
  }
  return {
    event_types: types.map((row) => ({
      event_type: row.event_type,
      events: row.events,
      without_skill: WITHOUT_TEXT.has(row.event_type) || !options.derived ? null : row.without_skill,
    })),
    derived: options.derived,
    future_dated: await eventsDatedAfter(database, options.asOf),
    last_run: lastRun,
  }
}
