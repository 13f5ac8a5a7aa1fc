import { mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Float64, Int32, Table, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow'
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
    // Each column of its own type, also when empty (inferred from no values, it would be Null).
    const vectors = Object.fromEntries(
      names.map((name) => {
        const column = columns[name] as Column
        const type =
          column instanceof Float64Array
            ? new Float64()
            : column instanceof Int32Array
              ? new Int32()
              : new Utf8()
        return [name, vectorFromArray(column as never, type as never)]
      }),
    )
    writeFileAtomic(path, tableToIPC(new Table(vectors), 'file'))
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
      // The columns' types are stated, not guessed from the data: an id that looks like a UUID or
      // a date stays the text it is, and an empty table keeps its columns.
      const types = names
        .map((name) => {
          const column = columns[name] as Column
          const type =
            column instanceof Float64Array ? 'DOUBLE' : column instanceof Int32Array ? 'INTEGER' : 'VARCHAR'
          return `${literal(name)}: '${type}'`
        })
        .join(', ')
      await database.run(
        `COPY (SELECT * FROM read_ndjson($source, columns = {${types}})) TO ${literal(temporary)} (FORMAT parquet)`,
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

/** A SQL string literal of one of this module's constants (column names, a path it made). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`
