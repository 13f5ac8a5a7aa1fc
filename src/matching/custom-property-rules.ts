import type { CustomProperties, PropertyType } from '../schemas/custom-properties.js'
import type { ProblemList } from './request-issues.js'

/**
 * The custom property filters (2.13) and weights (2.14) of matching, compiled once per request
 * into plain functions. Rules with `from_entity_property` / `to_entity_property` compare two
 * entities: *from* is the entity the request is about (the Job whose matches are exported in
 * 4.10; the Employee of the path in 4.11), *to* is the candidate being matched (the Employee in
 * 4.10; the Vacancy in 4.11). Rules with `property_name` read the candidate.
 *
 * Semantics (text compares case-insensitively, after trimming; a missing or null value never
 * satisfies a rule):
 * - custom_property_equal: from and to hold the same value (lists: the same set).
 * - custom_property: the candidate's value equals property_value (weights: compares with
 *   `operator`, eq/neq for any type, lt/lte/gt/gte for numbers and datetimes).
 * - custom_property_is_in: from's value is to's value or an element of to's list (a list from:
 *   every element is in to).
 * - custom_property_is_in_list: the candidate's value is one of possible_values (a list: every
 *   element is).
 * - custom_property_contains: from's list holds to's value (every element of to's list), or
 *   from's text contains to's text.
 * - custom_property_contains_element: the candidate's list holds property_value (weights: the
 *   share of the listed values it holds).
 * - custom_property_list_overlap: the lists share an element (weights: |A ∩ B| / min(|A|, |B|));
 *   a text counts as a list of one.
 * Property names must be defined for the entity type that holds them; values must fit the
 * property's type. Both are checked before matching and answered with a 422 naming the field.
 */

export type Props = CustomProperties | null | undefined
type Value = CustomProperties[string] | undefined
type Scalar = string | number | boolean

/** A compiled rule: a score in [0, 1] (filters: 0 or 1) from the two entities' properties. */
export interface PropertyRule {
  /** Whether the rule reads the *from* entity (then it is evaluated per pair, not once per candidate). */
  readsSource: boolean
  /** The properties it reads: from (source) and to (candidate). */
  sourceProperty: string | null
  candidateProperty: string | null
  score: (source: Props, candidate: Props) => number
}

export interface RuleContext {
  /** Definitions of the entity types, and how messages name them (`employees`, `vacancies`). */
  sourceDefinitions: ReadonlyMap<string, PropertyType>
  candidateDefinitions: ReadonlyMap<string, PropertyType>
  sourceType: string
  candidateType: string
  problems: ProblemList
}

const norm = (value: Scalar): Scalar => (typeof value === 'string' ? value.trim().toLowerCase() : value)
const isList = (value: Value): value is string[] => Array.isArray(value)
const present = (value: Value): value is Exclude<Value, null | undefined> =>
  value !== null && value !== undefined

function timeOf(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN
}

/** Equality of two scalars of one property type. */
function scalarEqual(a: Scalar, b: Scalar, type: PropertyType): boolean {
  if (type === 'datetime') return timeOf(a) === timeOf(b)
  return norm(a) === norm(b)
}

function asList(value: Value): Scalar[] {
  if (!present(value)) return []
  return isList(value) ? value : [value]
}

function listHas(list: readonly Scalar[], value: Scalar, type: PropertyType): boolean {
  for (const item of list) if (scalarEqual(item, value, type)) return true
  return false
}

const elementType = (type: PropertyType): PropertyType => (type === 'list[text]' ? 'text' : type)

function valuesEqual(a: Value, b: Value, type: PropertyType): boolean {
  if (!present(a) || !present(b)) return false
  if (isList(a) || isList(b)) {
    const left = asList(a)
    const right = asList(b)
    return (
      left.every((item) => listHas(right, item, 'text')) && right.every((item) => listHas(left, item, 'text'))
    )
  }
  return scalarEqual(a, b, type)
}

function isIn(from: Value, to: Value, type: PropertyType): boolean {
  if (!present(from) || !present(to)) return false
  const within = asList(to)
  const items = asList(from)
  return items.length > 0 && items.every((item) => listHas(within, item, elementType(type)))
}

function contains(from: Value, to: Value, type: PropertyType): boolean {
  if (!present(from) || !present(to)) return false
  if (!isList(from) && typeof from === 'string' && !isList(to) && typeof to === 'string') {
    return from.toLowerCase().includes(to.trim().toLowerCase())
  }
  return isIn(to, from, type)
}

