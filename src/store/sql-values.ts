import { DuckDBTimestampValue } from '../vendor/duckdb.js'

/** A JS time as a DuckDB TIMESTAMP parameter (UTC, microseconds). */
export const timestampValue = (time: Date) => new DuckDBTimestampValue(BigInt(time.getTime()) * 1000n)
