import { errors } from '../errors/skillhouse-error.js'
import {
  CUSTOM_PROPERTY_ENTITY_TYPES,
  type CustomProperties,
  CustomPropertyDefinition,
  CustomPropertyEntityType,
  checkCustomProperties,
  type PropertyType,
} from '../schemas/custom-properties.js'
import {
  hasPropertyDefinition,
  insertPropertyDefinition,
  propertyDefinitionRows,
  propertyDefinitionRowsInOrder,
} from '../store/taxonomy/custom-property-tables.js'
import { parseInput, type TaxonomyTenant } from './taxonomy-tenant.js'

/**
 * Custom Property definitions (2.9, 4.8): what custom properties an entity type takes, and the
 * check of an entity's custom properties against them.
 */

/** The tenant's definitions for `entityTypes`, by property name; the first entity type wins a clash. */
async function propertyDefinitions(
  tenant: TaxonomyTenant,
  entityTypes: readonly CustomPropertyEntityType[],
): Promise<Map<string, PropertyType>> {
  const definitions = new Map<string, PropertyType>()
  for (const entityType of entityTypes) {
    for (const row of await propertyDefinitionRows(tenant.database, entityType)) {
      if (!definitions.has(row.property_name)) definitions.set(row.property_name, row.property_type)
    }
  }
  return definitions
}

/**
 * 422 naming each custom property that `entityTypes` (the first one canonical) do not define or
 * whose value is not of its defined type.
 */
export async function checkProperties(
  tenant: TaxonomyTenant,
  entityTypes: readonly CustomPropertyEntityType[],
  values: CustomProperties | undefined,
): Promise<void> {
  if (!values || Object.keys(values).length === 0) return
  const problems = checkCustomProperties(
    values,
    await propertyDefinitions(tenant, entityTypes),
    entityTypes[0] as CustomPropertyEntityType,
  )
  if (problems.length)
    throw errors.unprocessable(problems.map((problem) => `${problem.path}: ${problem.message}`))
}

function entityTypeOf(entityType: unknown): CustomPropertyEntityType {
  const parsed = CustomPropertyEntityType.safeParse(entityType)
  if (!parsed.success) {
    throw errors.unprocessable(
      `entity_type: '${String(entityType)}' does not carry custom properties; valid values: ${CUSTOM_PROPERTY_ENTITY_TYPES.join(', ')}`,
    )
  }
  return parsed.data
}

/**
 * `POST /{entity_type}/custom_properties`: defines a Custom Property (2.9) for an entity type.
 * 409 when the entity type already has a property of that name.
 */
export async function createCustomPropertyDefinition(
  tenant: TaxonomyTenant,
  entityType: unknown,
  definition: unknown,
): Promise<CustomPropertyDefinition> {
  const type = entityTypeOf(entityType)
  const parsed = parseInput(CustomPropertyDefinition, definition, 'a custom property definition')
  return tenant.database.transaction(async () => {
    if (await hasPropertyDefinition(tenant.database, type, parsed.property_name))
      throw errors.conflict(`custom property of ${type}`, parsed.property_name)
    await insertPropertyDefinition(tenant.database, type, parsed, new Date())
    return parsed
  })
}

/** `GET /{entity_type}/custom_properties` (4.8): the definitions of an entity type, oldest first. */
export async function listCustomPropertyDefinitions(
  tenant: TaxonomyTenant,
  entityType: unknown,
): Promise<CustomPropertyDefinition[]> {
  const type = entityTypeOf(entityType)
  const rows = await propertyDefinitionRowsInOrder(tenant.database, type)
  return rows.map((row) => ({ property_name: row.property_name, property_type: row.property_type }))
}
