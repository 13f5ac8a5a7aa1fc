import { createHash, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { exportOrganisation, LOW_DATA_INCLUDE, orgExportJson } from '../analytics/org-export.js'
import { type EventsDatedAfter, eventsDatedAfter } from '../entities/skill-event-store.js'
import { errors } from '../errors/skillhouse-error.js'
import { readOutbox } from '../events/outbox.js'
import { type IngestSummary, ingestPaths, type PlannedFile } from '../ingest/ingest-paths.js'
import type { IngestFileResult } from '../ingest/ingest-types.js'
import type { CsvDelimiter } from '../ingest/read-source.js'
import type { RejectCause } from '../ingest/rejected-references.js'
import type { TextEncoding } from '../ingest/text-encoding.js'
import { exportAllJobs } from '../matching/match-jobs.js'
import { jobMatchesText } from '../matching/match-output.js'
import { matchAllEmployees } from '../matching/match-vacancies.js'
import { VacancyMatchRecord } from '../matching/vacancy-match-schema.js'
import { checkAsOf, type DeriveResult, deriveProfiles } from '../profiles/derive.js'
import { ExternalId } from '../schemas/common.js'
import { EmployeeMatch } from '../schemas/matching.js'
import { clearRunStatus, type RunStatus, writeRunStatus } from '../store/run-status.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { AtomicWriteStream, ensureFolder, writeFileAtomic } from '../util/atomic-file.js'
import { PhaseTimer } from '../util/phase-timer.js'
import { z } from '../vendor/zod.js'
import { columnsOf, type TabularFormat, writeTable } from './tabular-output.js'
import { writeVacancyOutputs } from './vacancy-outputs.js'

export interface NightlyRunOptions {
  tenant: OpenTenant
  inbox: string
  out: string
  asOf?: string
  /** Matching results as the spec's JSON (default) or as one table in NDJSON, Parquet or Arrow. */
  format?: 'json' | TabularFormat
  /** The field delimiter of the inbox's CSV files (default comma). */
  delimiter?: CsvDelimiter
  /** The text encoding of the inbox's files (default UTF-8, or UTF-16 marked by its byte order mark). */
  encoding?: TextEncoding
  onStage?: (stage: string) => void
  /** Ingest's progress: a file started, rows of it read. */
  onIngestFile?: (file: PlannedFile) => void
  onIngestRows?: (rows: number) => void
  /** A file's final counts, once it is committed (or found unchanged). */
  onIngestFileDone?: (result: Omit<IngestFileResult, 'rejects'>) => void
  /**
   * For a run that another process asked for (the server running a command's run): aborted
   * (reason 'SIGINT' or 'SIGTERM') when that command is interrupted or gone. Without it, the
   * process's own SIGINT and SIGTERM interrupt the run and end the process.
   */
  signal?: AbortSignal
}

export interface RunManifest {
  run_id: string
  /** This run's own manifest file in the output folder; `manifest.json` is a copy of the latest. */
  manifest_file: string
  tenant: string
  started_at: string
  finished_at: string
  /** The inbox, absolute; every input `file` below is relative to it. */
  inbox: string
  inputs: {
    file: string
    entity: string
    sha256: string
    rows: number
    /** Rows new or changed by this run (0 for an input read before, or whose rows all were known). */
    written: number
    rejected: number
    /** Relative to the output folder. */
    rejects_file: string | null
    /** Why its rows were rejected: one cause for each record of this run rejected they refer to. */
    reject_causes: RejectCause[]
  }[]
  skipped_inputs: { file: string; reason: string }[]
  /** Data files refused whole (their encoding, a file that is no JSON): nothing of them is loaded. */
  rejected_inputs: { file: string; reason: string }[]
  rejected_rows: number
  /**
   * Skill events of the tenant dated after the run's as-of date: stored, but counting only from
   * their dates on; a warning of the summary (a source's clock, a day-month swap).
   */
  future_dated_events: EventsDatedAfter
  outputs: { file: string; sha256: string }[]
  profiles: { external_vendor: string; recomputed: Record<string, number>; changed: Record<string, number> }[]
  /** CloudEvents this run wrote to events/<run-id>.ndjson. */
  events: number
  /** One 4.11 answer per employee in matching_vacancies/<employee>.json; employees no request could serve. */
  vacancy_matches: {
    /** The folder of the answers (JSON); null when they are one table (`--format`), listed in `outputs`. */
    folder: string | null
    /** Employees with an answer. */
    employees: number
    /** Employees matched in this run: those whose data (or the vacancies' side) changed. */
    computed: number
    /** Answer files written in this run (their content changed). */
    written: number
    skipped: { employee_id: string; errors: string[] }[]
    /** sha256 of each answer file (unchanged ones too), by file name in the folder. */
    files: Record<string, string>
  }
  timings: Record<string, number>
}

/**
 * The nightly job: every stage that exists so far, in order, each safe to repeat. Ingest is
 * idempotent (unchanged rows are no-ops), so a run killed at any point finishes on the next.
 */
export async function runNightly(options: NightlyRunOptions): Promise<RunManifest> {
  const { tenant } = options
  if (options.asOf !== undefined) checkAsOf(options.asOf)
  const runId = `run-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomUUID().slice(0, 8)}`
  const startedAt = new Date()
  ensureFolder(options.out, 'out')
  // The run's events are those after the last ones written: by the last finished run, or by a
  // run that wrote its events file into this folder and was stopped before it finished (so that
  // they are written once, whichever run finishes the work).
  const fromSeq = await eventsWrittenUpTo(tenant.database, options.out)
  // A run still marked running holds no lock any more (this one holds the database): it was
  // killed (a stopped run marks itself).
  await tenant.database.run(
    `UPDATE runs SET status = 'interrupted' WHERE kind = 'nightly' AND status = 'running'`,
  )
  await tenant.database.run(`INSERT INTO runs VALUES ($1, 'nightly', now(), NULL, 'running', NULL, NULL)`, [
    runId,
  ])
  const status = new RunStatusFile(tenant.database.path, runId, startedAt)
  const stopWatching = options.signal
    ? markInterruptedOnAbort(tenant.database, runId, status, options.signal)
    : markInterruptedOnSignal(tenant.database, runId, status)
  try {
    return await runStages(options, runId, startedAt, fromSeq, status)
  } catch (error) {
    if (options.signal?.aborted) throw errors.interrupted(interruptedMessage(runId, options.signal.reason))
    await tenant.database
      .run(`UPDATE runs SET finished_at = now(), status = 'failed' WHERE run_id = $1`, [runId])
      .catch(() => undefined)
    throw error
  } finally {
    stopWatching()
    status.clear()
  }
}

/** The run-status file of a run (see run-status.ts), kept at its current stage. */
class RunStatusFile {
  private readonly status: RunStatus

  constructor(
    private readonly databasePath: string,
    runId: string,
    startedAt: Date,
  ) {
    const now = startedAt.toISOString()
    this.status = {
      run_id: runId,
      kind: 'nightly',
      pid: process.pid,
      host: hostname(),
      started_at: now,
      stage: 'starting',
      stage_started_at: now,
    }
    writeRunStatus(databasePath, this.status)
  }

  stage(name: string): void {
    this.status.stage = name
    this.status.stage_started_at = new Date().toISOString()
    writeRunStatus(this.databasePath, this.status)
  }

  clear(): void {
    clearRunStatus(this.databasePath)
  }
}

/**
 * Ctrl-C (SIGINT) or SIGTERM while a run works: the run is marked `interrupted` (with its end)
 * at once, on a connection of its own beside the work in progress, its status file is removed,
 * and the process ends (130 or 143, as a shell reports a signal). The work's open transaction
 * is never committed, so the next run finishes it. Returns what removes the handlers.
 */
function markInterruptedOnSignal(database: TenantDatabase, runId: string, status: RunStatusFile): () => void {
  const handler = (signal: NodeJS.Signals) => {
    const code = signal === 'SIGINT' ? 130 : 143
    void markInterrupted(database, runId).finally(() => {
      status.clear()
      process.stderr.write(`${interruptedMessage(runId, signal)}\n`)
      process.exit(code)
    })
  }
  process.once('SIGINT', handler)
  process.once('SIGTERM', handler)
  return () => {
    process.off('SIGINT', handler)
    process.off('SIGTERM', handler)
  }
}

/**
 * The same for a run another process asked for: when `signal` aborts, the run is marked
 * `interrupted` at once, the statement running is stopped (its transaction rolls back), and the
 * run stops at its next stage; the process goes on.
 */
function markInterruptedOnAbort(
  database: TenantDatabase,
  runId: string,
  status: RunStatusFile,
  signal: AbortSignal,
): () => void {
  const handler = () => {
    void markInterrupted(database, runId).finally(() => status.clear())
    database.interrupt()
  }
  signal.addEventListener('abort', handler, { once: true })
  return () => signal.removeEventListener('abort', handler)
}

async function markInterrupted(database: TenantDatabase, runId: string): Promise<void> {
  const marker = await database.sibling()
  try {
    await marker.run(`UPDATE runs SET finished_at = now(), status = 'interrupted' WHERE run_id = $1`, [runId])
  } finally {
    marker.close()
  }
}

const interruptedMessage = (runId: string, signal: unknown) =>
  `run ${runId} interrupted by ${String(signal)}; the next run finishes its work`

/** Runs `work` as the stage `name`: recorded in the status file, the runs table and the timer. */
type StageRunner = <T>(name: string, work: () => Promise<T>) => Promise<T>

function stageRunner(options: NightlyRunOptions, runId: string, status: RunStatusFile, timer: PhaseTimer) {
  const runStage: StageRunner = async (name, work) => {
    if (options.signal?.aborted) throw errors.interrupted(interruptedMessage(runId, options.signal.reason))
    status.stage(name)
    options.onStage?.(name)
    await options.tenant.database.run('UPDATE runs SET stage = $2 WHERE run_id = $1', [runId, name])
    return timer.time(name, work)
  }
  return runStage
}

async function runStages(
  options: NightlyRunOptions,
  runId: string,
  startedAt: Date,
  fromSeq: number,
  status: RunStatusFile,
): Promise<RunManifest> {
  const { tenant } = options
  const timer = new PhaseTimer()
  const stage = stageRunner(options, runId, status, timer)
  const ingested = await stage('ingest', () => ingestInbox(options))
  const derived = await stage('derive', () =>
    deriveProfiles({ tenant, ...(options.asOf ? { asOf: options.asOf } : {}) }),
  )
  const format = options.format ?? 'json'
  const jobMatches = await stage('match_jobs', () => writeJobMatches(tenant, options.out, format))
  const vacancyMatches = await stage('match_vacancies', () =>
    writeVacancyMatches(tenant, options.out, format),
  )
  const orgStructure = await stage('org_export', async () => {
    const path = join(options.out, 'org_structure.json')
    const exported = await exportOrganisation(tenant, { include: [LOW_DATA_INCLUDE] })
    return writeIfChanged(path, `${orgExportJson(exported)}\n`)
  })
  const events = await stage('events', () =>
    writeRunEvents(tenant.database, fromSeq, join(options.out, 'events', `${runId}.ndjson`), (upTo) =>
      // Recorded before the file is written: a later run skips these events when it finds the file.
      tenant.database.run('UPDATE runs SET summary = $2 WHERE run_id = $1', [
        runId,
        JSON.stringify({ events_seq_end: upTo }),
      ]),
    ),
  )
  const outputs = [jobMatches, vacancyMatches.table, orgStructure, events.path].filter(
    (path): path is string => path !== null,
  )
  const futureDated = await eventsDatedAfter(tenant.database, derived.as_of)
  const manifest = runManifest(options, runId, startedAt, {
    ingested,
    derived,
    futureDated,
    outputs,
    events: events.count,
    vacancyMatches,
    format,
    timings: timer.phases,
  })
  await recordFinishedRun(tenant.database, options.out, manifest, events.lastSeq ?? fromSeq)
  return manifest
}

/** The inbox read into the tenant (files already read are skipped; a bad file is skipped, not fatal). */
function ingestInbox(options: NightlyRunOptions): Promise<IngestSummary> {
  return ingestPaths({
    database: options.tenant.database,
    settings: options.tenant.settings,
    paths: [options.inbox],
    rejectsDir: join(options.out, 'rejects'),
    onFileError: 'skip',
    skipIngested: true,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.delimiter ? { delimiter: options.delimiter } : {}),
    ...(options.encoding ? { encoding: options.encoding } : {}),
    ...(options.onIngestFile ? { onFile: options.onIngestFile } : {}),
    ...(options.onIngestRows
      ? { onProgress: (_file: PlannedFile, rows: number) => options.onIngestRows?.(rows) }
      : {}),
    ...(options.onIngestFileDone
      ? {
          onFileDone: (_file: PlannedFile, result: Omit<IngestFileResult, 'rejects'>) =>
            options.onIngestFileDone?.(result),
        }
      : {}),
  })
}

