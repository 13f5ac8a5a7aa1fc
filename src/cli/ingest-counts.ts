import type { IngestFileResult } from '../ingest/ingest-types.js'

/** An input's final counts, as a progress line ends it: every row read is written, unchanged or rejected. */
export function ingestCounts(result: Omit<IngestFileResult, 'rejects'>): string {
  return `${result.rows_read} rows read, ${result.rows_inserted} new, ${result.rows_updated} updated, ${result.rows_unchanged} unchanged, ${result.rows_rejected} rejected${result.checked === 'unchanged' ? ' (ingested before)' : ''}`
}
