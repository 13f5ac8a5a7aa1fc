import type { GoodRow, StagedColumns } from './ingest-types.js'

export const newStagedColumns = (): StagedColumns => ({
  line: [],
  row: [],
  external_id: [],
  employee_id: [],
  event_type: [],
  timestamp: [],
  content: [],
  source: [],
})

/** Adds one checked skill event; its content as JSON text (DuckDB normalises it on merge). */
export function stageRow(columns: StagedColumns, row: GoodRow): void {
  const record = row.record
  columns.line.push(row.line)
  columns.row.push(row.row)
  columns.external_id.push(row.key)
  columns.employee_id.push(record.employee_id as string)
  columns.event_type.push(record.event_type as string)
  columns.timestamp.push(record.timestamp as string)
  columns.content.push(JSON.stringify(record.content))
  columns.source.push(record.source as string)
}