function overlap(a: Value, b: Value): number {
  const left = asList(a)
  const right = asList(b)
  if (left.length === 0 || right.length === 0) return 0
  let shared = 0
  const seen = new Set(right.map((item) => norm(item)))
  for (const item of new Set(left.map((value) => norm(value)))) if (seen.has(item)) shared++
  return shared / Math.min(new Set(left.map(norm)).size, seen.size)
}

function compare(a: Value, b: Scalar, type: PropertyType, operator: string): boolean {
  if (!present(a) || isList(a)) return false
  if (operator === 'eq') return scalarEqual(a, b, type)
  if (operator === 'neq') return !scalarEqual(a, b, type)
  const left = type === 'datetime' ? timeOf(a) : Number(a)
  const right = type === 'datetime' ? timeOf(b) : Number(b)
  if (Number.isNaN(left) || Number.isNaN(right)) return false
  switch (operator) {
    case 'lt':
      return left < right
    case 'lte':
      return left <= right
    case 'gt':
      return left > right
    default:
      return left >= right
  }
}

/** Whether a value the client sent fits a property's type (a list property takes its elements' type). */
function valueFits(value: unknown, type: PropertyType): boolean {
  switch (elementType(type)) {
    case 'number':
      return typeof value === 'number'
    case 'boolean':
      return typeof value === 'boolean'
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value))
    default:
      return typeof value === 'string'
  }
}

function definition(
  context: RuleContext,
  side: 'source' | 'candidate',
  name: string,
  field: string,
): PropertyType | undefined {
  const definitions = side === 'source' ? context.sourceDefinitions : context.candidateDefinitions
  const type = definitions.get(name)
  if (!type) {
    const known = [...definitions.keys()].sort()
    context.problems.add(
      `${field}: no custom property '${name}' is defined for ${side === 'source' ? context.sourceType : context.candidateType}; defined: ${known.length ? known.join(', ') : 'none'}`,
    )
  }
  return type
}

const never: PropertyRule = {
  readsSource: false,
  sourceProperty: null,
  candidateProperty: null,
  score: () => 0,
}

type CustomRule = {
  filter?: string
  weight?: string
  from_entity_property?: string
  to_entity_property?: string
  property_name?: string
  property_value?: unknown
  possible_values?: unknown[]
  operator?: string
}

/** The kind of a rule: its `filter` or `weight` field. */
const kindOf = (rule: CustomRule) => rule.filter ?? rule.weight ?? ''

/** Whether a filter or weight is one of the custom property rules this module compiles. */
export function isCustomPropertyRule(rule: { filter?: string; weight?: string }): boolean {
  return kindOf(rule).startsWith('custom_property')
}

/**
 * Compiles one custom property filter or weight; problems go to `context.problems` (and the rule
 * then scores 0). `field` is where the rule sits in the request (`filters[2]`).
 */
export function compilePropertyRule(rule: CustomRule, field: string, context: RuleContext): PropertyRule {
  if (rule.from_entity_property !== undefined && rule.to_entity_property !== undefined) {
    return compilePairRule(rule, rule.from_entity_property, rule.to_entity_property, field, context)
  }
  return compileOwnRule(rule, field, context)
}

