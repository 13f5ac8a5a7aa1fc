import type { z } from 'zod'
import {
  checksOf,
  type DateOrder,
  type Def,
  defOf,
  objectRules,
  stringChecks,
  Unsupported,
} from '../records/zod-def.js'

/**
 * A SQL condition compiled from a zod schema that proves a value valid: it holds only for values
 * zod accepts *and* returns unchanged, the proof ingest's SQL path asks of every row before it
 * stores the rows without JavaScript (a row it does not prove goes the row-by-row way). It
 * is fast-parse.ts's counterpart (the same parts of zod, the same "certainly valid, else ask
 * zod" contract) with two rules more, so that a row proven here is stored exactly as the
 * JavaScript path would store it (same text, same content hash):
 * - an object's keys come in the schema's order (zod's output order), each once;
 * - numbers are integer literals within ±(2^53 − 1) (JSON.stringify writes them as they came;
 *   a decimal like `22.0` it would shorten, so such a row is left to JavaScript).
 * Two forms: field by field with DuckDB's JSON functions (`jsonNode`), where strings are measured
 * conservatively (UTF-8 bytes against a maximum, never fewer than the code points zod counts);
 * and, for an object whose text as json() writes it is at hand, one regular expression over that
 * text (`patternProof`), which counts characters of the Basic Multilingual Plane and escapes
 * exactly and leaves other characters in bounded fields to JavaScript. Patterns are used only
 * when their JavaScript source means the same in DuckDB's RE2. Anything else (defaults,
 * transforms, refinements, …) compiles to nothing: `null`, and those rows keep the JavaScript
 * path.
 *
 * The SQL is made of the schema's constants only (keys, enum values, patterns, bounds): never
 * of input.
 */

/**
 * A JSON value in SQL, as the text DuckDB gives for it (json_extract, a JSON column of its
 * readers, to_json: no white space around it, so its first character tells its type), with the
 * expression of its keys (when an object) and its members. `jsonNode` asks DuckDB's JSON
 * functions for keys and members; a caller may hand in nodes it computed otherwise (the
 * content's text, once a row). NULL (absent) fails every test.
 */
export interface JsonNode {
  value: string
  /**
   * The value as DuckDB's json() writes it (minified: keys in their order, strings with only
   * the escapes they need), when the caller has it: objects are then checked by one regular
   * expression over this text (see `objectPattern`) instead of member by member.
   */
  text?: string
  /** An object's keys joined by commas, in their order. */
  keys: string
  member(key: string): JsonNode
}

/** A JSON expression whose keys and members are asked of DuckDB's JSON functions. */
export function jsonNode(value: string): JsonNode {
  return {
    value,
    keys: `array_to_string(json_keys(${value}), ',')`,
    member: (key) => jsonNode(`json_extract(${value}, ${literal(`$.${safeKey(key)}`)})`),
  }
}

/**
 * Conditions that must all hold, asked in their order: each only of the rows the ones before it
 * held for. Inside an expression (a CASE branch, a coalesce, a lambda) DuckDB evaluates every
 * operand of an AND for every row, while a CASE asks its THEN only of the rows its WHEN selected:
 * nested CASEs make the expensive checks (the patterns) run on the rows that got that far. The
 * rows it holds for are those the AND of the parts holds for; where the AND would be NULL it may be
 * false, which a proof never tells apart (it is only ever a filter, never negated).
 */
function allOf(parts: readonly string[]): string {
  if (parts.length === 0) return 'true'
  return parts.reduceRight((rest, part) => `(CASE WHEN ${part} THEN ${rest} ELSE false END)`)
}

/** Conditions of which one must hold, asked in their order, each only of the rows not yet held (see allOf). */
function anyOf(parts: readonly string[]): string {
  if (parts.length === 0) return 'false'
  return parts.reduceRight((rest, part) => `(CASE WHEN ${part} THEN true ELSE ${rest} END)`)
}

/** The largest integers of the number rule (15 digits) are well inside this. */
const SAFE = Number.MAX_SAFE_INTEGER

const isString = (node: JsonNode) => `starts_with(${node.value}, '"')`
/** A string's value: the text between the quotes unless it holds an escape. */
export const stringText = (node: JsonNode) =>
  `CASE WHEN strpos(${node.value}, '\\') = 0 THEN ${node.value}[2:-2] ELSE json_extract_string(${node.value}, '$') END`

