import type { CustomPropertyEntityType, PropertyType } from '../../schemas/custom-properties.js'
import { timestampValue } from '../sql-values.js'
import type { TenantDatabase } from '../tenant-database.js'

/** The statements of a tenant's Custom Property definitions (2.9), one row per entity type and name. */

export interface PropertyDefinitionRow {
  property_name: string
  property_type: PropertyType
}

/** The definitions of an entity type, in no particular order. */
export function propertyDefinitionRows(
  database: TenantDatabase,
  entityType: CustomPropertyEntityType,
): Promise<PropertyDefinitionRow[]> {
  return database.all<PropertyDefinitionRow & Record<string, unknown>>(
    'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1',
    [entityType],
  )
}

/** The definitions of an entity type, oldest first (by name among those of the same time). */
export function propertyDefinitionRowsInOrder(
  database: TenantDatabase,
  entityType: CustomPropertyEntityType,
): Promise<PropertyDefinitionRow[]> {
  return database.all<PropertyDefinitionRow & Record<string, unknown>>(
    'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1 ORDER BY created_at, property_name',
    [entityType],
  )
}

export async function hasPropertyDefinition(
  database: TenantDatabase,
  entityType: CustomPropertyEntityType,
  propertyName: string,
): Promise<boolean> {
  const row = await database.one(
    'SELECT 1 AS found FROM custom_property_definitions WHERE entity_type = $1 AND property_name = $2',
    [entityType, propertyName],
  )
  return row !== undefined
}

export async function insertPropertyDefinition(
  database: TenantDatabase,
  entityType: CustomPropertyEntityType,
  definition: PropertyDefinitionRow,
  time: Date,
): Promise<void> {
  await database.run('INSERT INTO custom_property_definitions VALUES ($1, $2, $3, $4)', [
    entityType,
    definition.property_name,
    definition.property_type,
    timestampValue(time),
  ])
}
