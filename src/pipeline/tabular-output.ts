import { mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { tableFromArrays, tableToIPC } from 'apache-arrow'
import type { TenantDatabase } from '../store/tenant-database.js'
import { AtomicWriteStream, writeFileAtomic } from '../util/atomic-file.js'

/** Formats of large batch results besides the spec's JSON (`run --format`). */
export type TabularFormat = 'ndjson' | 'parquet' | 'arrow'

export type Column = string[] | Float64Array | Int32Array

/**
 * Writes rows given as columns (all the same length) as NDJSON, Parquet (through DuckDB's COPY)
 * or an Arrow IPC file (apache-arrow), whole or not at all. Returns the path written.
 */
export async function writeTable(
  database: TenantDatabase,
  basePath: string,
  format: TabularFormat,
  columns: Record<string, Column>,
): Promise<string> {
  const path = `${basePath}.${format}`
  mkdirSync(dirname(path), { recursive: true })
  const names = Object.keys(columns)
  const length = names.length ? (columns[names[0] as string] as Column).length : 0
  if (format === 'arrow') {
    const table = tableFromArrays(columns as Record<string, string[] | Float64Array | Int32Array>)
    writeFileAtomic(path, tableToIPC(table, 'file'))
    return path
  }
  // NDJSON directly; Parquet from the same lines, converted by DuckDB into a temporary file first.
  const ndjson =
    format === 'ndjson' ? path : join(tmpdir(), `skillhouse-table-${process.pid}-${Date.now()}.ndjson`)
  const stream = new AtomicWriteStream(ndjson)
  for (let row = 0; row < length; row++) {
    const record: Record<string, unknown> = {}
    for (const name of names) record[name] = (columns[name] as Column)[row]
    stream.write(`${JSON.stringify(record)}\n`)
  }
  await stream.commit()
  if (format === 'parquet') {
    const temporary = `${path}.${process.pid}.tmp`
    try {
      await database.run(
        `COPY (SELECT * FROM read_ndjson($source)) TO '${temporary.replaceAll("'", "''")}' (FORMAT parquet)`,
        {
          source: ndjson,
        },
      )
      const { renameSync } = await import('node:fs')
      renameSync(temporary, path)
    } finally {
      rmSync(ndjson, { force: true })
      rmSync(temporary, { force: true })
    }
  }
  return path
}