type OutputFormat = NonNullable<NightlyRunOptions['format']>

/** Every job's matching employees (4.10): one JSON file, or one table with each match's rank. */
async function writeJobMatches(tenant: OpenTenant, out: string, format: OutputFormat): Promise<string> {
  const { response } = await exportAllJobs(tenant, { filters: [], weights: [] })
  if (format === 'json')
    return writeIfChanged(join(out, 'matching_employees.json'), jobMatchesText(response, 'json'))
  const rows = response.records.flatMap((record) =>
    record.matches.map((match, index) => ({ job_id: record.job_id, rank: index + 1, ...match })),
  )
  return writeTable(tenant.database, join(out, 'matching_employees'), format, JOB_MATCH_COLUMNS, rows)
}

/** Every employee's matching vacancies (4.11): one JSON file each, or one table. */
async function writeVacancyMatches(tenant: OpenTenant, out: string, format: OutputFormat) {
  if (format === 'json') {
    const written = await writeVacancyOutputs(tenant, out)
    return { ...written, table: null }
  }
  const rows: Record<string, unknown>[] = []
  const summary = await matchAllEmployees(tenant, {}, {}, (response) => {
    for (const record of response.records) rows.push({ employee_id: response.employee_id, ...record })
  })
  const table = await writeTable(
    tenant.database,
    join(out, 'matching_vacancies'),
    format,
    VACANCY_MATCH_COLUMNS,
    rows,
  )
  return {
    employees: summary.employees - summary.failed.length,
    computed: summary.employees,
    written: 1,
    failed: summary.failed,
    files: {},
    table,
  }
}

