import { createHash } from 'node:crypto'
import { existsSync, readdirSync, type Stats, statSync } from 'node:fs'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import { ENTITY_NAMES, type EntityKind, entityKind } from '../records/entity-kinds.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { ingestedBefore, ingestFile, readFileFacts } from './ingest-file.js'
import type { IngestFileResult, ParallelCheckThreads } from './ingest-types.js'
import { type CsvDelimiter, formatOf, type SourceFormat } from './read-source.js'
import { type RejectCause, RejectedReferences } from './rejected-references.js'
import { removeRejects, writeRejects } from './rejects.js'
import type { TextEncoding } from './text-encoding.js'

export interface PlannedFile {
  path: string
  format: SourceFormat
  kind: EntityKind
  /** Found in a folder given (read like an inbox), not named itself. */
  inFolder: boolean
}

export interface IngestSummary {
  files: (Omit<IngestFileResult, 'rejects'> & {
    rejects_file: string | null
    /** Why its rows were rejected, by cause: one for each record of this ingest rejected they refer to. */
    reject_causes: RejectCause[]
  })[]
  /** Files not read: not data files (an Excel workbook, a folder), or empty. */
  skipped: { path: string; reason: string }[]
  /** Data files refused whole (an encoding, a file that is no JSON), when ingest goes on past them. */
  rejected_files: { path: string; reason: string }[]
  rows_read: number
  rows_written: number
  rows_rejected: number
  seconds: number
}

/** The entity of a file: `--entity`, else its name up to the first dot (`skill_events.2026-11-21.ndjson`). */
export function entityOfFile(path: string, entity?: string): EntityKind | undefined {
  return entityKind(entity ?? basename(path).split('.')[0] ?? '')
}

/**
 * Lists what `ingest` will read: each file named, and in each folder the files whose name gives
 * an entity and a format, in dependency order (units before employees before skill events).
 */
export function planIngest(
  paths: string[],
  entity?: string,
): { files: PlannedFile[]; skipped: IngestSummary['skipped'] } {
  if (entity && !entityKind(entity)) {
    throw errors.badRequest(`\`entity\` ${entity} is not an entity; valid: ${ENTITY_NAMES.join(', ')}`)
  }
  const files: PlannedFile[] = []
  const skipped: IngestSummary['skipped'] = []
  for (const given of paths) {
    const path = resolve(given)
    if (!existsSync(path)) throw errors.badRequest(`${given} does not exist`)
    const explicit = !statSync(path).isDirectory()
    const candidates: string[] = []
    if (explicit) candidates.push(path)
    else {
      for (const name of readdirSync(path).filter((entry) => !entry.startsWith('.'))) {
        const file = join(path, name)
        // What a folder holds besides files is named with the reason it is not read.
        const problem = notAFile(file)
        if (problem) skipped.push({ path: file, reason: problem })
        else candidates.push(file)
      }
    }
    for (const file of candidates) {
      const format = formatOf(file)
      const kind = entityOfFile(file, entity)
      if (format && kind) {
        // An empty file holds no rows, not even a header: an export that wrote nothing.
        if (statSync(file).size === 0)
          skipped.push({
            path: file,
            reason: 'empty file (0 bytes): no header and no rows; was the export cut short?',
          })
        else files.push({ path: file, format, kind, inFolder: !explicit })
        continue
      }
      const reason = !format
        ? notDataReason(file)
        : `its name does not start with an entity (${ENTITY_NAMES.join(', ')}); rename it or pass --entity`
      if (explicit) throw errors.badRequest(`${given}: ${reason}`)
      skipped.push({ path: file, reason })
    }
  }
  files.sort((a, b) => a.kind.order - b.kind.order || a.path.localeCompare(b.path))
  return { files, skipped }
}

/** Why a file of an unknown kind is not read, with what to do when it is a spreadsheet. */
function notDataReason(path: string): string {
  const extension = extname(path).toLowerCase()
  if (['.xlsx', '.xls', '.xlsm', '.xlsb', '.ods'].includes(extension))
    return `a spreadsheet (${extension}), not a data file skillhouse reads; save each sheet as CSV UTF-8 named after its entity (e.g. employees.csv)`
  return 'not a CSV, NDJSON, JSON or Parquet file (.csv, .ndjson, .jsonl, .json, .parquet)'
}

/** Why an entry of a folder is not read as a data file, or null for a file. */
function notAFile(path: string): string | null {
  let stat: Stats
  try {
    stat = statSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return `cannot be read (${code === 'ENOENT' ? 'a link to nothing' : (code ?? 'unknown error')})`
  }
  if (stat.isDirectory())
    return 'a folder: the files of the folders given are read, not of folders inside them; pass it too to read it'
  return stat.isFile() ? null : 'not a regular file'
}

/**
 * Each planned file's rejects file name: its own name, or where two inputs share one, its name
 * with the folder it is in (and, should those match too, a short hash of its path), so that no
 * input's rejects overwrite another's.
 */
