import { ENTITY_COLLECTIONS, type EntityCollection } from '../../entities/entity-collections.js'
import {
  createEntity,
  deleteEntity,
  getEntity,
  listEntities,
  updateEntity,
} from '../../entities/entity-store.js'
import { PageQuery, pageOf } from '../../schemas/common.js'
import {
  Company,
  Course,
  Employee,
  Job,
  JobFamily,
  OrganisationalUnit,
  Vacancy,
} from '../../schemas/entities.js'
import { z } from '../../vendor/zod.js'
import type { ApiRoute, RouteContext } from '../api-route.js'
import {
  BASE_ERRORS,
  BODY_ERRORS,
  emptySuccess,
  errorsOf,
  idParam,
  jsonSuccess,
  type TagName,
  words,
} from '../route-docs.js'
import { noContent, ok } from './route-answers.js'

interface CollectionDoc {
  tag: TagName
  noun: string
  plural: string
  param: string
  schema: z.ZodObject
  section?: string
}

/** Names and schemas of the collections of the resource pattern (docs/api.md), by path (the store checks with the same schemas). */
const COLLECTION_DOCS: Record<string, CollectionDoc> = {
  companies: {
    tag: 'Companies',
    noun: 'Company',
    plural: 'Companies',
    param: 'company_external_id',
    schema: Company,
    section: '4.3',
  },
  organisational_units: {
    tag: 'Organisational units',
    noun: 'OrganisationalUnit',
    plural: 'OrganisationalUnits',
    param: 'organisational_unit_external_id',
    schema: OrganisationalUnit,
  },
  'job_architecture/job_families': {
    tag: 'Job architecture',
    noun: 'JobFamily',
    plural: 'JobFamilies',
    param: 'job_family_external_id',
    schema: JobFamily,
  },
  'job_architecture/jobs': {
    tag: 'Job architecture',
    noun: 'Job',
    plural: 'Jobs',
    param: 'job_external_id',
    schema: Job,
  },
  courses: {
    tag: 'Entities',
    noun: 'Course',
    plural: 'Courses',
    param: 'course_external_id',
    schema: Course,
  },
  vacancies: {
    tag: 'Entities',
    noun: 'Vacancy',
    plural: 'Vacancies',
    param: 'vacancy_external_id',
    schema: Vacancy,
  },
  employees: {
    tag: 'Entities',
    noun: 'Employee',
    plural: 'Employees',
    param: 'employee_external_id',
    schema: Employee,
  },
}

/**
 * The body of a PATCH of the resource pattern: any of the record's fields; a field replaces the
 * stored one whole, `custom_properties` merge by name, `null` removes a field or a property.
 */
export function patchOf(record: z.ZodObject): z.ZodObject {
  const shape: Record<string, z.ZodType> = {}
  for (const [name, field] of Object.entries(record.shape)) {
    const inner = field instanceof z.ZodDefault ? field.unwrap() : field
    shape[name] = (inner as z.ZodType).nullable().optional()
  }
  return z.strictObject(shape)
}

/** The resource pattern of docs/api.md for every collection of 2.x the spec names without describing. */
export function collectionRoutes(): ApiRoute[] {
  return ENTITY_COLLECTIONS.flatMap((collection) => {
    const doc = COLLECTION_DOCS[collection.path]
    if (!doc) throw new Error(`the collection ${collection.path} has no documentation`)
    const names = collectionNames(collection, doc)
    return [
      createRecordRoute(names),
      listRecordsRoute(names),
      getRecordRoute(names),
      updateRecordRoute(names),
      deleteRecordRoute(names),
    ]
  })
}

/** A collection with the words and paths its routes and their documentation use. */
interface CollectionNames {
  collection: EntityCollection
  doc: CollectionDoc
  spaced: string
  article: 'a' | 'an'
  base: string
  item: string
  params: z.ZodObject
}

function collectionNames(collection: EntityCollection, doc: CollectionDoc): CollectionNames {
  const spaced = words(doc.noun)
  return {
    collection,
    doc,
    spaced,
    article: /^[AEIOU]/.test(doc.noun) ? 'an' : 'a',
    base: `/${collection.path}`,
    item: `/${collection.path}/:external_id`,
    params: idParam(doc.param, `external_id of the ${spaced}`),
  }
}

