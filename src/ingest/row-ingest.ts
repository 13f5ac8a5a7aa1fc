import { basename } from 'node:path'
import type { EventInput } from '../profiles/evidence.js'
import { strictCheck } from '../profiles/strict-check.js'
import { loadDefinitions, ReferenceIndex } from '../records/reference-index.js'
import type { Problem } from '../records/row-check.js'
import { checkRow, type RowCheckContext } from '../records/row-check.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { FileToIngest, GoodRow, IngestOutcome, IngestPath } from './ingest-types.js'
import { checkInParallel, PARALLEL_PARTS, parallelCheckScript } from './parallel-ndjson.js'
import { csvRecordLines, readSource, type SourceRow } from './read-source.js'
import type { Reject } from './rejects.js'
import { type Staging, stagingFor } from './staging.js'
import { notUtf8 } from './text-encoding.js'

/**
 * Ingest's row-by-row path, which takes every file: each row checked in JavaScript by its zod
 * schema (the compiled parse first), its custom properties and its references, on this thread or
 * in worker threads; good rows staged and merged in one transaction; bad rows returned as rejects
 * with line, field path and reason. Its phases: checksum, read_and_check, merge.
 */
export const rowIngestPath: IngestPath = {
  name: 'rows',
  async ingest(file, timer) {
    const { options } = file
    const checksum = await timer.time('checksum', () => checkedChecksum(file))
    const checked = await timer.time('read_and_check', () => readAndCheck(file))
    const counts = await timer.time('merge', () => merge(file, checked, checksum))
    if (options.format === 'csv' && checked.rejects.some((entry) => entry.line === null)) {
      await assignCsvLines(file.readPath, checked.rejects)
    }
    return {
      checked: 'rows',
      checksum,
      rowsRead: checked.rowsRead,
      inserted: counts.inserted,
      updated: counts.updated,
      unchanged: counts.unchanged,
      superseded: counts.superseded ?? 0,
      rejects: checked.rejects,
    } satisfies IngestOutcome
  },
}

/** The file's checksum, once its read found it UTF-8 (a Parquet file or a transcoded copy aside). */
async function checkedChecksum(file: FileToIngest): Promise<string> {
  const facts = await file.facts
  if (file.options.format !== 'parquet' && file.encoding === 'utf-8' && facts.invalidUtf8)
    throw notUtf8(file.options.path, facts.invalidUtf8)
  return facts.checksum
}

/** The file's rows checked: the good ones staged, the bad ones as rejects. */
interface CheckedRows {
  staging: Staging
  rowsRead: number
  rejects: Reject[]
  reject: (source: Pick<SourceRow, 'line' | 'row'>, problems: Problem[], record?: unknown) => void
}

async function readAndCheck(file: FileToIngest): Promise<CheckedRows> {
  const { options, readPath } = file
  const { database, kind } = options
  const definitions = await loadDefinitions(database, kind)
  const references = new ReferenceIndex(database)
  const staging = await stagingFor(kind, database, {
    endActiveWorkingHistory: options.endActiveWorkingHistory === true,
  })
  const name = basename(options.path)
  const rejects: Reject[] = []
  const reject = (source: Pick<SourceRow, 'line' | 'row'>, problems: Problem[], record?: unknown) => {
    const first = problems[0] ?? { field: '', reason: 'rejected' }
    rejects.push({
      file: name,
      line: source.line,
      row: source.row,
      field: first.field,
      reason: first.reason,
      problems,
      record,
    })
  }
  const checked: CheckedRows = { staging, rowsRead: 0, rejects, reject }
  await references.load(kind.referenceTargets)
  const context: RowCheckContext = { kind, settings: options.settings, definitions, references }
  const strict = options.strict && kind.storage === 'skill_events' ? await strictCheck(database) : undefined
  const script = strict
    ? undefined
    : parallelCheckScript(kind, options.format, readPath, options.checkThreads)
  if (script && staging.prepareParts) {
    const inWorkers = await checkInParallel({
      script,
      path: readPath,
      format: options.format as 'ndjson' | 'csv',
      kind,
      settings: options.settings,
      definitions,
      referenceIds: references.ids(),
      delimiter: file.delimiter,
      onRows: await staging.prepareParts(PARALLEL_PARTS),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    })
    checked.rowsRead = inWorkers.rowsRead
    rejects.push(...inWorkers.rejects)
  } else {
    checked.rowsRead = await checkOnThisThread(file, context, checked, strict)
  }
  // Checks that need the whole file: parents of organisational units (any order in the file) and cycles.
  if (kind.entity === 'organisational_units') {
    for (const problem of await organisationalUnitProblems(staging.rows(), database)) {
      reject(problem.row, [problem.problem], problem.row.record)
      staging.remove(problem.row.key)
    }
  }
  return checked
}

