import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { exportOrganisation, LOW_DATA_INCLUDE, orgExportJson } from '../analytics/org-export.js'
import { readOutbox } from '../events/outbox.js'
import { type IngestSummary, ingestPaths } from '../ingest/ingest-paths.js'
import { exportAllJobs } from '../matching/match-jobs.js'
import { jobMatchesText, vacancyMatchesPath } from '../matching/match-output.js'
import { matchAllEmployees } from '../matching/match-vacancies.js'
import { deriveProfiles } from '../profiles/derive.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { AtomicWriteStream, writeFileAtomic } from '../util/atomic-file.js'
import { type TabularFormat, writeTable } from './tabular-output.js'

export interface NightlyRunOptions {
  tenant: OpenTenant
  inbox: string
  out: string
  asOf?: string
  /** Matching results as the spec's JSON (default) or as one table in NDJSON, Parquet or Arrow. */
  format?: 'json' | TabularFormat
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
  profiles: { external_vendor: string; recomputed: Record<string, number>; changed: Record<string, number> }[]
  /** CloudEvents this run wrote to events/<run-id>.ndjson. */
  events: number
  /** One 4.11 answer per employee in matching_vacancies/<employee>.json; employees no request could serve. */
  vacancy_matches: { folder: string; employees: number; skipped: { employee_id: string; errors: string[] }[] }
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

  // The run's events are those since the last finished run, so that a killed run's events are
  // written by the run that finishes its work.
  const previous = await tenant.database.one<{ seq: number | null }>(
    `SELECT max(CAST(json_extract(summary, '$.outbox_seq_end') AS BIGINT)) AS seq FROM runs WHERE kind = 'nightly' AND status LIKE 'finished%'`,
  )
  const fromSeq = previous?.seq ?? 0

  const ingested: IngestSummary = await stage('ingest', () =>
    ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: [options.inbox],
      rejectsDir: join(options.out, 'rejects'),
    }),
  )

  const derived = await stage('derive', () =>
    deriveProfiles({ tenant, ...(options.asOf ? { asOf: options.asOf } : {}) }),
  )

  const format = options.format ?? 'json'
  const jobMatches = await stage('match_jobs', async () => {
    const { response } = await exportAllJobs(tenant, { filters: [], weights: [] })
    if (format === 'json')
      return writeIfChanged(join(options.out, 'matching_employees.json'), jobMatchesText(response, 'json'))
    const rows = response.records.flatMap((record) =>
      record.matches.map((match, index) => ({
        job_id: record.job_id,
        rank: index + 1,
        employee_id: match.employee_id,
        score: match.score,
      })),
    )
    return writeTable(tenant.database, join(options.out, 'matching_employees'), format, {
      job_id: rows.map((row) => row.job_id),
      rank: Int32Array.from(rows.map((row) => row.rank)),
      employee_id: rows.map((row) => row.employee_id),
      score: Float64Array.from(rows.map((row) => row.score)),
    })
  })

  const vacancyMatches = await stage('match_vacancies', async () => {
    let written = 0
    const rows: { employee_id: string; rank: number; vacancy_id: string; score: number }[] = []
    const summary = await matchAllEmployees(tenant, {}, {}, (response) => {
      if (format === 'json') {
        writeIfChanged(vacancyMatchesPath(options.out, response.employee_id), `${JSON.stringify(response)}\n`)
      } else {
        for (const record of response.records)
          rows.push({
            employee_id: response.employee_id,
            rank: record.rank,
            vacancy_id: record.vacancy_id,
            score: record.score,
          })
      }
      written++
    })
    const table =
      format === 'json'
        ? null
        : await writeTable(tenant.database, join(options.out, 'matching_vacancies'), format, {
            employee_id: rows.map((row) => row.employee_id),
            rank: Int32Array.from(rows.map((row) => row.rank)),
            vacancy_id: rows.map((row) => row.vacancy_id),
            score: Float64Array.from(rows.map((row) => row.score)),
          })
    return { written, failed: summary.failed, table }
  })

  const orgStructure = await stage('org_export', async () => {
    const path = join(options.out, 'org_structure.json')
    const exported = await exportOrganisation(tenant, { include: [LOW_DATA_INCLUDE] })
    return writeIfChanged(path, `${orgExportJson(exported)}\n`)
  })

  const events = await stage('events', () =>
    writeRunEvents(tenant.database, fromSeq, join(options.out, 'events', `${runId}.ndjson`)),
  )
  const outputs = [jobMatches, vacancyMatches.table, orgStructure, events.path].filter(
    (path): path is string => path !== null,
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
    outputs: outputs.map((path) => ({
      file: relative(options.out, path),
      sha256: sha256(readFileSync(path)),
    })),
    profiles: derived.vendors.map((vendor) => ({
      external_vendor: vendor.external_vendor,
      recomputed: vendor.recomputed,
      changed: vendor.changed,
    })),
    events: events.count,
    vacancy_matches: {
      folder: 'matching_vacancies',
      employees: vacancyMatches.written,
      skipped: vacancyMatches.failed,
    },
    timings,
  }
  writeFileAtomic(join(options.out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  await tenant.database.run(
    `UPDATE runs SET finished_at = now(), status = $2, stage = NULL, summary = $3 WHERE run_id = $1`,
    [
      runId,
      manifest.rejected_rows > 0 ? 'finished_with_rejects' : 'finished',
      JSON.stringify({
        rejected_rows: manifest.rejected_rows,
        timings,
        outbox_seq_end: events.lastSeq ?? fromSeq,
      }),
    ],
  )
  return manifest
}

export const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex')

/** Writes the outbox events after `fromSeq` as NDJSON (whole or not at all); no file when there are none. */
async function writeRunEvents(
  database: TenantDatabase,
  fromSeq: number,
  path: string,
): Promise<{ path: string | null; count: number; lastSeq: number | null }> {
  let cursor = fromSeq
  let count = 0
  let stream: AtomicWriteStream | undefined
  for (;;) {
    const page = await readOutbox(database, { sinceSeq: cursor, limit: 10_000 })
    if (page.length === 0) break
    if (!stream) {
      mkdirSync(dirname(path), { recursive: true })
      stream = new AtomicWriteStream(path)
    }
    for (const entry of page) stream.write(`${JSON.stringify(entry.event)}\n`)
    count += page.length
    cursor = (page[page.length - 1] as { seq: number }).seq
  }
  await stream?.commit()
  return { path: stream ? path : null, count, lastSeq: count ? cursor : null }
}

/** Writes an output whole, and only when its content changed, so that an idle re-run leaves every output as it was. */
function writeIfChanged(path: string, content: string): string {
  if (!existsSync(path) || readFileSync(path, 'utf8') !== content) {
    mkdirSync(dirname(path), { recursive: true })
    writeFileAtomic(path, content)
  }
  return path
}
