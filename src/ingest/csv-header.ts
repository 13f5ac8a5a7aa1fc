import { closest, distance } from 'fastest-levenshtein'
import type { z } from 'zod'
import type { EntityKind } from '../records/entity-kinds.js'
import { defOf, PRESENCE_WRAPPERS, unwrap } from '../records/zod-def.js'

/** What a column may name at one level of a record: its fields, which are required, which hold anything. */
interface Level {
  fields: Map<string, z.ZodType[]>
  required: Set<string>
  open: boolean
}

/** Every wrapper of a field's value: a header names the field whatever its schema wraps. */
const WRAPPERS = new Set([...PRESENCE_WRAPPERS, 'catch', 'pipe', 'lazy'])

const isOptional = (schema: z.ZodType) => {
  const type = defOf(schema).type
  return type === 'optional' || type === 'default' || type === 'prefault'
}

/** The fields of the objects a schema may be (every option of a union); open for records and anything else. */
function levelOf(schemas: readonly z.ZodType[]): Level {
  const level: Level = { fields: new Map(), required: new Set(), open: false }
  const objects: Record<string, z.ZodType>[] = []
  const collect = (schema: z.ZodType) => {
    const def = defOf(unwrap(schema, WRAPPERS))
    if (def.type === 'union') for (const option of def.options ?? []) collect(option)
    else if (def.type === 'object' && def.shape) objects.push(def.shape)
    else level.open = true
  }
  for (const schema of schemas) collect(schema)
  for (const shape of objects) {
    for (const [key, field] of Object.entries(shape))
      level.fields.set(key, [...(level.fields.get(key) ?? []), field])
  }
  // A field is required when every object the row may be requires it.
  for (const key of level.fields.keys()) {
    if (objects.every((shape) => shape[key] !== undefined && !isOptional(shape[key] as z.ZodType)))
      level.required.add(key)
  }
  return level
}

/**
 * Why a CSV header does not fit an entity, said once for the file before any row is read: each
 * column that is no field of the entity with the nearest one (or, for another id column, the
 * entity's own), and each required column missing; null when the header fits. Dotted columns are
 * checked level by level (`content.text`); below a record (`custom_properties.*`) anything goes.
 */
export function csvHeaderProblem(columns: readonly string[], kind: EntityKind): string | null {
  const top = levelOf([kind.schema])
  const problems: string[] = []
  const unknown: string[] = []
  for (const column of columns) if (!fitsLevels(column, top)) unknown.push(column)
  const present = new Set(columns.map((column) => column.split('.')[0] as string))
  const missing = [...top.required].filter((field) => !present.has(field))
  for (const column of unknown) problems.push(unknownColumnHint(column, kind, top, missing))
  if (missing.length)
    problems.push(
      `the required column${missing.length > 1 ? 's' : ''} ${missing.map((field) => `\`${field}\``).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`,
    )
  if (problems.length === 0) return null
  const valid = [...top.fields.keys()].map((field) => (top.required.has(field) ? `${field}*` : field))
  return `the header does not fit ${kind.entity}, so no row is read: ${problems.join('; ')} (columns of ${kind.entity}: ${valid.join(', ')}; * required)`
}

/** Whether each part of a dotted column names a field at its level (or lies below a record). */
function fitsLevels(column: string, top: Level): boolean {
  let level = top
  for (const part of column.split('.')) {
    const field = level.fields.get(part)
    if (!field) return level.open
    level = levelOf(field)
  }
  return true
}

/** A column that is no field: the entity's id column for another id, else the nearest field. */
function unknownColumnHint(column: string, kind: EntityKind, top: Level, missing: readonly string[]): string {
  const not = `\`${column}\` is not a column of ${kind.entity}`
  const idColumn = missing.find((field) => field === 'external_id' || field.endsWith('_id'))
  if (idColumn && /(^|_)id$/.test(column) && !top.fields.has(column))
    return `${not}; their id column is \`${idColumn}\``
  const parts = column.split('.')
  const prefix = parts.slice(0, -1)
  let level = top
  for (const part of prefix) level = levelOf(level.fields.get(part) ?? [])
  const name = parts[parts.length - 1] as string
  const candidates = [...level.fields.keys()]
  if (candidates.length === 0) return not
  const nearest = closest(name, candidates)
  return distance(name, nearest) <= Math.max(2, Math.floor(name.length / 3))
    ? `${not}: did you mean \`${[...prefix, nearest].join('.')}\`?`
    : not
}