/** Keys are written into JSON paths and patterns unquoted: plain names only. */
function safeKey(key: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(key)) throw new Unsupported()
  return key
}

/**
 * The condition that proves a row valid, for a schema of strict objects (or a discriminated union
 * of them) whose top-level fields are the nodes `field` gives; the row's own keys (unknown ones,
 * their order) are the caller's to check. Null when the schema uses something the compiler does
 * not cover.
 */
export function rowProofCondition(schema: z.ZodType, field: (key: string) => JsonNode): string | null {
  try {
    return `coalesce(${row(schema, field)}, false)`
  } catch (error) {
    if (error instanceof Unsupported) return null
    throw error
  }
}

/** The condition that proves the JSON expression `value` valid for `schema`; null when not covered. */
export function valueProofCondition(schema: z.ZodType, value: string): string | null {
  try {
    return `coalesce(${compile(schema, jsonNode(value), 0)}, false)`
  } catch (error) {
    if (error instanceof Unsupported) return null
    throw error
  }
}

/**
 * The keys of each object a row field may hold (through discriminated unions, unions and
 * optional wrappers), one list per object schema.
 */
export function objectKeys(schema: z.ZodType, field: string): string[][] {
  const objects: string[][] = []
  const visit = (node: z.ZodType, top: boolean) => {
    const def = defOf(node)
    if (def.type === 'union') for (const option of def.options ?? []) visit(option, top)
    else if (def.type === 'optional' && def.innerType) visit(def.innerType, top)
    else if (def.type === 'object') {
      if (!top) objects.push(Object.keys(def.shape ?? {}))
      else if (def.shape?.[field]) visit(def.shape[field], false)
    }
  }
  visit(schema, true)
  return objects
}

type Fields = (key: string) => JsonNode

function row(schema: z.ZodType, fields: Fields): string {
  const def = defOf(schema)
  if (def.type === 'object') return topFieldsProof(def, fields)
  if (def.type !== 'union' || !def.discriminator) throw new Unsupported()
  const discriminator = def.discriminator
  const tag = fields(discriminator)
  const options: { value: string; checks: FieldCheck[] }[] = []
  const seen = new Set<string>()
  for (const option of def.options ?? []) {
    const optionDef = defOf(option)
    const tagDef = optionDef.shape?.[discriminator] ? defOf(optionDef.shape[discriminator]) : undefined
    if (optionDef.type !== 'object' || tagDef?.type !== 'literal') throw new Unsupported()
    for (const value of tagDef.values ?? []) {
      if (typeof value !== 'string' || !/^[\w .:-]*$/.test(value)) throw new Unsupported()
      if (seen.has(value)) continue
      seen.add(value)
      // The tag's own check is the branch's WHEN.
      const checks = topFieldChecks(optionDef, fields).filter((check) => check.key !== discriminator)
      options.push({ value, checks })
    }
  }
  // A field every option checks alike is checked once, before the branches (it would otherwise be
  // asked in each branch that ends up evaluated).
  const common = (options[0]?.checks ?? []).filter((check) =>
    options.every((option) =>
      option.checks.some((other) => other.key === check.key && other.sql === check.sql),
    ),
  )
  const hoisted = new Set(common.map((check) => check.key))
  const branches = options.map(
    (option) =>
      `WHEN ${literal(JSON.stringify(option.value))} THEN ${allOf(
        option.checks.filter((check) => !hoisted.has(check.key)).map((check) => check.sql),
      )}`,
  )
  // Compared as JSON text (the tags are plain names, written without escapes).
  return allOf([
    ...common.map((check) => check.sql),
    `(CASE ${tag.value} ${branches.join(' ')} ELSE false END)`,
  ])
}

/**
 * A row's fields, read from columns: required fields only, since a reader may give an absent
 * field and a JSON null alike as NULL (which zod tells apart for an optional field).
 */
function topFieldsProof(def: Def, fields: Fields): string {
  return allOf(topFieldChecks(def, fields).map((check) => check.sql))
}

function topFieldChecks(def: Def, fields: Fields): FieldCheck[] {
  if (fieldsOf(def).some((field) => field.optional) || objectRules(def).length > 0) throw new Unsupported()
  return fieldChecks(def, fields, 1)
}

