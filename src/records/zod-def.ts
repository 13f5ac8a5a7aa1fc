import type { z } from 'zod'
import { dateOrderOf } from '../schemas/common.js'

/**
 * What the schema compilers of ingest (fast-parse.ts, sql-proof.ts) read of a zod 4 schema: its
 * definition on `_zod.def`, typed for the parts they read.
 */
export interface Check {
  check: string
  minimum?: number
  maximum?: number
  value?: number
  inclusive?: boolean
  format?: string
  pattern?: RegExp
}
export interface Def {
  type: string
  checks?: { _zod: { def: Check } }[]
  format?: string
  pattern?: RegExp
  shape?: Record<string, z.ZodType>
  catchall?: z.ZodType
  element?: z.ZodType
  innerType?: z.ZodType
  options?: z.ZodType[]
  discriminator?: string
  entries?: Record<string, unknown>
  values?: unknown[]
  valueType?: z.ZodType
  in?: z.ZodType
  getter?: () => z.ZodType
}
export const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def
export const checksOf = (def: Def) => (def.checks ?? []).map((check) => check._zod.def)

/** Thrown by a compiler that meets a part of zod it does not cover. */
export class Unsupported extends Error {}

/**
 * A string schema's length bounds and patterns (its format's, when the format is nothing but a
 * pattern, as z.iso.date; then its regex checks); anything else is Unsupported.
 */
export function stringChecks(def: Def): { min: number; max: number; patterns: RegExp[] } {
  let min = 0
  let max = Number.POSITIVE_INFINITY
  const patterns: RegExp[] = []
  if (def.format) {
    if (def.format !== 'date' || !def.pattern) throw new Unsupported()
    patterns.push(def.pattern)
  }
  for (const check of checksOf(def)) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum ?? 0)
    else if (check.check === 'max_length') max = Math.min(max, check.maximum ?? max)
    else if (check.check === 'string_format' && check.format === 'regex' && check.pattern)
      patterns.push(check.pattern)
    else throw new Unsupported()
  }
  return { min, max, patterns }
}

/** A rule of an object that the compilers cover: date `to` not before date `from` (datesInOrder). */
export interface DateOrder {
  from: string
  to: string
}

/** An object's own checks, each a date order (see `datesInOrder`); anything else is Unsupported. */
export function objectRules(def: Def): DateOrder[] {
  return (def.checks ?? []).map((check) => {
    const order = dateOrderOf(check._zod.def)
    if (!order) throw new Unsupported()
    return order
  })
}

/** The wrappers that only say whether a value may be absent or null, or give its default. */
export const PRESENCE_WRAPPERS: ReadonlySet<string> = new Set([
  'optional',
  'nullable',
  'default',
  'prefault',
  'readonly',
])

/**
 * The schema inside the wrappers named in `wrappers` (by default those of presence); with `pipe`
 * its input side, with `lazy` what its getter gives.
 */
export function unwrap(schema: z.ZodType, wrappers: ReadonlySet<string> = PRESENCE_WRAPPERS): z.ZodType {
  let current = schema
  for (;;) {
    const def = defOf(current)
    if (!wrappers.has(def.type)) return current
    const inner = def.type === 'pipe' ? def.in : def.type === 'lazy' ? def.getter?.() : def.innerType
    if (!inner) return current
    current = inner
  }
}
