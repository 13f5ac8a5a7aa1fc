import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { basename } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { PropertyType, TenantSettings } from '../schemas/index.js'
import type { EntityKind, ReferenceTarget } from './entity-kinds.js'
import type { NdjsonCheckMessage, NdjsonCheckTask } from './ndjson-check-worker.js'
import type { Reject } from './rejects.js'
import { stagingFile } from './staging.js'

const WORKER = new URL('./ndjson-check-worker.js', import.meta.url)

/**
 * Whether a file is checked by worker threads: skill events as NDJSON, large enough to pay for
 * the threads (SKILLHOUSE_PARALLEL_MIN_BYTES, default 16 MiB), from compiled code (workers run JS).
 */
export function useParallelCheck(kind: EntityKind, format: string, path: string): boolean {
  if (kind.storage !== 'skill_events' || format !== 'ndjson' || !WORKER.pathname.endsWith('.js')) return false
  const threshold = Number(process.env.SKILLHOUSE_PARALLEL_MIN_BYTES ?? 16 * 1024 * 1024)
  return statSync(path).size >= threshold
}

export interface ParallelCheckResult {
  rowsRead: number
  rejects: Reject[]
  stagingFiles: string[]
}

/**
 * Checks an NDJSON file of skill events with one worker per core, each on a byte range that
 * starts and ends at a line boundary; the workers write the good rows to staging files and
 * return the rejects with their true line numbers.
 */
export async function checkNdjsonInParallel(options: {
  path: string
  kind: EntityKind
  settings: TenantSettings
  definitions: ReadonlyMap<string, PropertyType> | undefined
  referenceIds: Partial<Record<ReferenceTarget, string[]>>
  onProgress?: (rows: number) => void
}): Promise<ParallelCheckResult> {
  const ranges = splitAtLines(options.path, Math.max(2, Math.min(availableParallelism(), 4)))
  const progress = ranges.map(() => 0)
  const results = await Promise.all(
    ranges.map((range, index) => {
      const task: NdjsonCheckTask = {
        path: options.path,
        file: basename(options.path),
        start: range.start,
        end: range.end,
        firstLine: range.firstLine,
        entity: options.kind.entity,
        settings: options.settings,
        definitions: [...(options.definitions ?? new Map()).entries()],
        referenceIds: options.referenceIds,
        stagingFile: stagingFile(`part${index}`),
      }
      return new Promise<{ rows: number; rejects: Reject[]; stagingFile: string }>((resolve, reject) => {
        const worker = new Worker(WORKER, { workerData: task })
        worker.on('message', (message: NdjsonCheckMessage) => {
          if (message.type === 'progress') {
            progress[index] = message.rows
            options.onProgress?.(progress.reduce((sum, rows) => sum + rows, 0))
          } else resolve({ rows: message.rows, rejects: message.rejects, stagingFile: task.stagingFile })
        })
        worker.on('error', reject)
        worker.on('exit', (code) => {
          if (code !== 0) reject(new Error(`ingest worker stopped with exit code ${code}`))
        })
      })
    }),
  )
  return {
    rowsRead: results.reduce((sum, result) => sum + result.rows, 0),
    rejects: results.flatMap((result) => result.rejects),
    stagingFiles: results.map((result) => result.stagingFile),
  }
}

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
