import { closeSync, openSync, readSync } from 'node:fs'
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import { createDuckDBInstance } from '../store/duckdb-instance.js'

/** Columns of a CSV file read whole: the header's names and one array of cells per column ('' when empty). */
export interface CsvTable {
  path: string
  names: string[]
  rows: number
  column(name: string): readonly string[] | undefined
}

const ROW = '\u001e'
const FIELD = '\u001f'
/** Column names that may appear, quoted, in the SQL text: letters, digits, space, `_`, `.`, `-`. */
const SAFE_NAME = /^[\w .-]+$/

/**
 * Reads vocabulary CSV files through DuckDB's reader in a scratch in-memory database (never the
 * tenant's), all cells as text, only the columns asked for.
 *
 * DuckDB packs the columns into one string that JS splits: crossing from DuckDB to JS costs per
 * value, and one string crosses once, which makes this several times faster than fast-csv or
 * DuckDB's values converted one by one (docs/benchmarks.md). A cell holding the separators (ASCII 30/31)
 * makes the packed form fail its count check, and that file is read cell by cell instead.
 */
export class CsvTableReader {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
  ) {}

  static async open(): Promise<CsvTableReader> {
    const instance = await createDuckDBInstance(':memory:')
    return new CsvTableReader(instance, await instance.connect())
  }

  /**
   * Reads `columns` (those the header has) of one CSV file with a header row. `ragged` accepts
   * rows with fewer cells than the header (ESCO's skillsHierarchy leaves trailing cells out);
   * DuckDB then reads on one thread, as its parallel reader cannot pad rows with quoted line breaks.
   */
  async read(
    path: string,
    columns: readonly string[],
    options: { ragged?: boolean } = {},
  ): Promise<CsvTable> {
    const names = readHeader(path)
    // Only names from `columns`, which are the caller's constants, ever reach the SQL text.
    const present = columns.filter((column) => names.includes(column) && SAFE_NAME.test(column))
    if (present.length === 0) return { path, names, rows: 0, column: () => undefined }
    const source = `read_csv($path, header = true, all_varchar = true, delim = ',', quote = '"', escape = '"'${options.ragged ? ', null_padding = true, parallel = false' : ''})`
    const cells = present.map((column) => `coalesce("${column}", '')`).join(', ')
    let data: Map<string, string[]>
    try {
      const reader = await this.connection.runAndReadAll(
        // row_number() OVER () keeps the file's order, which string_agg alone does not promise.
        `SELECT string_agg(packed, chr(30) ORDER BY position) AS packed, count(*) AS n
           FROM (SELECT concat_ws(chr(31), ${cells}) AS packed, row_number() OVER () AS position FROM ${source})`,
        { path },
      )
      const [packed, count] = reader.getRows()[0] as [string | null, bigint]
      data = unpack(packed, Number(count), present) ?? (await this.readCellByCell(path, source, present))
    } catch (error) {
      if (isSkillhouseError(error)) throw error
      throw errors.badRequest(`${path} cannot be read as CSV: ${(error as Error).message.split('\n')[0]}`)
    }
    const rows = data.get(present[0] as string)?.length ?? 0
    return { path, names, rows, column: (name) => data.get(name) }
  }

  private async readCellByCell(path: string, source: string, present: readonly string[]) {
    const reader = await this.connection.runAndReadAll(
      `SELECT ${present.map((column) => `coalesce("${column}", '') AS "${column}"`).join(', ')} FROM ${source}`,
      { path },
    )
    const columns = reader.getColumnsObjectJS() as Record<string, string[]>
    return new Map(present.map((column) => [column, columns[column] ?? []]))
  }

  close(): void {
    this.connection.closeSync()
    this.instance.closeSync()
  }
}

function unpack(
  packed: string | null,
  count: number,
  columns: readonly string[],
): Map<string, string[]> | undefined {
  const data = new Map(columns.map((column) => [column, new Array<string>(count)]))
  if (count === 0 || packed === null) return count === 0 ? data : undefined
  const lists = columns.map((column) => data.get(column) as string[])
  const rows = packed.split(ROW)
  if (rows.length !== count) return undefined
  for (let row = 0; row < count; row++) {
    const fields = (rows[row] as string).split(FIELD)
    if (fields.length !== columns.length) return undefined
    for (let column = 0; column < fields.length; column++)
      (lists[column] as string[])[row] = fields[column] as string
  }
  return data
}

/** The header row's names: the first line of the file, split on commas outside quotes. */
function readHeader(path: string): string[] {
  let text = ''
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(64 * 1024)
    let position = 0
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, position)
      if (read === 0) break
      text += buffer.subarray(0, read).toString('utf8')
      position += read
      if (/[\r\n]/.test(text.replace(/"[^"]*"/g, ''))) break
    }
  } catch (error) {
    throw errors.badRequest(`${path} cannot be read: ${(error as Error).message}`)
  } finally {
    closeSync(fd)
  }
  const names: string[] = []
  let current = ''
  let quoted = false
  for (const char of text.replace(/^\uFEFF/, '')) {
    if (char === '"') quoted = !quoted
    else if (char === ',' && !quoted) {
      names.push(current)
      current = ''
    } else if ((char === '\n' || char === '\r') && !quoted) break
    else current += char
  }
  names.push(current)
  return names.map((name) => name.trim())
}

/** Runs `work` with a reader and always closes it. */
export async function withCsvReader<T>(work: (reader: CsvTableReader) => Promise<T>): Promise<T> {
  const reader = await CsvTableReader.open()
  try {
    return await work(reader)
  } finally {
    reader.close()
  }
}