function compile(schema: z.ZodType, node: JsonNode, depth: number): string {
  const def = defOf(schema)
  switch (def.type) {
    case 'string':
      return stringProof(def, node)
    case 'number':
      return numberProof(def, node)
    case 'boolean':
      if (def.checks?.length) throw new Unsupported()
      return `${node.value} IN ('true', 'false')`
    case 'enum':
      return oneOf(Object.values(def.entries ?? {}), node)
    case 'literal':
      return oneOf(def.values ?? [], node)
    case 'array':
      return arrayProof(def, node, depth)
    case 'object':
      if (node.text !== undefined) return patternProof(schema, node.text, depth)
      return objectProof(def, node, depth)
    case 'union':
      if (def.discriminator) throw new Unsupported()
      if (node.text !== undefined) return patternProof(schema, node.text, depth)
      return unionProof(def, node, depth)
    default:
      throw new Unsupported()
  }
}

function stringProof(def: Def, node: JsonNode): string {
  const { min, max, patterns } = stringChecks(def)
  const parts: string[] = []
  // UTF-8 bytes are never fewer than code points, and an escape never shorter than what it
  // stands for: the text's bytes between the quotes bound the string's length from above.
  if (Number.isFinite(max)) parts.push(`strlen(${node.value}) - 2 <= ${integer(max)}`)
  if (min === 1) parts.push(`${node.value} <> '""'`)
  else if (min > 1) parts.push(`length(${stringText(node)}) >= ${integer(min)}`)
  if (patterns.length === 0) return allOf([isString(node), ...parts])
  // Patterned strings without an escape only (else JavaScript decides): the pattern is then
  // matched on the JSON text, quotes included.
  const quoted = patterns.map(
    (pattern) => `regexp_matches(${node.value}, ${literal(`^"(?:${re2(pattern).slice(1, -1)})"$`)})`,
  )
  return allOf([`strpos(${node.value}, '\\') = 0`, ...parts, ...quoted])
}

/**
 * A JavaScript pattern as RE2 source, when it certainly means the same there: anchored at both
 * ends, no flags, and made only of literals, classes, groups, alternation and counted repeats.
 */
function re2(pattern: RegExp): string {
  const source = pattern.source
  if (pattern.flags !== '' || !source.startsWith('^') || !source.endsWith('$')) throw new Unsupported()
  // No lookaround, back-references, named groups, word boundaries or Unicode escapes.
  if (/\(\?[=!<]|\\[1-9bBkpPucx]/.test(source)) throw new Unsupported()
  if (!/^[\w\s^$\\[\]\-(){}|?:+*.,]*$/.test(source)) throw new Unsupported()
  // Nothing that matches differently in RE2 than in JavaScript, nor a quote or a backslash (so
  // that the pattern may be matched inside a JSON string's quotes): no any-character, negated
  // class or class escape but \d.
  if (/\.|\[\^|\\[WSDwsbB]|\\\\/.test(source)) throw new Unsupported()
  // Anchored as a whole: no anchor inside (but a class's negation) and no alternation outside a
  // group, so that the pattern between the outer anchors may be wrapped in other text.
  const inner = source.slice(1, -1)
  let depth = 0
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index]
    if (char === '\\') index++
    else if (char === '(') depth++
    else if (char === ')') depth--
    else if (char === '$' || (char === '^' && inner[index - 1] !== '[')) throw new Unsupported()
    else if (char === '|' && depth === 0) throw new Unsupported()
  }
  return source
}

/**
 * The integers a number schema allows, as the tightest range of its bounds (only integer
 * literals are ever proven, so an exclusive or fractional bound is the integer next to it).
 */
function integerBounds(def: Def): { from: number; to: number } {
  let from = -SAFE
  let to = SAFE
  for (const check of checksOf(def)) {
    const value = check.value as number
    if (check.check === 'greater_than') {
      if (!Number.isFinite(value)) throw new Unsupported()
      from = Math.max(from, check.inclusive === true ? Math.ceil(value) : Math.floor(value) + 1)
    } else if (check.check === 'less_than') {
      if (!Number.isFinite(value)) throw new Unsupported()
      to = Math.min(to, check.inclusive === true ? Math.floor(value) : Math.ceil(value) - 1)
    } else if (check.check !== 'number_format' || check.format !== 'safeint') throw new Unsupported()
  }
  return { from, to }
}