/** What the stages of a run produced, for its manifest. */
interface RunResults {
  ingested: IngestSummary
  derived: DeriveResult
  futureDated: EventsDatedAfter
  outputs: string[]
  events: number
  vacancyMatches: Awaited<ReturnType<typeof writeVacancyMatches>>
  format: OutputFormat
  timings: Record<string, number>
}

function runManifest(
  options: NightlyRunOptions,
  runId: string,
  startedAt: Date,
  results: RunResults,
): RunManifest {
  const inbox = resolve(options.inbox)
  const { ingested, derived, vacancyMatches } = results
  return {
    run_id: runId,
    manifest_file: `manifest-${runId}.json`,
    tenant: options.tenant.settings.name,
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    inbox,
    inputs: ingested.files.map((file) => ({
      file: relative(inbox, file.file),
      entity: file.entity,
      sha256: file.checksum,
      rows: file.rows_read,
      written: file.rows_inserted + file.rows_updated,
      rejected: file.rows_rejected,
      rejects_file: file.rejects_file ? relative(options.out, file.rejects_file) : null,
      reject_causes: file.reject_causes,
    })),
    skipped_inputs: ingested.skipped.map((skipped) => ({
      file: relative(inbox, skipped.path),
      reason: skipped.reason,
    })),
    rejected_inputs: ingested.rejected_files.map((rejected) => ({
      file: relative(inbox, rejected.path),
      reason: rejected.reason,
    })),
    rejected_rows: ingested.rows_rejected,
    future_dated_events: results.futureDated,
    outputs: results.outputs.map((path) => ({
      file: relative(options.out, path),
      sha256: sha256(readFileSync(path)),
    })),
    profiles: derived.vendors.map((vendor) => ({
      external_vendor: vendor.external_vendor,
      recomputed: vendor.recomputed,
      changed: vendor.changed,
    })),
    events: results.events,
    vacancy_matches: {
      folder: results.format === 'json' ? 'matching_vacancies' : null,
      employees: vacancyMatches.employees,
      computed: vacancyMatches.computed,
      written: vacancyMatches.written,
      skipped: vacancyMatches.failed,
      files: vacancyMatches.files,
    },
    timings: results.timings,
  }
}

