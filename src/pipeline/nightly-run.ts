import { createHash, randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { type IngestSummary, ingestPaths } from '../ingest/ingest-paths.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { writeFileAtomic } from '../util/atomic-file.js'

export interface NightlyRunOptions {
  tenant: OpenTenant
  inbox: string
  out: string
  onStage?: (stage: string) => void
}

export interface RunManifest {
  run_id: string
  tenant: string
  started_at: string
  finished_at: string
  inputs: {
    file: string
    entity: string
    checksum: string
    rows: number
    rejected: number
    rejects_file: string | null
  }[]
  skipped_inputs: { file: string; reason: string }[]
  rejected_rows: number
  outputs: { file: string; sha256: string }[]
  timings: Record<string, number>
}

/**
 * The nightly job: every stage that exists so far, in order, each safe to repeat. Ingest is
 * idempotent (unchanged rows are no-ops), so a run killed at any point finishes on the next.
 */
export async function runNightly(options: NightlyRunOptions): Promise<RunManifest> {
  const { tenant } = options
  const runId = `run-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`
  const startedAt = new Date()
  const timings: Record<string, number> = {}
  mkdirSync(options.out, { recursive: true })
  await tenant.database.run(`INSERT INTO runs VALUES ($1, 'nightly', now(), NULL, 'running', NULL, NULL)`, [
    runId,
  ])

  const stage = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    options.onStage?.(name)
    await tenant.database.run('UPDATE runs SET stage = $2 WHERE run_id = $1', [runId, name])
    const started = performance.now()
    const result = await work()
    timings[name] = Math.round(performance.now() - started) / 1000
    return result
  }

  const ingested: IngestSummary = await stage('ingest', () =>
    ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: [options.inbox],
      rejectsDir: join(options.out, 'rejects'),
    }),
  )

  const manifest: RunManifest = {
    run_id: runId,
    tenant: tenant.settings.name,
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    inputs: ingested.files.map((file) => ({
      file: relative(process.cwd(), file.file),
      entity: file.entity,
      checksum: `sha256:${file.checksum}`,
      rows: file.rows_read,
      rejected: file.rows_rejected,
      rejects_file: file.rejects_file ? relative(options.out, file.rejects_file) : null,
    })),
    skipped_inputs: ingested.skipped.map((skipped) => ({
      file: relative(process.cwd(), skipped.path),
      reason: skipped.reason,
    })),
    rejected_rows: ingested.rows_rejected,
    outputs: [],
    timings,
  }
  writeFileAtomic(join(options.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await tenant.database.run(
    `UPDATE runs SET finished_at = now(), status = $2, stage = NULL, summary = $3 WHERE run_id = $1`,
    [
      runId,
      manifest.rejected_rows > 0 ? 'finished_with_rejects' : 'finished',
      JSON.stringify({ rejected_rows: manifest.rejected_rows, timings }),
    ],
  )
  return manifest
}

export const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex')