/** A rule comparing the source's property `from` with the candidate's property `to`. */
function compilePairRule(
  rule: CustomRule,
  from: string,
  to: string,
  field: string,
  context: RuleContext,
): PropertyRule {
  const kind = kindOf(rule)
  const isWeight = rule.weight !== undefined
  const fromType = definition(context, 'source', from, `${field}.from_entity_property`)
  const toType = definition(context, 'candidate', to, `${field}.to_entity_property`)
  if (!fromType || !toType) return never
  const scalarOf = (type: PropertyType) => elementType(type)
  const mismatch = (why: string) => {
    context.problems.add(
      `${field}: ${kind} cannot compare ${context.sourceType}.${from} (${fromType}) with ${context.candidateType}.${to} (${toType}); ${why}`,
    )
    return never
  }
  const pair = (score: (a: Value, b: Value) => number): PropertyRule => ({
    readsSource: true,
    sourceProperty: from,
    candidateProperty: to,
    score: (source, candidate) => score(source?.[from], candidate?.[to]),
  })
  switch (kind) {
    case 'custom_property_equal':
      if (fromType !== toType) return mismatch('both must have the same type')
      return pair((a, b) => (valuesEqual(a, b, fromType) ? 1 : 0))
    case 'custom_property_is_in':
      if (scalarOf(fromType) !== scalarOf(toType)) return mismatch('the values must be of one type')
      return pair((a, b) => (isIn(a, b, fromType) ? 1 : 0))
    case 'custom_property_contains':
      if (scalarOf(fromType) !== scalarOf(toType) || (fromType !== 'list[text]' && fromType !== 'text'))
        return mismatch('the first must be a text or list[text] property holding values of the second')
      return pair((a, b) => (contains(a, b, fromType) ? 1 : 0))
    case 'custom_property_list_overlap':
      if (![fromType, toType].every((type) => type === 'list[text]' || type === 'text'))
        return mismatch('both must be list[text] (or text) properties')
      return pair((a, b) => {
        const share = overlap(a, b)
        return isWeight ? share : share > 0 ? 1 : 0
      })
    default:
      context.problems.add(`${field}: ${kind} takes property_name, not from/to_entity_property`)
      return never
  }
}

/** A rule testing the candidate's property `property_name` against values of the request. */
function compileOwnRule(rule: CustomRule, field: string, context: RuleContext): PropertyRule {
  const kind = kindOf(rule)
  const isWeight = rule.weight !== undefined
  const name = rule.property_name ?? ''
  const type = definition(context, 'candidate', name, `${field}.property_name`)
  if (!type) return never
  const own = (score: (value: Value) => number): PropertyRule => ({
    readsSource: false,
    sourceProperty: null,
    candidateProperty: name,
    score: (_source, candidate) => score(candidate?.[name]),
  })
  const checkValue = (value: unknown, path: string) => {
    if (!valueFits(value, type)) {
      context.problems.add(
        `${field}.${path}: must be ${describeType(elementType(type))} for ${context.candidateType}.${name} (${type}); got ${JSON.stringify(value)}`,
      )
      return false
    }
    return true
  }
  switch (kind) {
    case 'custom_property': {
      if (type === 'list[text]') {
        context.problems.add(
          `${field}.property_name: ${context.candidateType}.${name} is a list[text] property; use custom_property_contains_element for lists`,
        )
        return never
      }
      const operator = rule.operator ?? 'eq'
      if (!['eq', 'neq'].includes(operator) && type !== 'number' && type !== 'datetime') {
        context.problems.add(
          `${field}.operator: ${operator} compares numbers and datetimes only; ${context.candidateType}.${name} is ${type} (use eq or neq)`,
        )
        return never
      }
      if (!checkValue(rule.property_value, 'property_value')) return never
      const value = rule.property_value as Scalar
      return own((candidate) => (compare(candidate, value, type, operator) ? 1 : 0))
    }
    case 'custom_property_is_in_list': {
      const values = (rule.possible_values ?? []) as Scalar[]
      if (!values.every((value, index) => checkValue(value, `possible_values[${index}]`))) return never
      return own((candidate) => (isIn(candidate, values as string[], type) ? 1 : 0))
    }
    case 'custom_property_contains_element': {
      if (type !== 'list[text]') {
        context.problems.add(
          `${field}.property_name: ${context.candidateType}.${name} is a ${type} property; custom_property_contains_element needs a list[text] property`,
        )
        return never
      }
      const values = (
        Array.isArray(rule.property_value) ? rule.property_value : [rule.property_value]
      ) as Scalar[]
      const path = Array.isArray(rule.property_value)
        ? (index: number) => `property_value[${index}]`
        : () => 'property_value'
      if (!values.every((value, index) => checkValue(value, path(index)))) return never
      return own((candidate) => {
        if (!present(candidate)) return 0
        const list = asList(candidate)
        let held = 0
        for (const value of values) if (listHas(list, value, 'text')) held++
        return isWeight ? held / values.length : held === values.length ? 1 : 0
      })
    }
    default:
      context.problems.add(`${field}: ${kind} takes from_entity_property and to_entity_property`)
      return never
  }
}

function describeType(type: PropertyType): string {
  switch (type) {
    case 'number':
      return 'a number'
    case 'boolean':
      return 'true or false'
    case 'datetime':
      return 'an ISO 8601 date-time'
    default:
      return 'a string'
  }
}