/**
 * Writes the run's manifest and marks the run finished. Each run keeps its own manifest;
 * manifest.json is the latest one (written last: a run stopped in between leaves the previous
 * latest in place).
 */
async function recordFinishedRun(
  database: TenantDatabase,
  out: string,
  manifest: RunManifest,
  outboxSeqEnd: number,
): Promise<void> {
  const manifestText = `${JSON.stringify(manifest, null, 2)}\n`
  writeFileAtomic(join(out, manifest.manifest_file), manifestText)
  writeFileAtomic(join(out, 'manifest.json'), manifestText)
  await database.run(
    `UPDATE runs SET finished_at = now(), status = $2, stage = NULL, summary = $3 WHERE run_id = $1`,
    [
      manifest.run_id,
      manifest.rejected_rows > 0 || manifest.rejected_inputs.length > 0
        ? 'finished_with_rejects'
        : 'finished',
      JSON.stringify({
        rejected_rows: manifest.rejected_rows,
        timings: manifest.timings,
        outbox_seq_end: outboxSeqEnd,
      }),
    ],
  )
}

/**
 * The columns of the match tables (`--format ndjson|parquet|arrow`): every field of a match of
 * the JSON answer (4.10's per job, with its rank; 4.11's per employee), from their schemas.
 */
const JOB_MATCH_COLUMNS = columnsOf(
  z.object({ job_id: ExternalId, rank: z.number().int().min(1), ...EmployeeMatch.shape }),
)
const VACANCY_MATCH_COLUMNS = columnsOf(z.object({ employee_id: ExternalId, ...VacancyMatchRecord.shape }))