/** Reads and checks the rows on this thread, staging the good ones; the rows read. */
async function checkOnThisThread(
  file: FileToIngest,
  context: RowCheckContext,
  { staging, reject }: CheckedRows,
  strict: ((event: EventInput) => boolean) | undefined,
): Promise<number> {
  const { options, readPath } = file
  const { kind } = options
  let rowsRead = 0
  for await (const batch of readSource(readPath, options.format, {
    schema: kind.schema,
    delimiter: file.delimiter,
    ...(context.definitions ? { customPropertyTypes: context.definitions } : {}),
  })) {
    for (const source of batch) {
      rowsRead++
      if (source.problem) {
        reject(source, [{ field: source.problem.field, reason: source.problem.message }], source.record)
        continue
      }
      const checked = checkRow(source.record, context)
      if (checked.problems) {
        reject(source, checked.problems, source.record)
        continue
      }
      const record = checked.record
      if (strict && !strict({ ...(record as unknown as EventInput), language: null, ended_on: null })) {
        reject(
          source,
          [
            {
              field: 'content',
              reason:
                'strict: no skill profile can be built from this event (no skill of the vocabulary in its content); send it without strict to store it with an empty profile',
            },
          ],
          source.record,
        )
        continue
      }
      await staging.add({ line: source.line, row: source.row, key: kind.key(record), record })
    }
    options.onProgress?.(rowsRead)
  }
  return rowsRead
}

/** Merges the staged rows and records the file, in one transaction; then drops the staging. */
async function merge(file: FileToIngest, checked: CheckedRows, checksum: string) {
  const { database, kind, path } = file.options
  const { staging, rejects, reject } = checked
  const counts = await database.transaction(async () => {
    const merged = await staging.merge()
    for (const conflict of merged.conflicts) {
      reject(conflict.row, [conflict.problem], conflict.row.record)
    }
    await database.run('INSERT INTO ingested_files VALUES ($1, $2, $3, $4, $5, $6, now())', [
      checksum,
      path,
      kind.entity,
      checked.rowsRead,
      merged.inserted + merged.updated,
      rejects.length,
    ])
    return merged
  })
  await staging.drop()
  return counts
}

/** Unknown parents and parent chains that would make a cycle, in file order. */
async function organisationalUnitProblems(rows: GoodRow[], database: TenantDatabase) {
  const parents = new Map<string, string | null>()
  for (const row of await database.all<{ external_id: string; parent_id: string | null }>(
    'SELECT external_id, parent_id FROM organisational_units',
  )) {
    parents.set(row.external_id, row.parent_id)
  }
  const inFile = new Set(rows.map((row) => row.key))
  const problems: { row: GoodRow; problem: Problem }[] = []
  for (const row of rows) {
    const parent = (row.record.parent_id as string | null | undefined) ?? null
    if (parent !== null && !parents.has(parent) && !inFile.has(parent)) {
      problems.push({
        row,
        problem: {
          field: 'parent_id',
          reason: `organisational unit '${parent}' does not exist; ingest it first (404 Not Found)`,
        },
      })
      continue
    }
    // Walk up from the new parent: reaching the row itself means the edge closes a cycle.
    const seen = new Set<string>([row.key])
    let cursor = parent
    let cycle: string[] | null = null
    const chain = [row.key]
    while (cursor !== null) {
      chain.push(cursor)
      if (seen.has(cursor)) {
        cycle = chain
        break
      }
      seen.add(cursor)
      cursor = parents.get(cursor) ?? null
    }
    if (cycle) {
      problems.push({
        row,
        problem: {
          field: 'parent_id',
          reason: `parent chain makes a cycle: ${cycle.join(' → ')}; each unit has at most one parent and no unit may be its own ancestor`,
        },
      })
      continue
    }
    parents.set(row.key, parent)
  }
  return problems
}

async function assignCsvLines(path: string, rejects: Reject[]): Promise<void> {
  const rejectedLines = new Set(
    rejects.filter((entry) => entry.row === 0 && entry.line !== null).map((entry) => entry.line as number),
  )
  const lines = await csvRecordLines(path, rejectedLines)
  for (const entry of rejects) {
    if (entry.line === null && entry.row > 0) entry.line = lines[entry.row - 1] ?? null
  }
}