function numberProof(def: Def, node: JsonNode): string {
  const { from, to } = integerBounds(def)
  // An integer of at most 15 digits, written as JSON.stringify writes it (no sign on zero).
  const number = `TRY_CAST(${node.value} AS BIGINT)`
  return allOf([
    `regexp_matches(${node.value}, '^(?:0|-?[1-9][0-9]{0,14})$')`,
    `${number} BETWEEN ${integer(from)} AND ${integer(to)}`,
  ])
}

function oneOf(values: readonly unknown[], node: JsonNode): string {
  if (values.length === 0 || values.some((item) => typeof item !== 'string')) throw new Unsupported()
  // Compared as JSON text: the values are plain names (quoted, they are what DuckDB writes).
  if (values.some((item) => !/^[\w .:-]*$/.test(item as string))) throw new Unsupported()
  return `(${node.value} IN (${values.map((item) => literal(JSON.stringify(item))).join(', ')}))`
}

function arrayProof(def: Def, node: JsonNode, depth: number): string {
  let min = 0
  let max = Number.POSITIVE_INFINITY
  for (const check of checksOf(def)) {
    if (check.check === 'min_length') min = Math.max(min, check.minimum ?? 0)
    else if (check.check === 'max_length') max = Math.min(max, check.maximum ?? max)
    else throw new Unsupported()
  }
  // The elements are read once (bound to a lambda's parameter), then counted and checked.
  const list = `l${depth}`
  const element = `e${depth}`
  const parts: string[] = []
  if (min > 0) parts.push(`len(${list}) >= ${integer(min)}`)
  if (Number.isFinite(max)) parts.push(`len(${list}) <= ${integer(max)}`)
  parts.push(
    `coalesce(list_bool_and(list_transform(${list}, ${element} -> coalesce(${compile(def.element as z.ZodType, jsonNode(element), depth + 1)}, false))), true)`,
  )
  return allOf([
    `starts_with(${node.value}, '[')`,
    `coalesce(list_bool_and(list_transform([json_extract(${node.value}, '$[*]')], ${list} -> ${allOf(parts)})), false)`,
  ])
}

interface Field {
  key: string
  schema: z.ZodType
  optional: boolean
}

function fieldsOf(def: Def): Field[] {
  // Strict objects only; of object-level checks, date orders (as fast-parse.ts), which the
  // callers that prove an object check (`orderProof`, `PatternContext.order`).
  if (!def.catchall || defOf(def.catchall).type !== 'never') throw new Unsupported()
  objectRules(def)
  return Object.entries(def.shape ?? {}).map(([key, schema]) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(key)) throw new Unsupported()
    const fieldDef = defOf(schema)
    const optional = fieldDef.type === 'optional'
    if (optional && fieldDef.checks?.length) throw new Unsupported()
    return { key, optional, schema: optional ? (fieldDef.innerType as z.ZodType) : schema }
  })
}

/**
 * Every field proven: required ones present, optional ones absent or proven. An absent member is
 * NULL; so is a JSON null in a transformed object, which `objectProof` rules out beforehand.
 */
function fieldsProof(def: Def, field: (key: string) => JsonNode, depth: number): string {
  return allOf(fieldChecks(def, field, depth).map((check) => check.sql))
}

/** One field's condition. */
interface FieldCheck {
  key: string
  sql: string
}

function fieldChecks(def: Def, field: (key: string) => JsonNode, depth: number): FieldCheck[] {
  return fieldsOf(def).map(({ key, schema, optional }) => {
    const member = field(key)
    const proof = compile(schema, member, depth)
    return { key, sql: optional ? anyOf([`${member.value} IS NULL`, proof]) : proof }
  })
}

/** How many keys a comma-joined list of keys names. */
const keyCount = (keys: string) =>
  `(length(${keys}) - length(replace(${keys}, ',', '')) + (${keys} <> '')::INTEGER)`

/** How many of the object's fields are present. */
const presentCount = (fields: readonly Field[], node: JsonNode) =>
  `(${fields.map((field) => `(${node.member(field.key).value} IS NOT NULL)::INTEGER`).join(' + ')})`

