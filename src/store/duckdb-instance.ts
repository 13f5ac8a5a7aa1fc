import { DuckDBInstance, textAccessors } from '../vendor/duckdb.js'

/** Extensions never autoload or install: nothing is downloaded at run time. */
export const OFFLINE_OPTIONS = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
} as const

/**
 * Every DuckDB database of skillhouse (tenants' files, the in-memory ones that read input files)
 * is opened here, offline, and with its text read back unchanged.
 *
 * @duckdb/node-api (1.5.5-r.5) decodes every VARCHAR with one shared TextDecoder made with the
 * defaults, which drop a byte order mark (U+FEFF) at the start of the decoded text: a value
 * starting with one lost it between DuckDB and JavaScript (a CSV cell holding only one read as
 * empty, so the row-by-row ingest called the field missing while the SQL path stored it). The
 * library reads its decoder from its module at every call, so replacing it with one that keeps
 * the mark holds for every database of the thread; a test reads U+FEFF back to hold the library
 * to it.
 */
export function createDuckDBInstance(
  path: string,
  options: Record<string, string> = {},
): Promise<DuckDBInstance> {
  keepByteOrderMarks()
  return DuckDBInstance.create(path, { ...OFFLINE_OPTIONS, ...options })
}

let kept = false

function keepByteOrderMarks(): void {
  if (kept) return
  kept = true
  if (textAccessors.textDecoder) textAccessors.textDecoder = new TextDecoder('utf-8', { ignoreBOM: true })
}
