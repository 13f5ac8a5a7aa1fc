import type * as DuckDB from '@duckdb/node-api'
import duckdb from '@duckdb/node-api'
import dataAccessors from '@duckdb/node-api/lib/vectors/dataAccessors.js'

/**
 * @duckdb/node-api's values, as every module of skillhouse loads them (types come from the package
 * itself, `import type`). The build packs this module and the ~60 modules of the package behind it
 * into one file (tools/bundle-vendors.mjs), which every command that opens a database loads at
 * start-up; the native binding stays a package of its own.
 */
export const {
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBListValue,
  DuckDBTimestampValue,
  INTEGER,
  LIST,
  VARCHAR,
  listValue,
} = duckdb

export type DuckDBDataChunk = DuckDB.DuckDBDataChunk
export type DuckDBInstance = DuckDB.DuckDBInstance
export type DuckDBListValue = DuckDB.DuckDBListValue
export type DuckDBTimestampValue = DuckDB.DuckDBTimestampValue

/**
 * The module whose shared TextDecoder turns every VARCHAR into a string: the very one the values
 * above use (so that a change to it holds for them, packed or not).
 */
export const textAccessors = dataAccessors as unknown as {
  textDecoder?: { decode(bytes: Uint8Array): string }
}