function objectProof(def: Def, node: JsonNode, depth: number): string {
  const fields = fieldsOf(def)
  // The keys in the schema's order, each once: joined by commas, they match a pattern of the
  // schema's keys in order, each optional (keys are [a-z0-9_]); as many as there are fields
  // present (a key holding a comma would pass for two in the pattern, and find no member); and no
  // member is null (anywhere in the text: conservative, a string holding ": null" is JavaScript's).
  const order = `^${fields.map((field) => `(?:${field.key}(?:,|$))?`).join('')}$`
  const keys = node.keys
  return allOf([
    `starts_with(${node.value}, '{')`,
    `NOT regexp_matches(${node.value}, ':\\s*null')`,
    `regexp_matches(${keys}, ${literal(order)})`,
    `${keyCount(keys)} = ${presentCount(fields, node)}`,
    fieldsProof(def, (key) => node.member(key), depth),
    ...objectRules(def).map((order) => orderProof(order, node)),
  ])
}

/** A date order of an object whose members are proven ISO dates: JSON strings compare as dates. */
function orderProof({ from, to }: DateOrder, node: JsonNode): string {
  const start = node.member(from).value
  const end = node.member(to).value
  return anyOf([`${start} IS NULL`, `${end} IS NULL`, `${end}::VARCHAR >= ${start}::VARCHAR`])
}

/** Certainly not this strict object: not an object, a required key missing, or a key it does not know. */
function objectFails(def: Def, node: JsonNode): string {
  const fields = fieldsOf(def)
  const required = fields.filter((field) => !field.optional)
  return `(NOT starts_with(${node.value}, '{') OR ${required.map((field) => `${node.member(field.key).value} IS NULL OR `).join('')}${keyCount(node.keys)} > ${presentCount(fields, node)})`
}

function unionProof(def: Def, node: JsonNode, depth: number): string {
  // zod returns the first option that parses: an option proves the value only when every
  // option before it certainly fails (so that its output, and key order, is the one zod gives).
  const options = (def.options ?? []).map((option) => defOf(option))
  if (options.length === 0 || options.some((option) => option.type !== 'object')) throw new Unsupported()
  const alternatives: string[] = []
  for (let index = 0; index < options.length; index++) {
    const before = options.slice(0, index).map((option) => objectFails(option, node))
    alternatives.push(allOf([...before, objectProof(options[index] as Def, node, depth)]))
  }
  return anyOf(alternatives)
}

/**
 * An object (or a union of objects) checked on its minified JSON text: one regular expression
 * accepts exactly texts of the schema's keys in its order, each once, with values of the right
 * kind and length (strings counted in UTF-16 units as JavaScript counts them: a character beyond
 * the Basic Multilingual Plane is left to JavaScript), integers in range, enum values; arrays
 * are matched loosely by the pattern and checked element by element in SQL; strings longer
 * than RE2's repetition limit are bounded by the length of the whole text.
 */
function patternProof(schema: z.ZodType, text: string, depth: number): string {
  const extra: string[] = []
  let longest = Number.POSITIVE_INFINITY
  const orders = new Map<string, DateOrder>()
  const context: PatternContext = {
    order: (order) => {
      orders.set(`${order.from},${order.to}`, order)
    },
    array: (key, array) => {
      const member = jsonNode(`json_extract(${text}, ${literal(`$.${safeKey(key)}`)})`)
      extra.push(anyOf([`strpos(${text}, ${literal(`"${key}":`)}) = 0`, arrayProof(array, member, depth)]))
    },
    unbounded: (max) => {
      longest = Math.min(longest, max)
    },
    escaped: (key, max) => {
      const keys = escapedFields.get(max) ?? []
      keys.push(safeKey(key))
      escapedFields.set(max, keys)
    },
  }
  const escapedFields = new Map<number, string[]>()
  const pattern = valuePattern(schema, context)
  // A date order, on a text the pattern proved: each date found by its key, `"key":"` (whose
  // quotes cannot occur inside a string, where they are escaped; the object is flat), and its
  // ten characters compared (strpos, not a pattern: it runs on the rows of several event types).
  // For a union, an option without those keys finds nothing and passes.
  for (const { from, to } of orders.values()) {
    const at = (key: string) => `strpos(${text}, ${literal(`"${safeKey(key)}":"`)})`
    const date = (key: string) => `substr(${text}, ${at(key)} + ${key.length + 4}, 10)`
    extra.push(anyOf([`${at(from)} = 0`, `${at(to)} = 0`, `${date(to)} >= ${date(from)}`]))
  }
  const parts = [`regexp_full_match(${text}, ${literal(pattern)})`, ...extra]
  if (escapedFields.size > 0) {
    // A bounded string with an escape is matched without counting (see stringPattern); counted
    // here, an escape as the one UTF-16 unit it stands for, it must not exceed the maximum.
    // Looked for only in texts that hold an escape at all.
    const longer = [...escapedFields].map(
      ([max, keys]) => `"(?:${keys.join('|')})":"(?:${PLAIN}|${ESCAPE}){${integer(max + 1)}}`,
    )
    parts.push(
      anyOf([`strpos(${text}, '\\') = 0`, `NOT regexp_matches(${text}, ${literal(longer.join('|'))})`]),
    )
  }
  if (Number.isFinite(longest)) parts.unshift(`strlen(${text}) <= ${integer(longest)}`)
  return allOf(parts)
}

