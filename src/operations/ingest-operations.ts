import { type IngestSummary, ingestPaths } from '../ingest/ingest-paths.js'
import type { IngestFileResult } from '../ingest/ingest-types.js'
import type { CsvDelimiter } from '../ingest/read-source.js'
import type { TextEncoding } from '../ingest/text-encoding.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse ingest PATH…`; paths absolute. */
export const ingestFiles = tenantOperation(
  'ingest',
  true,
  (
    tenant,
    params: {
      paths: string[]
      entity?: string
      rejects_dir: string
      end_active_working_history: boolean
      strict: boolean
      delimiter?: CsvDelimiter
      encoding?: TextEncoding
    },
    { progress, signal },
  ): Promise<IngestSummary> =>
    ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: params.paths,
      entity: params.entity,
      rejectsDir: params.rejects_dir,
      endActiveWorkingHistory: params.end_active_working_history,
      strict: params.strict,
      ...(params.delimiter ? { delimiter: params.delimiter } : {}),
      ...(params.encoding ? { encoding: params.encoding } : {}),
      ...(signal ? { signal } : {}),
      onFile: (file) => progress.stage(`${file.kind.entity} ← ${file.path}`),
      onProgress: (_file, rows) => progress.rows(rows),
      onFileDone: (_file, result) => progress.done(ingestCounts(result)),
    }),
)

/** An input's final counts, as a progress line ends it: every row read is written, unchanged or rejected. */
export function ingestCounts(result: Omit<IngestFileResult, 'rejects'>): string {
  return `${result.rows_read} rows read, ${result.rows_inserted} new, ${result.rows_updated} updated, ${result.rows_unchanged} unchanged, ${result.rows_rejected} rejected${result.checked === 'unchanged' ? ' (ingested before)' : ''}`
}
