import { CUSTOM_PROPERTY_ENTITY_TYPES, CustomPropertyDefinition } from '../../schemas/custom-properties.js'
import {
  createCustomPropertyDefinition,
  listCustomPropertyDefinitions,
} from '../../taxonomy/taxonomy-operations.js'
import { z } from '../../vendor/zod.js'
import type { ApiRoute } from '../api-route.js'
import { BASE_ERRORS, BODY_ERRORS, emptySuccess, errorsOf, jsonSuccess, pascal } from '../route-docs.js'
import { checked, noContent, ok } from './route-answers.js'

/** `GET` and `POST /{entity_type}/custom_properties` (4.8) for every entity type of 2.9. */
export function customPropertyRoutes(): ApiRoute[] {
  return CUSTOM_PROPERTY_ENTITY_TYPES.flatMap((entityType): ApiRoute[] => [
    {
      method: 'GET',
      path: `/${entityType}/custom_properties`,
      statuses: [403, 405, 503],
      doc: {
        operationId: `list${pascal(entityType)}CustomProperties`,
        summary: `Get all Custom Property definitions of ${entityType}`,
        description:
          'Section 4.8, `GET /{entity_type}/custom_properties`, for this entity type (entity types hold a slash, so each has its own path). Oldest definition first.',
        tag: 'Custom properties',
        section: '4.8',
        success: jsonSuccess(z.array(CustomPropertyDefinition), 'The definitions of the entity type.'),
        errors: errorsOf(BASE_ERRORS),
      },
      handler: async (context) =>
        ok(await context.tenant((tenant) => listCustomPropertyDefinitions(tenant, entityType))),
    },
    {
      method: 'POST',
      path: `/${entityType}/custom_properties`,
      doc: {
        operationId: `create${pascal(entityType)}CustomProperty`,
        summary: `Define a Custom Property for ${entityType}`,
        description:
          'Adds a Custom Property definition (2.9) to the entity type; its values are then checked on every record of that type. 409 when the entity type already has a property of that name.',
        tag: 'Custom properties',
        body: { schema: CustomPropertyDefinition, required: true, description: 'The definition (2.9).' },
        success: emptySuccess('The definition was created.'),
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
      },
      handler: async (context) => {
        const body = checked(CustomPropertyDefinition, await context.body(), 'a custom property definition')
        await context.tenant((tenant) => createCustomPropertyDefinition(tenant, entityType, body))
        return noContent
      },
    },
  ])
}