const recordId = (context: RouteContext) => context.params.external_id ?? ''

function createRecordRoute({ collection, doc, spaced, article, base }: CollectionNames): ApiRoute {
  return {
    method: 'POST',
    path: base,
    ...(collection.path === 'companies' ? { statuses: [400, 401, 403, 405, 409, 413, 415, 503] } : {}),
    doc: {
      operationId: `create${doc.noun}`,
      summary: `Create ${article} ${spaced}`,
      description: `${doc.section ? `Section ${doc.section}. ` : ''}The record is checked as ingest checks a row of ${collection.path} (references must exist: 404; custom properties must be defined: 422); 409 when its external_id exists.`,
      tag: doc.tag,
      ...(doc.section ? { section: doc.section } : {}),
      body: { schema: doc.schema, required: true, description: `The ${spaced}.` },
      success: emptySuccess(`The ${spaced} was created.`),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
    },
    handler: async (context) => {
      const body = await context.body()
      await context.tenant((tenant) => createEntity(tenant, collection, body))
      context.changed()
      return noContent
    },
  }
}

function listRecordsRoute({ collection, doc, base }: CollectionNames): ApiRoute {
  return {
    method: 'GET',
    path: base,
    doc: {
      operationId: `list${doc.plural}`,
      summary: `List ${words(doc.plural)}`,
      description:
        'A page of records in external_id order, after `starting_after` (exclusive; it need not exist).',
      tag: doc.tag,
      query: PageQuery,
      success: jsonSuccess(pageOf(doc.schema), `A page of ${words(doc.plural)}.`),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) =>
      ok(
        await context.tenant((tenant) =>
          listEntities(tenant, collection, {
            starting_after: context.query('starting_after'),
            limit: context.query('limit'),
          }),
        ),
      ),
  }
}

function getRecordRoute({ collection, doc, spaced, article, item, params }: CollectionNames): ApiRoute {
  return {
    method: 'GET',
    path: item,
    doc: {
      operationId: `get${doc.noun}`,
      summary: `Get ${article} ${spaced}`,
      description: 'The record as stored.',
      tag: doc.tag,
      params,
      success: jsonSuccess(doc.schema, `The ${spaced}.`),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) =>
      ok(await context.tenant((tenant) => getEntity(tenant, collection, recordId(context)))),
  }
}

function updateRecordRoute({ collection, doc, spaced, article, item, params }: CollectionNames): ApiRoute {
  return {
    method: 'PATCH',
    path: item,
    doc: {
      operationId: `update${doc.noun}`,
      summary: `Update ${article} ${spaced}`,
      description:
        'A merge: a field of the body replaces the stored field whole, `custom_properties` merge by property name, and `null` removes a field or a property. The merged record gets every check of a new one; `external_id` may be repeated but not changed (422).',
      tag: doc.tag,
      params,
      body: { schema: patchOf(doc.schema), required: true, description: 'The fields to change.' },
      success: emptySuccess(`The ${spaced} was updated (or already was as asked).`),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
    },
    handler: async (context) => {
      const body = await context.body()
      const changed = await context.tenant((tenant) =>
        updateEntity(tenant, collection, recordId(context), body),
      )
      if (changed) context.changed()
      return noContent
    },
  }
}

function deleteRecordRoute({ collection, doc, spaced, article, item, params }: CollectionNames): ApiRoute {
  return {
    method: 'DELETE',
    path: item,
    doc: {
      operationId: `delete${doc.noun}`,
      summary: `Delete ${article} ${spaced}`,
      description: `Removes the record and what means nothing without it (its skill profile${collection.path === 'employees' ? ', skill events and match feedback' : ''}); 409 names the records that still refer to it.`,
      tag: doc.tag,
      params,
      success: emptySuccess(`The ${spaced} was deleted.`),
      errors: errorsOf(BASE_ERRORS, [409]),
    },
    handler: async (context) => {
      await context.tenant((tenant) => deleteEntity(tenant, collection, recordId(context)))
      context.changed()
      return noContent
    },
  }
}
