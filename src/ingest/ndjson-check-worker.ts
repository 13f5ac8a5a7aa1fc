import { createReadStream } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { csvCellsToRecord } from '../records/csv-record.js'
import { type EntityKind, entityKind } from '../records/entity-kinds.js'
import { type FastParse, fastParseOf } from '../records/fast-parse.js'
import { checkRow, type ReferenceLookup, type RowCheckContext } from '../records/row-check.js'
import type { PropertyType } from '../schemas/custom-properties.js'
import type { NdjsonCheckMessage, NdjsonCheckTask } from './ingest-types.js'
import { LineSplitter, tooLongReason, withoutByteOrderMark } from './line-splitter.js'
import type { Reject } from './rejects.js'
import { newStagedColumns, stageRow } from './staged-columns.js'

const task = workerData as NdjsonCheckTask

/** Up to one DuckDB vector of checked rows per message. */
const ROWS_PER_MESSAGE = 2048
/**
 * Messages of rows sent and not yet appended (the parent acknowledges each): past this many the
 * worker waits, so that rows checked faster than they are appended do not pile up in memory.
 */
const ROWS_IN_FLIGHT = 4
/** Rejects are sent to the parent once this many are waiting. */
const REJECTS_PER_MESSAGE = 256

/** Messages of rows the parent has not acknowledged yet, and a wait for the next acknowledgement. */
const flow = {
  inFlight: 0,
  waiting: undefined as (() => void) | undefined,
  acknowledged() {
    flow.inFlight--
    const waiting = flow.waiting
    flow.waiting = undefined
    waiting?.()
  },
  async room() {
    while (flow.inFlight >= ROWS_IN_FLIGHT) await new Promise<void>((resolve) => (flow.waiting = resolve))
  },
}

/** The row check's context in this worker: the kind, the definitions and the reference ids it was handed. */
function checkContextOf(kind: EntityKind): RowCheckContext {
  const sets = new Map(Object.entries(task.referenceIds).map(([target, ids]) => [target, new Set(ids)]))
  const references: ReferenceLookup = {
    has: (target, id) =>
      target === 'jobs_or_job_families'
        ? references.has('jobs', id) || references.has('job_families', id)
        : (sets.get(target)?.has(id) ?? false),
  }
  return { kind, settings: task.settings, definitions: new Map(task.definitions), references }
}

/**
 * A CSV row as the file's cells, without the conventions' conversions: when the schema's
 * compiled parse accepts it, csvCellsToRecord would have returned the same record.
 */
function plainCellsOf(fastParse: FastParse | null) {
  return (cells: Record<string, string | null>): Record<string, unknown> | undefined => {
    const record: Record<string, unknown> = {}
    for (const column in cells) {
      const cell = cells[column]
      if (cell === null || cell === '' || cell === undefined) continue
      if (column.includes('.')) return undefined
      const first = cell.trimStart().charCodeAt(0)
      if (first === 123 || first === 91) {
        try {
          record[column] = JSON.parse(cell)
        } catch {
          record[column] = cell
        }
      } else record[column] = cell
    }
    return fastParse?.(record) === undefined ? undefined : record
  }
}

async function run() {
  const kind = entityKind(task.entity)
  if (!kind) throw new Error(`unknown entity ${task.entity}`)
  const context = checkContextOf(kind)
  const definitions = context.definitions as Map<string, PropertyType>
  const plainCells = plainCellsOf(fastParseOf(kind.schema))
  const csv = task.format === 'csv-cells'
  const rejects: Reject[] = []
  let columns = newStagedColumns()
  let rows = 0
  let line = task.firstLine - 1

  const take = (text: string) => {
    line++
    if (text.trim() === '') return
    rows++
    const at = csv ? null : line
    let value: unknown
    try {
      value = JSON.parse(line === 1 ? withoutByteOrderMark(text) : text)
    } catch (error) {
      const reason = `line is not valid JSON: ${(error as Error).message}`
      rejects.push({ file: task.file, line, row: line, field: '', reason, problems: [{ field: '', reason }] })
      return
    }
    if (csv) {
      const cells = value as Record<string, string | null>
      value = plainCells(cells) ?? csvCellsToRecord(cells, kind.schema, definitions)
    }
    const checked = checkRow(value, context)
    if (checked.problems) {
      const first = checked.problems[0] ?? { field: '', reason: 'rejected' }
      rejects.push({
        file: task.file,
        line: at,
        row: line,
        field: first.field,
        reason: first.reason,
        problems: checked.problems,
        record: value,
      })
      return
    }
    stageRow(columns, { line: at, row: line, key: kind.key(checked.record), record: checked.record })
    if (columns.row.length >= ROWS_PER_MESSAGE) flush()
  }

  const flush = () => {
    if (columns.row.length === 0) return
    parentPort?.postMessage({ type: 'rows', columns } satisfies NdjsonCheckMessage)
    flow.inFlight++
    columns = newStagedColumns()
  }

  const tooLong = (length: number) => {
    line++
    rows++
    const reason = tooLongReason(length)
    rejects.push({ file: task.file, line, row: line, field: '', reason, problems: [{ field: '', reason }] })
  }
  await readRange(new LineSplitter(take, tooLong), () => rows, rejects)
  flush()
  parentPort?.postMessage({ type: 'done', rows, rejects } satisfies NdjsonCheckMessage)
}

/**
 * Reads the task's byte range into `lines`, reporting the rows read after each chunk and sending
 * the rejects waiting; waits while the parent has not appended enough of the rows sent.
 */
async function readRange(lines: LineSplitter, rowsRead: () => number, rejects: Reject[]): Promise<void> {
  if (task.end <= task.start) return
  for await (const chunk of createReadStream(task.path, {
    start: task.start,
    end: task.end - 1,
    encoding: 'utf8',
    highWaterMark: 1 << 21,
  })) {
    lines.push(chunk as string)
    parentPort?.postMessage({ type: 'progress', rows: rowsRead() } satisfies NdjsonCheckMessage)
    sendRejects(rejects)
    await flow.room()
  }
  lines.end()
}

/** Rejects leave in batches too: a file of many bad rows is not held in this thread's (bounded) heap. */
function sendRejects(rejects: Reject[]): void {
  if (rejects.length < REJECTS_PER_MESSAGE) return
  parentPort?.postMessage({ type: 'rejects', rejects: rejects.splice(0) } satisfies NdjsonCheckMessage)
}

parentPort?.on('message', flow.acknowledged)
await run()
parentPort?.off('message', flow.acknowledged)
