import type { TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'

/**
 * The option that ends active working history (4.2, section 3 rule 3): every working_history
 * event of the employee without an end_date (and not ended before) is ended on `endDate`, the
 * date of the new event, except the new events themselves. The content stays as sent (it is the
 * event's identity); `ended_on` records the end and its change sequence makes derivation see it.
 */
export async function endActiveWorkingHistory(
  database: TenantDatabase,
  ends: { employee_id: string; end_date: string; except: string[] }[],
): Promise<number> {
  let ended = 0
  for (const end of ends) {
    const rows = await database.all<{ n: number }>(
      `UPDATE skill_events SET ended_on = $2::DATE, change_seq = nextval('change_seq')
       WHERE employee_id = $1 AND event_type = 'working_history' AND ended_on IS NULL
         AND json_extract(content, '$.end_date') IS NULL AND timestamp <= $2::DATE AND NOT list_contains($3, external_id)
       RETURNING 1 AS n`,
      [end.employee_id, end.end_date, listValue(end.except)],
    )
    ended += rows.length
  }
  return ended
}
