import { mkdirSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { Bool, type DataType, Float64, Int32, Table, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow'
import type { z } from 'zod'
import { writeError } from '../errors/file-system-errors.js'
import { defOf } from '../records/zod-def.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { AtomicWriteStream, writeFileAtomic } from '../util/atomic-file.js'

/** Formats of large batch results besides the spec's JSON (`run --format`). */
export type TabularFormat = 'ndjson' | 'parquet' | 'arrow'

/** A column's type: SQL's names; JSON holds any nested value (an object, a list) as JSON text. */
export type ColumnType = 'VARCHAR' | 'DOUBLE' | 'INTEGER' | 'BOOLEAN' | 'JSON'

export interface TableColumn {
  name: string
  type: ColumnType
}

/**
 * The columns of a table whose rows are objects of `schema`: one per field, in the schema's
 * order, typed from the field's schema (optional and nullable fields are columns that may be
 * null). A field added to the schema becomes a column without anything else changing.
 */
export function columnsOf(schema: z.ZodObject): TableColumn[] {
  return Object.entries(schema.shape).map(([name, field]) => ({ name, type: columnType(field as z.ZodType) }))
}

function columnType(schema: z.ZodType): ColumnType {
  const def = defOf(schema)
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
      return columnType(def.innerType as z.ZodType)
    case 'string':
    case 'enum':
      return 'VARCHAR'
    case 'number': {
      const integer = (def.checks ?? []).some(
        (check) => check._zod.def.check === 'number_format' && /int/.test(check._zod.def.format ?? ''),
      )
      return integer || /int/.test(def.format ?? '') ? 'INTEGER' : 'DOUBLE'
    }
    case 'boolean':
      return 'BOOLEAN'
    case 'literal':
      return (def.values ?? []).every((value) => typeof value === 'string') ? 'VARCHAR' : 'JSON'
    default:
      return 'JSON'
  }
}

/**
 * Writes rows (objects; a missing field is null) as the given columns in NDJSON, Parquet (through
 * DuckDB's COPY) or an Arrow IPC file (apache-arrow), whole or not at all. Returns the path.
 */
export async function writeTable(
  database: TenantDatabase,
  basePath: string,
  format: TabularFormat,
  columns: readonly TableColumn[],
  rows: readonly Record<string, unknown>[],
): Promise<string> {
  const path = `${basePath}.${format}`
  mkdirSync(dirname(path), { recursive: true })
  const cell = (row: Record<string, unknown>, name: string) => row[name] ?? null
  if (format === 'arrow') {
    // Each column of its own type, also when empty (inferred from no values, it would be Null).
    const vectors = Object.fromEntries(
      columns.map((column) => {
        const values = rows.map((row) => {
          const value = cell(row, column.name)
          return column.type === 'JSON' && value !== null ? JSON.stringify(value) : value
        })
        return [column.name, vectorFromArray(values as never, arrowType(column.type) as never)]
      }),
    )
    writeFileAtomic(path, tableToIPC(new Table(vectors), 'file'))
    return path
  }
  // NDJSON directly; Parquet from the same lines, converted by DuckDB, written beside it first so
  // that a full disk is the output folder's, named as the file meant.
  const ndjson = format === 'ndjson' ? path : join(dirname(path), `.${basename(path)}.${process.pid}.ndjson`)
  const stream = new AtomicWriteStream(ndjson, path)
  for (const row of rows) {
    const record: Record<string, unknown> = {}
    for (const column of columns) record[column.name] = cell(row, column.name)
    stream.write(`${JSON.stringify(record)}\n`)
  }
  await stream.commit()
  if (format === 'parquet') {
    const temporary = `${path}.${process.pid}.tmp`
    try {
      // The columns' types are stated, not guessed from the data: an id that looks like a UUID or
      // a date stays the text it is, and an empty table keeps its columns.
      const types = columns.map((column) => `${literal(column.name)}: '${column.type}'`).join(', ')
      await database.run(
        `COPY (SELECT * FROM read_ndjson($source, columns = {${types}})) TO ${literal(temporary)} (FORMAT parquet)`,
        { source: ndjson },
      )
      renameSync(temporary, path)
    } catch (error) {
      throw writeError(error, path)
    } finally {
      rmSync(ndjson, { force: true })
      rmSync(temporary, { force: true })
    }
  }
  return path
}

function arrowType(type: ColumnType): DataType {
  switch (type) {
    case 'DOUBLE':
      return new Float64()
    case 'INTEGER':
      return new Int32()
    case 'BOOLEAN':
      return new Bool()
    default:
      return new Utf8()
  }
}

/** A SQL string literal of one of this module's constants (column names, a path it made). */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`