interface PatternContext {
  /** A date order of an object: checked apart (a pattern cannot compare). */
  order(order: DateOrder): void
  /** An array member: checked apart (its pattern only says "an array of strings"). */
  array(key: string, def: Def): void
  /** A string whose maximum the pattern cannot count: the whole text is bounded by it. */
  unbounded(max: number): void
  /** A member string of at most `max` units that the pattern lets hold escapes uncounted. */
  escaped(key: string, max: number): void
}

/** RE2's largest counted repetition. */
const REPEAT_MAX = 1000
/** One UTF-16 unit of a JSON string's text: a character of the BMP, an escape, or a \u escape. */
/** (The four hex digits are spelled out: RE2 refuses a repetition nested in one of more than 1,000.) */
const UNIT = '(?:[^"\\\\\\x{10000}-\\x{10FFFF}]|\\\\[^u]|\\\\u[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F])'
/** One character of a JSON string's text that is one UTF-16 unit and no escape. */
const PLAIN = '[^"\\\\\\x{10000}-\\x{10FFFF}]'
/** One escape of a JSON string's text (\\uXXXX with its digits spelled out, as in UNIT). */
const ESCAPE = '\\\\(?:[^u]|u[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F])'
/** Any JSON string (for arrays, whose elements are checked apart). */
const ANY_STRING = '"(?:[^"\\\\]|\\\\.)*"'

function valuePattern(schema: z.ZodType, context: PatternContext, key?: string): string {
  const def = defOf(schema)
  switch (def.type) {
    case 'string':
      return stringPattern(def, context, key)
    case 'number':
      return numberPattern(def)
    case 'boolean':
      if (def.checks?.length) throw new Unsupported()
      return '(?:true|false)'
    case 'enum':
      return namesPattern(Object.values(def.entries ?? {}))
    case 'literal':
      return namesPattern(def.values ?? [])
    case 'array': {
      const element = defOf(def.element as z.ZodType)
      if (key === undefined || element.type !== 'string') throw new Unsupported()
      context.array(key, def)
      return `\\[(?:${ANY_STRING}(?:,${ANY_STRING})*)?\\]`
    }
    case 'object':
      // Flat objects only (the references are found in the text by their keys at the top).
      if (key !== undefined) throw new Unsupported()
      return objectPattern(def, context)
    case 'union': {
      if (key !== undefined) throw new Unsupported()
      if (def.discriminator) throw new Unsupported()
      const options = (def.options ?? []).map((option) => defOf(option))
      if (options.length === 0 || options.some((option) => option.type !== 'object')) throw new Unsupported()
      // zod takes the first option that parses: a later option may prove a text only if no
      // earlier option can parse what it accepts (a required key of the earlier one it cannot
      // hold, or a required key of its own the earlier one does not know).
      options.forEach((option, index) => {
        const keys = fieldsOf(option)
        for (const earlier of options.slice(0, index)) {
          const earlierKeys = fieldsOf(earlier)
          const excluded =
            earlierKeys.some((field) => !field.optional && !keys.some((own) => own.key === field.key)) ||
            keys.some((field) => !field.optional && !earlierKeys.some((own) => own.key === field.key))
          if (!excluded) throw new Unsupported()
        }
      })
      return `(?:${options.map((option) => objectPattern(option, context)).join('|')})`
    }
    default:
      throw new Unsupported()
  }
}

