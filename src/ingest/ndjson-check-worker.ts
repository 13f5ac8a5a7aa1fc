import { createReadStream, createWriteStream } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import type { PropertyType, TenantSettings } from '../schemas/index.js'
import { entityKind, type ReferenceTarget } from './entity-kinds.js'
import type { Reject } from './rejects.js'
import { checkRow, type ReferenceLookup } from './row-check.js'
import { skillEventStagingLine } from './staging.js'

/** What the main thread hands a worker: one byte range of an NDJSON file of skill events. */
export interface NdjsonCheckTask {
  path: string
  file: string
  start: number
  /** Exclusive end; the range starts and ends at line boundaries. */
  end: number
  firstLine: number
  entity: string
  settings: TenantSettings
  definitions: [string, PropertyType][]
  referenceIds: Partial<Record<ReferenceTarget, string[]>>
  stagingFile: string
}

export type NdjsonCheckMessage =
  | { type: 'progress'; rows: number }
  | { type: 'done'; rows: number; rejects: Reject[] }

const task = workerData as NdjsonCheckTask

async function run() {
  const kind = entityKind(task.entity)
  if (!kind) throw new Error(`unknown entity ${task.entity}`)
  const sets = new Map(Object.entries(task.referenceIds).map(([target, ids]) => [target, new Set(ids)]))
  const references: ReferenceLookup = {
    has: (target, id) =>
      target === 'jobs_or_job_families'
        ? references.has('jobs', id) || references.has('job_families', id)
        : (sets.get(target)?.has(id) ?? false),
  }
  const context = { kind, settings: task.settings, definitions: new Map(task.definitions), references }
  const out = createWriteStream(task.stagingFile)
  const rejects: Reject[] = []
  let buffer: string[] = []
  let rows = 0
  let line = task.firstLine - 1
  let rest = ''

  const take = (text: string) => {
    line++
    if (text.trim() === '') return
    rows++
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      const reason = `line is not valid JSON: ${(error as Error).message}`
      rejects.push({ file: task.file, line, row: line, field: '', reason, problems: [{ field: '', reason }] })
      return
    }
    const checked = checkRow(value, context)
    if (checked.problems) {
      const first = checked.problems[0] ?? { field: '', reason: 'rejected' }
      rejects.push({
        file: task.file,
        line,
        row: line,
        field: first.field,
        reason: first.reason,
        problems: checked.problems,
        record: value,
      })
      return
    }
    buffer.push(
      skillEventStagingLine({ line, row: line, key: kind.key(checked.record), record: checked.record }),
    )
  }

  const flush = async () => {
    if (buffer.length === 0) return
    const ok = out.write(`${buffer.join('\n')}\n`)
    buffer = []
    if (!ok) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }

  if (task.end > task.start) {
    for await (const chunk of createReadStream(task.path, {
      start: task.start,
      end: task.end - 1,
      encoding: 'utf8',
      highWaterMark: 1 << 22,
    })) {
      const text = rest + (chunk as string)
      let start = 0
      for (;;) {
        const end = text.indexOf('\n', start)
        if (end < 0) break
        take(text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end))
        start = end + 1
      }
      rest = text.slice(start)
      await flush()
      parentPort?.postMessage({ type: 'progress', rows } satisfies NdjsonCheckMessage)
    }
  }
  if (rest.length > 0) take(rest)
  await flush()
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject)
    out.end(() => resolve())
  })
  parentPort?.postMessage({ type: 'done', rows, rejects } satisfies NdjsonCheckMessage)
}

await run()
