import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { basename } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { EntityKind, ReferenceTarget } from '../records/entity-kinds.js'
import type { PropertyType } from '../schemas/custom-properties.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import { workerScriptBeside } from '../util/module-source.js'
import type {
  NdjsonCheckMessage,
  NdjsonCheckTask,
  ParallelCheckThreads,
  StagedColumns,
} from './ingest-types.js'
import { type CsvDelimiter, csvToCellLines } from './read-source.js'
import type { Reject } from './rejects.js'
import { stagingFile } from './staging.js'

/** Worker threads (and so parts of the file) of a parallel check: one per core, 2 to 4. */
export const PARALLEL_PARTS = Math.max(2, Math.min(availableParallelism(), 4))

/**
 * The worker script that checks a file (skill events as NDJSON or CSV, large enough to pay for
 * the threads), or undefined when the file is checked on this thread (so it is when there is no
 * script: the sources run under vitest, and a worker thread loads JavaScript only).
 */
export function parallelCheckScript(
  kind: EntityKind,
  format: string,
  path: string,
  threads: ParallelCheckThreads = {},
): URL | undefined {
  if (kind.storage !== 'skill_events' || (format !== 'ndjson' && format !== 'csv')) return undefined
  const script = threads.script ?? workerScriptBeside('ndjson-check-worker', import.meta.url)
  const threshold = threads.minBytes ?? Number(process.env.SKILLHOUSE_PARALLEL_MIN_BYTES ?? 16 * 1024 * 1024)
  return script && statSync(path).size >= threshold ? script : undefined
}

export interface ParallelCheckResult {
  rowsRead: number
  rejects: Reject[]
  /** How many parts `onRows` was called with (0 … parts-1, in the file's order). */
  parts: number
}

/**
 * Checks a file of skill events with one worker per core, each on a byte range that starts and
 * ends at a line boundary. A CSV file is first read by DuckDB's parallel CSV reader into one JSON
 * object of cells per line (its unreadable rows come back as rejects with their lines). The good
 * rows come back column by column, part by part, through `onRows`; the rejects with their lines
 * (NDJSON) or positions (CSV, whose lines are found afterwards).
 */
export async function checkInParallel(options: {
  /** The worker script (see `parallelCheckScript`). */
  script: URL
  path: string
  format: 'ndjson' | 'csv'
  kind: EntityKind
  settings: TenantSettings
  definitions: ReadonlyMap<string, PropertyType> | undefined
  referenceIds: Partial<Record<ReferenceTarget, string[]>>
  onRows: (part: number, columns: StagedColumns) => void
  onProgress?: (rows: number) => void
  delimiter?: CsvDelimiter
}): Promise<ParallelCheckResult> {
  const cellsFile = options.format === 'csv' ? stagingFile('cells') : undefined
  try {
    const rejects: Reject[] = []
    const file = basename(options.path)
    if (cellsFile) {
      for (const problem of await csvToCellLines(options.path, cellsFile, options.delimiter)) {
        const reason = problem.problem?.message ?? 'rejected'
        const field = problem.problem?.field ?? ''
        rejects.push({ file, line: problem.line, row: 0, field, reason, problems: [{ field, reason }] })
      }
    }
    const input = cellsFile ?? options.path
    const ranges = splitAtLines(input, PARALLEL_PARTS)
    const progress = ranges.map(() => 0)
    const results = await Promise.all(
      ranges.map((range, index) => {
        const task: NdjsonCheckTask = {
          path: input,
          file,
          format: cellsFile ? 'csv-cells' : 'ndjson',
          start: range.start,
          end: range.end,
          firstLine: range.firstLine,
          entity: options.kind.entity,
          settings: options.settings,
          definitions: [...(options.definitions ?? new Map()).entries()],
          referenceIds: options.referenceIds,
        }
        return new Promise<{ rows: number; rejects: Reject[] }>((resolve, reject) => {
          const worker = new Worker(options.script, {
            workerData: task,
            resourceLimits: { maxOldGenerationSizeMb: workerHeapMb(options.referenceIds) },
          })
          const partRejects: Reject[] = []
          worker.on('message', (message: NdjsonCheckMessage) => {
            if (message.type === 'rows') {
              try {
                options.onRows(index, message.columns)
                // Appended: the worker may send more (it keeps only a few messages in flight).
                worker.postMessage('appended')
              } catch (error) {
                reject(error)
                void worker.terminate()
              }
            } else if (message.type === 'progress') {
              progress[index] = message.rows
              options.onProgress?.(progress.reduce((sum, rows) => sum + rows, 0))
            } else if (message.type === 'rejects') partRejects.push(...message.rejects)
            else resolve({ rows: message.rows, rejects: [...partRejects, ...message.rejects] })
          })
          worker.on('error', reject)
          worker.on('exit', (code) => {
            if (code !== 0) reject(new Error(`ingest worker stopped with exit code ${code}`))
          })
        })
      }),
    )
    return {
      rowsRead: results.reduce((sum, result) => sum + result.rows, rejects.length),
      rejects: [...results.flatMap((result) => result.rejects), ...rejects],
      parts: ranges.length,
    }
  } finally {
    if (cellsFile) rmSync(cellsFile, { force: true })
  }
}

/**
 * The old-generation heap of a check worker, in MiB: what it holds for good (the reference ids,
 * about 100 bytes an id in a Set) over a base for a chunk of the file and a message of rows. With
 * V8's default (GiBs) each worker let 150 MB of garbage pile up before it collected any; this
 * keeps an ingest's peak memory under 1 GiB. Rows and rejects leave the worker in small messages.
 */
function workerHeapMb(referenceIds: Partial<Record<string, string[]>>): number {
  const ids = Object.values(referenceIds).reduce((sum, list) => sum + (list?.length ?? 0), 0)
  return WORKER_HEAP_BASE_MB + Math.ceil((ids * 100) / 1048576)
}

/** See `workerHeapMb`; a single line of the file larger than about a third of this is refused by V8. */
const WORKER_HEAP_BASE_MB = 192

/** Splits a file into `parts` byte ranges at line boundaries, with the line each range starts on. */
function splitAtLines(path: string, parts: number): { start: number; end: number; firstLine: number }[] {
  const size = statSync(path).size
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(1 << 20)
    const boundaries = [0]
    for (let part = 1; part < parts; part++) {
      let position = Math.max(Math.floor((size * part) / parts), boundaries[boundaries.length - 1] as number)
      let found = -1
      while (position < size && found < 0) {
        const read = readSync(fd, buffer, 0, buffer.length, position)
        const index = buffer.subarray(0, read).indexOf(10)
        if (index >= 0) found = position + index + 1
        position += read
        if (read === 0) break
      }
      boundaries.push(found < 0 ? size : found)
    }
    boundaries.push(size)
    // Line numbers: count the newlines before each boundary, in one pass.
    const firstLines = [1]
    let lines = 1
    let position = 0
    for (let index = 1; index < boundaries.length - 1; index++) {
      const target = boundaries[index] as number
      while (position < target) {
        const read = readSync(fd, buffer, 0, Math.min(buffer.length, target - position), position)
        if (read === 0) break
        for (
          let offset = buffer.indexOf(10, 0);
          offset >= 0 && offset < read;
          offset = buffer.indexOf(10, offset + 1)
        )
          lines++
        position += read
      }
      firstLines.push(lines)
    }
    return boundaries.slice(0, -1).map((start, index) => ({
      start,
      end: boundaries[index + 1] as number,
      firstLine: firstLines[index] as number,
    }))
  } finally {
    closeSync(fd)
  }
}