function rejectsNames(files: readonly PlannedFile[]): Map<string, string> {
  const byName = new Map<string, number>()
  for (const file of files) byName.set(basename(file.path), (byName.get(basename(file.path)) ?? 0) + 1)
  const names = new Map<string, string>()
  const taken = new Set<string>()
  for (const file of files) {
    let name = basename(file.path)
    if ((byName.get(name) ?? 0) > 1) {
      name = `${basename(dirname(file.path))}__${name}`
      if (taken.has(name))
        name = `${createHash('sha256').update(file.path).digest('hex').slice(0, 8)}__${basename(file.path)}`
    }
    taken.add(name)
    names.set(file.path, name)
  }
  return names
}

export interface IngestOptions {
  database: TenantDatabase
  settings: TenantSettings
  paths: string[]
  entity?: string | undefined
  rejectsDir: string
  endActiveWorkingHistory?: boolean
  strict?: boolean
  /** See IngestFileOptions.sqlPath. */
  sqlPath?: boolean
  delimiter?: CsvDelimiter
  encoding?: TextEncoding
  /** See IngestFileOptions.checkThreads. */
  checkThreads?: ParallelCheckThreads
  /**
   * A data file that cannot be read at all (bad input, exit 2): `stop` ends the ingest with its
   * error; `skip` lists it in `rejected_files` and goes on with the other files (the nightly
   * run). By default a file named is stopped at, and a file found in a folder is skipped: a
   * folder is read like an inbox.
   */
  onFileError?: 'stop' | 'skip'
  /**
   * Leave a file whose content was ingested into its entity before without a rejected row (the
   * nightly run: an inbox keeps yesterday's exports); its rows count as unchanged.
   */
  skipIngested?: boolean
  onFile?: (file: PlannedFile) => void
  onProgress?: (file: PlannedFile, rowsRead: number) => void
  /** A file's final counts, once it is committed (or found unchanged). */
  onFileDone?: (file: PlannedFile, result: Omit<IngestFileResult, 'rejects'>) => void
  /**
   * For an ingest another process asked for (the server running a command's work): aborted when
   * that command is interrupted or gone; the ingest stops before its next file (the running
   * statement is stopped by whoever holds the database).
   */
  signal?: AbortSignal
}

/** Ingests files and folders, each file in its own transaction, and writes each file's rejects. */
export async function ingestPaths(options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now()
  const plan = planIngest(options.paths, options.entity)
  const summary: IngestSummary = {
    files: [],
    skipped: plan.skipped,
    rejected_files: [],
    rows_read: 0,
    rows_written: 0,
    rows_rejected: 0,
    seconds: 0,
  }
  const names = rejectsNames(plan.files)
  const rejectedReferences = new RejectedReferences()
  for (const file of plan.files) {
    if (options.signal?.aborted)
      throw errors.interrupted(
        `ingest interrupted by ${String(options.signal.reason)} before ${file.path}; the files before it are committed`,
      )
    options.onFile?.(file)
    let ingested: Awaited<ReturnType<typeof ingestFile>>
    try {
      const facts = options.skipIngested ? readFileFacts(file.path) : undefined
      const before = facts
        ? await ingestedBefore(options.database, file.path, file.format, file.kind, facts)
        : null
      ingested =
        before ??
        (await ingestFile({
          database: options.database,
          settings: options.settings,
          path: file.path,
          format: file.format,
          kind: file.kind,
          endActiveWorkingHistory: options.endActiveWorkingHistory === true,
          strict: options.strict === true,
          sqlPath: options.sqlPath !== false,
          ...(options.delimiter ? { delimiter: options.delimiter } : {}),
          ...(options.encoding ? { encoding: options.encoding } : {}),
          ...(options.checkThreads ? { checkThreads: options.checkThreads } : {}),
          ...(facts ? { facts } : {}),
          onProgress: (rows) => options.onProgress?.(file, rows),
        }))
    } catch (error) {
      const skip = (options.onFileError ?? (file.inFolder ? 'skip' : 'stop')) === 'skip'
      if (!skip || !isSkillhouseError(error) || error.exitCode !== 2) throw error
      summary.rejected_files.push({ path: file.path, reason: error.message })
      continue
    }
    const { rejects: found, ...result } = ingested
    const { rejects, causes } = rejectedReferences.explain(found)
    rejectedReferences.note(file.kind.entity, rejects)
    const rejectsName = names.get(file.path) ?? basename(file.path)
    // An input without rejected rows leaves no rejects file (one of an earlier ingest is removed).
    const rejectsFile = rejects.length
      ? await writeRejects(options.rejectsDir, rejectsName, rejects)
      : removeRejects(options.rejectsDir, rejectsName)
    summary.files.push({ ...result, rejects_file: rejectsFile, reject_causes: causes })
    options.onFileDone?.(file, result)
    summary.rows_read += result.rows_read
    summary.rows_written += result.rows_inserted + result.rows_updated
    summary.rows_rejected += result.rows_rejected
  }
  summary.seconds = (performance.now() - started) / 1000
  return summary
}
