import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import type { TenantSettings } from '../schemas/index.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { ENTITY_NAMES, type EntityKind, entityKind } from './entity-kinds.js'
import { type IngestFileResult, ingestFile } from './ingest-file.js'
import { formatOf, type SourceFormat } from './read-source.js'
import { writeRejects } from './rejects.js'

export interface PlannedFile {
  path: string
  format: SourceFormat
  kind: EntityKind
}

export interface IngestSummary {
  files: (Omit<IngestFileResult, 'rejects'> & { rejects_file: string | null })[]
  skipped: { path: string; reason: string }[]
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
    throw errors.badRequest(`--entity ${entity} is not an entity; valid: ${ENTITY_NAMES.join(', ')}`)
  }
  const files: PlannedFile[] = []
  const skipped: IngestSummary['skipped'] = []
  for (const given of paths) {
    const path = resolve(given)
    if (!existsSync(path)) throw errors.badRequest(`${given} does not exist`)
    const explicit = !statSync(path).isDirectory()
    const candidates = explicit
      ? [path]
      : readdirSync(path)
          .filter((name) => !name.startsWith('.'))
          .map((name) => join(path, name))
          .filter((file) => statSync(file).isFile())
    for (const file of candidates) {
      const format = formatOf(file)
      const kind = entityOfFile(file, entity)
      if (format && kind) {
        files.push({ path: file, format, kind })
        continue
      }
      const reason = !format
        ? 'not a CSV, NDJSON, JSON or Parquet file'
        : `its name does not start with an entity (${ENTITY_NAMES.join(', ')}); rename it or pass --entity`
      if (explicit) throw errors.badRequest(`${given}: ${reason}`)
      skipped.push({ path: file, reason })
    }
  }
  files.sort((a, b) => a.kind.order - b.kind.order || a.path.localeCompare(b.path))
  return { files, skipped }
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
  onFile?: (file: PlannedFile) => void
  onProgress?: (file: PlannedFile, rowsRead: number) => void
}

/** Ingests files and folders, each file in its own transaction, and writes each file's rejects. */
export async function ingestPaths(options: IngestOptions): Promise<IngestSummary> {
  const started = performance.now()
  const plan = planIngest(options.paths, options.entity)
  const summary: IngestSummary = {
    files: [],
    skipped: plan.skipped,
    rows_read: 0,
    rows_written: 0,
    rows_rejected: 0,
    seconds: 0,
  }
  for (const file of plan.files) {
    options.onFile?.(file)
    const { rejects, ...result } = await ingestFile({
      database: options.database,
      settings: options.settings,
      path: file.path,
      format: file.format,
      kind: file.kind,
      endActiveWorkingHistory: options.endActiveWorkingHistory === true,
      strict: options.strict === true,
      sqlPath: options.sqlPath !== false,
      onProgress: (rows) => options.onProgress?.(file, rows),
    })
    const rejectsFile = rejects.length ? await writeRejects(options.rejectsDir, file.path, rejects) : null
    summary.files.push({ ...result, rejects_file: rejectsFile })
    summary.rows_read += result.rows_read
    summary.rows_written += result.rows_inserted + result.rows_updated
    summary.rows_rejected += result.rows_rejected
  }
  summary.seconds = (performance.now() - started) / 1000
  return summary
}
