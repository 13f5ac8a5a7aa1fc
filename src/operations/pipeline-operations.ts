import type { CsvDelimiter } from '../ingest/read-source.js'
import type { TextEncoding } from '../ingest/text-encoding.js'
import { runDemoJob } from '../pipeline/demo-tenant.js'
import { type RunManifest, runNightly } from '../pipeline/nightly-run.js'
import type { TabularFormat } from '../pipeline/tabular-output.js'
import { type DeriveResult, deriveProfiles } from '../profiles/derive.js'
import { ingestCounts } from './ingest-operations.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse run`: the nightly job; paths absolute. */
export const nightlyRun = tenantOperation(
  'run',
  true,
  (
    tenant,
    params: {
      inbox: string
      out: string
      as_of?: string
      format: 'json' | TabularFormat
      delimiter?: CsvDelimiter
      encoding?: TextEncoding
    },
    { progress, signal },
  ): Promise<RunManifest> =>
    runNightly({
      tenant,
      inbox: params.inbox,
      out: params.out,
      format: params.format,
      ...(params.as_of ? { asOf: params.as_of } : {}),
      ...(params.delimiter ? { delimiter: params.delimiter } : {}),
      ...(params.encoding ? { encoding: params.encoding } : {}),
      ...(signal ? { signal } : {}),
      onStage: (stage) => progress.stage(`stage ${stage}`),
      onIngestFile: (file) => progress.stage(`stage ingest: ${file.kind.entity} ← ${file.path}`),
      onIngestRows: (rows) => progress.rows(rows),
      onIngestFileDone: (result) => progress.done(ingestCounts(result)),
    }),
)

/** `skillhouse derive`: profiles from what changed (or everything, `full`). */
export const deriveTenantProfiles = tenantOperation(
  'derive',
  true,
  (tenant, params: { as_of?: string; full: boolean }, { progress }): Promise<DeriveResult> => {
    let current = ''
    return deriveProfiles({
      tenant,
      ...(params.as_of ? { asOf: params.as_of } : {}),
      ...(params.full ? { full: true } : {}),
      onProgress: (stage, done, total) => {
        if (stage !== current) {
          current = stage
          progress.stage(`${stage} (${total.toLocaleString('en')})`)
        }
        progress.rows(done)
      },
    })
  },
)

/** `skillhouse demo`: the demo's nightly job on the demo tenant; `out` absolute. */
export const demoRun = tenantOperation(
  'demo',
  true,
  (tenant, params: { out: string; as_of?: string }, { progress, signal }): Promise<RunManifest> =>
    runDemoJob(tenant, {
      out: params.out,
      ...(params.as_of ? { asOf: params.as_of } : {}),
      ...(signal ? { signal } : {}),
      onStage: (stage) => progress.stage(`nightly job: ${stage}`),
    }),
)
