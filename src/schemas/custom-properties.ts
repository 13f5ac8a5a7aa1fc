import { Timestamp } from './common.js'
import { LIMITS } from './limits.js'
import { z } from './zod.js'

/** Entity types that carry Custom Properties (2.9), as they appear in paths. */
export const CUSTOM_PROPERTY_ENTITY_TYPES = [
  'taxonomy/domains',
  'taxonomy/subdomains',
  'taxonomy/skill_clusters',
  'taxonomy/skills',
  'employees',
  'organisational_units',
  'job_architecture/job_families',
  'job_architecture/jobs',
  'vacancies',
  'courses',
  'skill_clusters',
  'companies',
] as const
export const CustomPropertyEntityType = z.enum(CUSTOM_PROPERTY_ENTITY_TYPES)
export type CustomPropertyEntityType = z.infer<typeof CustomPropertyEntityType>

export const PROPERTY_TYPES = ['text', 'number', 'boolean', 'list[text]', 'datetime'] as const
export const PropertyType = z.enum(PROPERTY_TYPES)
export type PropertyType = z.infer<typeof PropertyType>

export const PropertyName = z
  .string()
  .min(LIMITS.propertyName.min, 'must not be empty')
  .max(LIMITS.propertyName.max, `must be at most ${LIMITS.propertyName.max} characters`)
  .refine((name) => !name.includes('__'), 'must not contain "__"')

/** Custom Property definition (2.9). */
export const CustomPropertyDefinition = z.strictObject({
  property_name: PropertyName,
  property_type: PropertyType,
})
export type CustomPropertyDefinition = z.infer<typeof CustomPropertyDefinition>

/** A definition as a data file holds it: the entity type it belongs to, then the definition. */
export const CustomPropertyDefinitionRow = CustomPropertyDefinition.extend({
  entity_type: CustomPropertyEntityType,
})
export type CustomPropertyDefinitionRow = z.infer<typeof CustomPropertyDefinitionRow>

/** A value of each property type. */
export const PROPERTY_VALUE_SCHEMAS = {
  text: z.string().max(LIMITS.text.max),
  number: z.number().finite(),
  boolean: z.boolean(),
  'list[text]': z.array(z.string().max(1000)).max(LIMITS.listItems.max),
  datetime: Timestamp,
} as const satisfies Record<PropertyType, z.ZodType>

export const CustomPropertyValue = z.union([
  PROPERTY_VALUE_SCHEMAS.text,
  PROPERTY_VALUE_SCHEMAS.number,
  PROPERTY_VALUE_SCHEMAS.boolean,
  PROPERTY_VALUE_SCHEMAS['list[text]'],
])
export type CustomPropertyValue = z.infer<typeof CustomPropertyValue>

/** Values on an entity, keyed by property name; each is checked against its definition on ingest. */
export const CustomProperties = z.record(PropertyName, CustomPropertyValue.nullable())
export type CustomProperties = z.infer<typeof CustomProperties>

/** Checks values against the tenant's definitions; returns one message per problem, with its path. */
export function checkCustomProperties(
  values: CustomProperties | undefined,
  definitions: ReadonlyMap<string, PropertyType>,
  entityType: CustomPropertyEntityType,
): { path: string; message: string }[] {
  if (!values) return []
  const problems: { path: string; message: string }[] = []
  for (const [name, value] of Object.entries(values)) {
    const path = `custom_properties.${name}`
    const type = definitions.get(name)
    if (!type) {
      const known = [...definitions.keys()]
      problems.push({
        path,
        message: `no custom property '${name}' is defined for ${entityType}; defined: ${known.length ? known.join(', ') : 'none'}`,
      })
      continue
    }
    if (value === null) continue
    if (!PROPERTY_VALUE_SCHEMAS[type].safeParse(value).success) {
      problems.push({ path, message: `must be a value of type ${type}; got ${JSON.stringify(value)}` })
    }
  }
  return problems
}
