import type { ExternalVendor } from '../../schemas/vendors.js'
import type { TenantDatabase } from '../tenant-database.js'
import type { LevelTable } from './level-tables.js'

/** A table whose records a taxonomy list pages through. */
export type PagedTable = LevelTable | 'skills'

const PAGE_STATEMENTS: Readonly<Record<PagedTable, string>> = {
  domains: pageStatement('domains'),
  subdomains: pageStatement('subdomains'),
  skill_clusters: pageStatement('skill_clusters'),
  skills: pageStatement('skills'),
}

function pageStatement(table: PagedTable): string {
  return `SELECT DISTINCT external_id FROM ${table}
      WHERE external_vendor = $1 AND ($2::VARCHAR IS NULL OR external_id > $2)
      ORDER BY external_id LIMIT $3`
}

/** The first `count` external_ids of a vendor's records after `startingAfter` (from the first when null). */
export async function pageIds(
  database: TenantDatabase,
  table: PagedTable,
  vendor: ExternalVendor,
  startingAfter: string | null,
  count: number,
): Promise<string[]> {
  const rows = await database.all<{ external_id: string }>(PAGE_STATEMENTS[table], [
    vendor,
    startingAfter,
    count,
  ])
  return rows.map((row) => row.external_id)
}
