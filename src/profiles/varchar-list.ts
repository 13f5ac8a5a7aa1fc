import { listValue } from '@duckdb/node-api'

/** A list of ids as one DuckDB VARCHAR[] parameter. */
export const listOf = (values: readonly string[]) => listValue([...values])
