import type { z } from 'zod'
import { type Check, checksOf, type Def, defOf, objectRules, stringChecks, Unsupported } from './zod-def.js'

/**
 * A parse compiled from a zod schema that answers only when the value is certainly valid: it
 * returns what zod's parse would return (same values, keys in the schema's order) or `undefined`
 * when zod must decide (and name the problem). Covers the parts of zod our row schemas use:
 * strings with lengths, patterns and ISO dates, numbers with bounds and integers, booleans,
 * enums, literals, optional fields, arrays, strict objects (with date orders, `datesInOrder`) and
 * (discriminated) unions. A schema with anything else (defaults, transforms, other refinements, …)
 * gets no fast parse at all.
 */
export type FastParse = (value: unknown) => unknown

const NOT_SURE = undefined

const cache = new WeakMap<z.ZodType, FastParse | null>()

/** The fast parse of `schema`, or null when the schema uses something it does not cover. */
export function fastParseOf(schema: z.ZodType): FastParse | null {
  let parse = cache.get(schema)
  if (parse === undefined) {
    try {
      parse = compile(schema)
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error
      parse = null
    }
    cache.set(schema, parse)
  }
  return parse
}

function compile(schema: z.ZodType): FastParse {
  const def = defOf(schema)
  switch (def.type) {
    case 'string':
      return compileString(def)
    case 'number':
      return compileNumber(def)
    case 'boolean':
      if (def.checks?.length) throw new Unsupported()
      return (value) => (typeof value === 'boolean' ? value : NOT_SURE)
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}))
      return (value) => (typeof value === 'string' && values.has(value) ? value : NOT_SURE)
    }
    case 'literal': {
      const values = new Set(def.values ?? [])
      return (value) => (values.has(value) ? value : NOT_SURE)
    }
    case 'array':
      return compileArray(def)
    case 'object':
      return compileObject(def)
    case 'union':
      return def.discriminator ? compileDiscriminated(def) : compileUnion(def)
    default:
      throw new Unsupported()
  }
}

function lengthBounds(checks: Check[]): { min: number; max: number; rest: Check[] } {
  let min = 0
  let max = Number.POSITIVE_INFINITY
  const rest: Check[] = []
  for (const check of checks) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum ?? 0)
    else if (check.check === 'max_length') max = Math.min(max, check.maximum ?? max)
    else rest.push(check)
  }
  return { min, max, rest }
}

function compileString(def: Def): FastParse {
  // A string format (z.iso.date, …) is its pattern; only formats that are nothing but a pattern.
  const { min, max, patterns } = stringChecks(def)
  // Patterns without flags that change state between tests (g, y) only.
  for (const pattern of patterns) if (pattern.global || pattern.sticky) throw new Unsupported()
  return (value) => {
    if (typeof value !== 'string') return NOT_SURE
    // zod measures strings in code points: a unit count settles it unless surrogate pairs could matter.
    const units = value.length
    if (units > max || units < min * 2) {
      const length = codePoints(value)
      if (length < min || length > max) return NOT_SURE
    }
    for (const pattern of patterns) if (!pattern.test(value)) return NOT_SURE
    return value
  }
}

function codePoints(text: string): number {
  let count = text.length
  for (let index = 0; index < text.length - 1; index++) {
    if ((text.charCodeAt(index) & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      count--
      index++
    }
  }
  return count
}

function compileNumber(def: Def): FastParse {
  let low = Number.NEGATIVE_INFINITY
  let lowInclusive = true
  let high = Number.POSITIVE_INFINITY
  let highInclusive = true
  let integer = false
  for (const check of checksOf(def)) {
    if (check.check === 'greater_than') {
      low = check.value as number
      lowInclusive = check.inclusive === true
    } else if (check.check === 'less_than') {
      high = check.value as number
      highInclusive = check.inclusive === true
    } else if (check.check === 'number_format' && check.format === 'safeint') integer = true
    else throw new Unsupported()
  }
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return NOT_SURE
    if (integer && !Number.isSafeInteger(value)) return NOT_SURE
    if (lowInclusive ? value < low : value <= low) return NOT_SURE
    if (highInclusive ? value > high : value >= high) return NOT_SURE
    return value
  }
}

function compileArray(def: Def): FastParse {
  const { min, max, rest } = lengthBounds(checksOf(def))
  if (rest.length) throw new Unsupported()
  const element = compile(def.element as z.ZodType)
  return (value) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) return NOT_SURE
    const result = new Array(value.length)
    for (let index = 0; index < value.length; index++) {
      const item = element(value[index])
      if (item === NOT_SURE) return NOT_SURE
      result[index] = item
    }
    return result
  }
}

interface Field {
  key: string
  parse: FastParse
  optional: boolean
}

function compileObject(def: Def): FastParse {
  // Strict objects only (an unknown key is zod's to name); of object-level checks, date orders.
  if (!def.catchall || defOf(def.catchall).type !== 'never') throw new Unsupported()
  const orders = objectRules(def)
  const fields: Field[] = Object.entries(def.shape ?? {}).map(([key, schema]) => {
    const fieldDef = defOf(schema)
    const optional = fieldDef.type === 'optional'
    if (optional && fieldDef.checks?.length) throw new Unsupported()
    return { key, optional, parse: compile(optional ? (fieldDef.innerType as z.ZodType) : schema) }
  })
  const known = new Set(fields.map((field) => field.key))
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NOT_SURE
    const input = value as Record<string, unknown>
    let present = 0
    for (const key in input) {
      if (!Object.hasOwn(input, key) || !known.has(key)) return NOT_SURE
      present++
    }
    // Own keys that `for…in` does not list (symbols, non-enumerable) are zod's to judge.
    if (Object.getOwnPropertyNames(input).length !== present) return NOT_SURE
    const result: Record<string, unknown> = {}
    for (const field of fields) {
      const item = input[field.key]
      if (item === undefined) {
        if (!field.optional || Object.hasOwn(input, field.key)) return NOT_SURE
        continue
      }
      const parsed = field.parse(item)
      if (parsed === NOT_SURE) return NOT_SURE
      result[field.key] = parsed
    }
    for (const { from, to } of orders) {
      const start = result[from]
      const end = result[to]
      if (typeof start === 'string' && typeof end === 'string' && end < start) return NOT_SURE
    }
    return result
  }
}

function compileUnion(def: Def): FastParse {
  const options = (def.options ?? []).map(compile)
  // zod returns the first option that parses.
  return (value) => {
    for (const option of options) {
      const parsed = option(value)
      if (parsed !== NOT_SURE) return parsed
    }
    return NOT_SURE
  }
}

function compileDiscriminated(def: Def): FastParse {
  const discriminator = def.discriminator as string
  const byTag = new Map<unknown, FastParse>()
  for (const option of def.options ?? []) {
    const tagSchema = defOf(option).shape?.[discriminator]
    const tagDef = tagSchema ? defOf(tagSchema) : undefined
    if (tagDef?.type !== 'literal' || !tagDef.values) throw new Unsupported()
    const parse = compile(option)
    for (const tag of tagDef.values) if (!byTag.has(tag)) byTag.set(tag, parse)
  }
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return NOT_SURE
    const parse = byTag.get((value as Record<string, unknown>)[discriminator])
    return parse ? parse(value) : NOT_SURE
  }
}
