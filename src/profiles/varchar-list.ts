import { listValue } from '../vendor/duckdb.js'

/** A list of ids as one DuckDB VARCHAR[] parameter. */
export const listOf = (values: readonly string[]) => listValue([...values])
