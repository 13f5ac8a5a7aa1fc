import type { z } from 'zod'
import type { PropertyType } from '../schemas/custom-properties.js'
import { type Def, defOf, unwrap } from './zod-def.js'

/**
 * The CSV conventions of skillhouse's input files, applied with the zod schema as a guide:
 * - dotted column names build nested objects (`location.lat`, `content.job_title`);
 * - an empty cell means the field is absent;
 * - a cell starting with `[` or `{` is read as JSON;
 * - arrays are `|`-separated; an array of objects is positional by key order with `:`
 *   (`languages` = `en:5|nl:3`);
 * - numbers and booleans are written plainly and converted where the schema expects them;
 * - custom property values are converted by their definition's type.
 * Cells that do not convert are left as text, so that the schema names the field and the problem.
 */
export function csvCellsToRecord(
  cells: Record<string, string | null>,
  schema: z.ZodType,
  customPropertyTypes?: ReadonlyMap<string, PropertyType>,
): Record<string, unknown> {
  const nested: Record<string, unknown> = {}
  for (const [column, cell] of Object.entries(cells)) {
    if (cell === null || cell === '') continue
    setPath(nested, column.split('.'), cell)
  }
  return coerce(nested, schema, { customPropertyTypes, key: '' }) as Record<string, unknown>
}

interface Context {
  customPropertyTypes: ReadonlyMap<string, PropertyType> | undefined
  key: string
}

function setPath(target: Record<string, unknown>, path: string[], value: string): void {
  let node = target
  for (let index = 0; index < path.length - 1; index++) {
    const part = path[index] as string
    const next = node[part]
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[path[path.length - 1] as string] = value
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/

function coerce(value: unknown, schema: z.ZodType, context: Context): unknown {
  const def = defOf(schema)
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return coerce(value, def.innerType as z.ZodType, context)
    case 'pipe':
      return coerce(value, def.in as z.ZodType, context)
    case 'lazy':
      return coerce(value, (def.getter as () => z.ZodType)(), context)
    case 'number':
    case 'int':
      return typeof value === 'string' && NUMBER.test(value.trim()) ? Number(value) : value
    case 'boolean':
      return typeof value === 'string' ? toBoolean(value) : value
    case 'array':
      return coerceArray(value, def.element as z.ZodType, context)
    case 'object':
      return coerceObject(value, def, context)
    case 'record':
      return coerceRecord(value, def, context)
    case 'union':
      return coerceUnion(value, def, context)
    default:
      return value
  }
}

function toBoolean(value: string): boolean | string {
  const lower = value.trim().toLowerCase()
  if (lower === 'true') return true
  if (lower === 'false') return false
  return value
}

function parseJsonCell(value: string): unknown {
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

function coerceArray(value: unknown, element: z.ZodType, context: Context): unknown {
  if (typeof value === 'string') {
    const trimmed = value.trim()
    if (trimmed.startsWith('[')) return parseJsonCell(trimmed)
    const items = value.split('|').map((item) => item.trim())
    const elementDef = defOf(unwrap(element))
    if (elementDef.type === 'object' && elementDef.shape) {
      const keys = Object.keys(elementDef.shape)
      return items.map((item) => {
        const parts = item.split(':')
        const record: Record<string, unknown> = {}
        keys.forEach((key, index) => {
          const part = parts[index]
          if (part !== undefined && part !== '') record[key] = part
        })
        return coerce(record, element, context)
      })
    }
    return items.map((item) => coerce(item, element, context))
  }
  if (Array.isArray(value)) return value.map((item) => coerce(item, element, context))
  return value
}

function coerceObject(value: unknown, def: Def, context: Context): unknown {
  const object = typeof value === 'string' && value.trim().startsWith('{') ? parseJsonCell(value) : value
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object
  const shape = def.shape ?? {}
  const result: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(object as Record<string, unknown>)) {
    const fieldSchema = shape[key]
    result[key] = fieldSchema ? coerce(field, fieldSchema, { ...context, key }) : field
  }
  return result
}

function coerceRecord(value: unknown, def: Def, context: Context): unknown {
  const object = typeof value === 'string' && value.trim().startsWith('{') ? parseJsonCell(value) : value
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return object
  const result: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(object as Record<string, unknown>)) {
    // Custom properties convert by their definition; other records by their value schema.
    const type = context.key === 'custom_properties' ? context.customPropertyTypes?.get(key) : undefined
    result[key] = type ? coerceProperty(field, type) : coerce(field, def.valueType as z.ZodType, context)
  }
  return result
}

function coerceProperty(value: unknown, type: PropertyType): unknown {
  if (typeof value !== 'string') return value
  switch (type) {
    case 'number':
      return NUMBER.test(value.trim()) ? Number(value) : value
    case 'boolean':
      return toBoolean(value)
    case 'list[text]':
      return value.trim().startsWith('[') ? parseJsonCell(value) : value.split('|').map((item) => item.trim())
    default:
      return value
  }
}

function coerceUnion(value: unknown, def: Def, context: Context): unknown {
  const options = def.options ?? []
  if (def.discriminator && typeof value === 'object' && value !== null) {
    const tag = (value as Record<string, unknown>)[def.discriminator]
    const option = options.find((candidate) =>
      discriminatorValues(candidate, def.discriminator as string).includes(tag),
    )
    return option ? coerce(value, option, context) : value
  }
  // Plain unions: the first option under which the coerced value parses wins.
  for (const option of options) {
    const candidate = coerce(value, option, context)
    if (option.safeParse(candidate).success) return candidate
  }
  return options[0] ? coerce(value, options[0], context) : value
}

function discriminatorValues(option: z.ZodType, discriminator: string): unknown[] {
  const field = defOf(option).shape?.[discriminator]
  if (!field) return []
  const fieldDef = defOf(field)
  if (fieldDef.values) return fieldDef.values
  if (fieldDef.entries) return Object.values(fieldDef.entries)
  return []
}