function stringPattern(def: Def, context: PatternContext, key?: string): string {
  const { min, max, patterns } = stringChecks(def)
  if (patterns.length > 1) throw new Unsupported()
  const pattern = patterns[0]
  if (pattern) {
    // Matched inside the quotes, on text without escapes: the pattern must not match a quote or
    // a backslash, and its length bounds must be countable.
    const inner = re2(pattern).slice(1, -1)
    if (min === 0 && max === Number.POSITIVE_INFINITY) return `"(?:${inner})"`
    const repeated = /^(\[[^\]]+\])\+$/.exec(inner)
    if (!repeated || max > REPEAT_MAX) throw new Unsupported()
    return `"${repeated[1]}{${Math.max(1, min)},${integer(max)}}"`
  }
  // Counted: characters only, no escapes (a counted group of alternatives makes RE2's automaton
  // too large to keep, ten times slower); a member string with an escape is matched uncounted,
  // and its length checked apart (patternProof), when the minimum is at most one unit.
  if (max <= REPEAT_MAX) {
    const counted = `${PLAIN}{${integer(min)},${integer(max)}}`
    if (key === undefined || min > 1) return `"${counted}"`
    context.escaped(key, max)
    return `"(?:${counted}|(?:${PLAIN}|${ESCAPE})*${ESCAPE}(?:${PLAIN}|${ESCAPE})*)"`
  }
  if (Number.isFinite(max)) context.unbounded(max)
  return min > 0 ? `"${UNIT}{${integer(min)},}"` : `"${UNIT}*"`
}

/** Integers only (as numberProof), of a range the pattern spells out digit by digit. */
function numberPattern(def: Def): string {
  // Non-negative ranges below 10^15 only.
  const { from, to } = integerBounds(def)
  if (from < 0 || to >= 1e15 || from > to) throw new Unsupported()
  const alternatives: string[] = []
  for (let digits = 1; digits <= String(to).length; digits++) {
    const first = Math.max(from, digits === 1 ? 0 : 10 ** (digits - 1))
    const last = Math.min(to, 10 ** digits - 1)
    if (first <= last) alternatives.push(digitRange(String(first), String(last)))
  }
  return `(?:${alternatives.join('|')})`
}

/** Digit strings of one length from `a` to `b` (a ≤ b). */
function digitRange(a: string, b: string): string {
  if (a === b) return a
  if (a.length === 1) return `[${a}-${b}]`
  const rest = a.length - 1
  if (a[0] === b[0]) return `${a[0]}(?:${digitRange(a.slice(1), b.slice(1))})`
  const low = Number(a[0])
  const high = Number(b[0])
  const parts = [`${low}(?:${digitRange(a.slice(1), '9'.repeat(rest))})`]
  if (low + 1 <= high - 1) parts.push(`[${low + 1}-${high - 1}][0-9]{${rest}}`)
  parts.push(`${high}(?:${digitRange('0'.repeat(rest), b.slice(1))})`)
  return parts.join('|')
}

function namesPattern(values: readonly unknown[]): string {
  if (values.length === 0 || values.some((item) => typeof item !== 'string' || !/^[\w -]*$/.test(item)))
    throw new Unsupported()
  return `"(?:${values.join('|')})"`
}

/**
 * A strict object's text: its keys in the schema's order, each once, required ones present,
 * commas between. The first present field is one of the fields up to the first required one;
 * every later field is preceded by a comma.
 */
function objectPattern(def: Def, context: PatternContext): string {
  for (const order of objectRules(def)) context.order(order)
  const fields = fieldsOf(def).map((field) => ({
    ...field,
    pattern: `"${field.key}":${valuePattern(field.schema, context, field.key)}`,
  }))
  const after = (from: number) =>
    fields
      .slice(from)
      .map((field) => (field.optional ? `(?:,${field.pattern})?` : `,${field.pattern}`))
      .join('')
  const firsts: string[] = []
  for (let index = 0; index < fields.length; index++) {
    const field = fields[index] as (typeof fields)[number]
    firsts.push(`${field.pattern}${after(index + 1)}`)
    if (!field.optional) break
  }
  const empty = fields.every((field) => field.optional) ? '|' : ''
  return `\\{(?:${firsts.join('|')}${empty})\\}`
}

function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`
}

function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Unsupported()
  return String(value)
}