export const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex')

/**
 * Where the events already written end: the last finished run's end, or a later end recorded by a
 * run that stopped after writing its events file into `out` (the file is renamed into place
 * whole, so that it is there means its events are).
 */
async function eventsWrittenUpTo(database: TenantDatabase, out: string): Promise<number> {
  const finished = await database.one<{ seq: number | null }>(
    `SELECT max(CAST(json_extract(summary, '$.outbox_seq_end') AS BIGINT)) AS seq FROM runs WHERE kind = 'nightly' AND status LIKE 'finished%'`,
  )
  let upTo = Number(finished?.seq ?? 0)
  const stopped = await database.all<{ run_id: string; seq: number | null }>(
    `SELECT run_id, CAST(json_extract(summary, '$.events_seq_end') AS BIGINT) AS seq
       FROM runs WHERE kind = 'nightly' AND status NOT LIKE 'finished%' AND json_extract(summary, '$.events_seq_end') IS NOT NULL`,
  )
  for (const run of stopped) {
    const seq = Number(run.seq ?? 0)
    if (seq > upTo && existsSync(join(out, 'events', `${run.run_id}.ndjson`))) upTo = seq
  }
  return upTo
}

/**
 * Writes the outbox events after `fromSeq` as NDJSON (whole or not at all); no file when there
 * are none. `recording` is told the last event's seq before the file is written.
 */
async function writeRunEvents(
  database: TenantDatabase,
  fromSeq: number,
  path: string,
  recording: (upTo: number) => Promise<unknown>,
): Promise<{ path: string | null; count: number; lastSeq: number | null }> {
  const last = await database.one<{ seq: number | null }>(
    'SELECT max(seq) AS seq FROM outbox WHERE seq > $1',
    [fromSeq],
  )
  const upTo = last?.seq === null || last?.seq === undefined ? null : Number(last.seq)
  if (upTo === null) return { path: null, count: 0, lastSeq: null }
  await recording(upTo)
  let cursor = fromSeq
  let count = 0
  mkdirSync(dirname(path), { recursive: true })
  const stream = new AtomicWriteStream(path)
  try {
    while (cursor < upTo) {
      const page = await readOutbox(database, { sinceSeq: cursor, limit: 10_000 })
      if (page.length === 0) break
      for (const entry of page) {
        if (entry.seq > upTo) break
        stream.write(`${JSON.stringify(entry.event)}\n`)
        count++
      }
      cursor = (page[page.length - 1] as { seq: number }).seq
    }
  } catch (error) {
    await stream.abort()
    throw error
  }
  await stream.commit()
  return { path, count, lastSeq: upTo }
}

/** Writes an output whole, and only when its content changed, so that an idle re-run leaves every output as it was. */
function writeIfChanged(path: string, content: string): string {
  if (!existsSync(path) || readFileSync(path, 'utf8') !== content) {
    mkdirSync(dirname(path), { recursive: true })
    writeFileAtomic(path, content)
  }
  return path
}
