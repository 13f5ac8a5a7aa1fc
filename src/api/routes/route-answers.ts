import type { z } from 'zod'
import { parseBody } from '../../schemas/input-issues.js'
import type { RouteContext, RouteResult } from '../api-route.js'

/** A 200 answer of `value` as JSON. */
export const ok = (value: unknown): RouteResult => ({ status: 200, json: JSON.stringify(value) })

/** A 204 answer. */
export const noContent: RouteResult = { status: 204 }

/** The vocabulary vendor the request names (`external_vendor`), if any. */
export const vendorOf = (context: RouteContext) => context.query('external_vendor')

/** Checks a body with a schema only for its 400/422 split; the library then checks it again and does the work. */
export const checked = <T extends z.ZodType>(schema: T, body: unknown, what: string) => {
  parseBody(schema, body, what)
  return body
}

/** The named query parameters the request sends (each one's first value). */
export function queryOf(context: RouteContext, names: readonly string[]): Record<string, unknown> {
  const query: Record<string, unknown> = {}
  for (const name of names) {
    const value = context.query(name)
    if (value !== undefined) query[name] = value
  }
  return query
}
