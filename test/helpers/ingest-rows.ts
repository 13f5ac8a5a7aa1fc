import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'vitest'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'

let fileNumber = 0

/** Writes `rows` as an NDJSON file of `entity` in `dir` and ingests it; fails the test on any reject. */
export async function ingestRows(
  tenant: OpenTenant,
  dir: string,
  entity: string,
  rows: unknown[],
  options: { endActiveWorkingHistory?: boolean } = {},
): Promise<void> {
  const path = join(dir, `${entity}.${++fileNumber}.ndjson`)
  writeFileSync(path, rows.map((row) => JSON.stringify(row)).join('\n'))
  const summary = await ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths: [path],
    rejectsDir: join(dir, 'rejects'),
    ...options,
  })
  expect(summary.rows_rejected, JSON.stringify(summary.files[0])).toBe(0)
}

/** A skill event row of a data file. */
export const eventRow = (
  employee: string,
  id: string,
  type: string,
  timestamp: string,
  content: object,
  source = 'test',
) => ({ employee_id: employee, external_id: id, event_type: type, timestamp, content, source })
