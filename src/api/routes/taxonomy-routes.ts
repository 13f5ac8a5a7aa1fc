import type { z } from 'zod'
import { PageQuery, pageOf } from '../../schemas/common.js'
import {
  CollectionMetric,
  Domain,
  Skill,
  SkillCluster,
  Subdomain,
  SubdomainResponse,
  TaxonomyChangesRequest,
  VocabularyLanguagesResponse,
} from '../../schemas/taxonomy.js'
import {
  DomainPatch,
  DomainResponse,
  SkillClusterPatch,
  SkillClusterResponse,
  SkillDetailResponse,
  SkillPatch,
  SubdomainPatch,
  TaxonomyChangesPage,
} from '../../schemas/taxonomy-operations.js'
import { DEFAULT_VENDOR } from '../../schemas/vendors.js'
import { listTaxonomyChanges } from '../../taxonomy/taxonomy-changes.js'
import {
  createDomain,
  createSkill,
  createSkillCluster,
  createSubdomain,
  deleteDomain,
  deleteSkill,
  deleteSkillCluster,
  deleteSubdomain,
  getDomain,
  getSkill,
  getSkillCluster,
  getSubdomain,
  listDomains,
  listSkillClusters,
  listSkills,
  listSubdomains,
  skillClusterCount,
  type TaxonomyListQuery,
  updateDomain,
  updateSkill,
  updateSkillCluster,
  updateSubdomain,
} from '../../taxonomy/taxonomy-operations.js'
import { vocabularyLanguages } from '../../taxonomy/vocabulary-languages.js'
import type { OpenTenant } from '../../tenants/tenant-service.js'
import type { ApiRoute, RouteContext } from '../api-route.js'
import {
  BASE_ERRORS,
  BODY_ERRORS,
  emptySuccess,
  errorsOf,
  idParam,
  jsonSuccess,
  TaxonomyGetQuery,
  VendorOnly,
  VocabLanguageQuery,
  words,
} from '../route-docs.js'
import { checked, noContent, ok, vendorOf } from './route-answers.js'

/**
 * 4.9 is deprecated (9.3). The header follows RFC 9745: the date from which the resource is
 * deprecated. The spec gives none; skillhouse marks it deprecated since 2025-01-01, the start of
 * the first model configuration it knows to supersede it (MC_2025_Q1_V1).
 */
export const DEPRECATION_HEADER = { Deprecation: '@1735689600' }

type VendorOption = { external_vendor?: string | undefined }

/**
 * A taxonomy level's create, get, update, delete and list, in one vendor's taxonomy
 * (`external_vendor`), with the names and schemas its documentation uses.
 */
interface TaxonomyLevel {
  path: string
  /** What one record is called in messages. */
  what: string
  schema: z.ZodType
  patch: z.ZodType
  create: (tenant: OpenTenant, input: unknown, options: VendorOption) => Promise<unknown>
  get: (
    tenant: OpenTenant,
    id: string,
    options: VendorOption & {
      include?: readonly string[] | undefined
      vocab_language?: string | undefined
    },
  ) => Promise<unknown>
  update: (tenant: OpenTenant, id: string, patch: unknown, options: VendorOption) => Promise<unknown>
  remove: (tenant: OpenTenant, id: string, options: VendorOption) => Promise<unknown>
  list: (tenant: OpenTenant, query: TaxonomyListQuery) => Promise<unknown>
  /** The statuses section 4 lists for creating (4.1) and getting (4.7) a record of the level. */
  createStatuses?: readonly number[]
  getStatuses?: readonly number[]
  /** Whether a change alters what derivation extracts (skills do; the levels above them do not). */
  derives: boolean
  /** The document's name of the item path parameter, the noun in operationIds and its plural. */
  param: string
  noun: string
  plural: string
  response: z.ZodType
  query: z.ZodObject
}

const LEVELS: TaxonomyLevel[] = [
  {
    path: '/taxonomy/domains',
    what: 'a domain',
    schema: Domain,
    patch: DomainPatch,
    create: createDomain,
    get: getDomain,
    update: updateDomain,
    remove: deleteDomain,
    list: listDomains,
    createStatuses: [400, 401, 403, 405, 409, 503],
    derives: false,
    param: 'domain_external_id',
    noun: 'Domain',
    plural: 'Domains',
    response: DomainResponse,
    query: TaxonomyGetQuery,
  },
  {
    path: '/taxonomy/subdomains',
    what: 'a subdomain',
    schema: Subdomain,
    patch: SubdomainPatch,
    create: createSubdomain,
    get: getSubdomain,
    update: updateSubdomain,
    remove: deleteSubdomain,
    list: listSubdomains,
    getStatuses: [401, 403, 404, 405, 503],
    derives: false,
    param: 'subdomain_external_id',
    noun: 'Subdomain',
    plural: 'Subdomains',
    response: SubdomainResponse,
    query: TaxonomyGetQuery,
  },
  {
    path: '/taxonomy/skill_clusters',
    what: 'a skill cluster',
    schema: SkillCluster,
    patch: SkillClusterPatch,
    create: createSkillCluster,
    get: getSkillCluster,
    update: updateSkillCluster,
    remove: deleteSkillCluster,
    list: listSkillClusters,
    derives: false,
    param: 'skill_cluster_external_id',
    noun: 'SkillCluster',
    plural: 'SkillClusters',
    response: SkillClusterResponse,
    query: TaxonomyGetQuery,
  },
  {
    path: '/taxonomy/skills',
    what: 'a skill',
    schema: Skill,
    patch: SkillPatch,
    create: createSkill,
    get: (tenant, id, options) => getSkill(tenant, id, options.external_vendor ?? DEFAULT_VENDOR, options),
    update: updateSkill,
    remove: deleteSkill,
    list: listSkills,
    derives: true,
    param: 'skill_id',
    noun: 'Skill',
    plural: 'Skills',
    response: SkillDetailResponse,
    query: TaxonomyGetQuery.extend({ vocab_language: VocabLanguageQuery }),
  },
]

/** The taxonomy below `/taxonomy` (4.1, 4.7, 4.13): its languages, its changes and its levels. */
export function taxonomyRoutes(): ApiRoute[] {
  return [
    // Before /taxonomy/skills/:id, which would take `languages` for a skill id.
    vocabularyLanguagesRoute(),
    taxonomyChangesRoute(),
    ...LEVELS.flatMap((level) => [
      createLevelRoute(level),
      listLevelRoute(level),
      getLevelRoute(level),
      updateLevelRoute(level),
      deleteLevelRoute(level),
    ]),
  ]
}

function vocabularyLanguagesRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/taxonomy/skills/languages',
    doc: {
      operationId: 'listVocabularyLanguages',
      summary: 'Get the vocabulary languages per vendor',
      description:
        'Section 4.13 names this endpoint (2.1: the languages available per vendor for the tenant are discoverable here). Per vendor: whether it is activated, the languages the tenant can use with it, and how many skills its vocabulary holds.',
      tag: 'Taxonomy',
      section: '4.13',
      success: jsonSuccess(VocabularyLanguagesResponse, 'The languages per vendor.'),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) => ok(await context.tenant((tenant) => vocabularyLanguages(tenant))),
  }
}

function taxonomyChangesRoute(): ApiRoute {
  return {
    method: 'POST',
    path: '/taxonomy/changes',
    // A query sent as a body: it reads, it changes nothing.
    scope: 'read',
    doc: {
      operationId: 'listTaxonomyChanges',
      summary: 'Get the recorded taxonomy changes',
      description:
        'Section 4.13 names this endpoint, filterable by operation_type and by the external_id of one change. A query sent as a body: it changes nothing and needs the read scope. Ordered by time, then external_id; page with `starting_after` (the `next_starting_after` of the previous page).',
      tag: 'Taxonomy',
      section: '4.13',
      body: {
        schema: TaxonomyChangesRequest,
        required: false,
        description: 'Filters and paging; an absent body lists every change.',
      },
      success: jsonSuccess(TaxonomyChangesPage, 'A page of changes.'),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
    },
    handler: async (context) => {
      const body = await context.body({ optional: true })
      return ok(await context.tenant((tenant) => listTaxonomyChanges(tenant.database, body ?? {})))
    },
  }
}

/** 4.9, deprecated: the number of skill clusters as a collection metric. */
export function skillClusterCountRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/skill_clusters/metrics/count',
    statuses: [401, 403, 405, 503],
    headers: DEPRECATION_HEADER,
    doc: {
      operationId: 'getSkillClusterCount',
      summary: 'Get the Skill Cluster count (deprecated)',
      description:
        "Section 4.9, deprecated (9.3). The number of Skill Clusters of the tenant's activated vendors as a collection metric (2.10); `entity_id` is the tenant's name and `last_update` the newest change of a cluster.",
      tag: 'Taxonomy',
      section: '4.9',
      success: jsonSuccess(CollectionMetric, 'The collection metric.'),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) => ok(await context.tenant((tenant) => skillClusterCount(tenant))),
  }
}

/** Skills change what derivation extracts: a change to one derives the profiles again. */
const afterChange = (level: TaxonomyLevel, context: RouteContext) => {
  if (level.derives) context.changed()
}

const itemId = (context: RouteContext) => context.params.external_id ?? ''

const itemParams = (level: TaxonomyLevel) => idParam(level.param, `external_id of the ${words(level.noun)}`)

function createLevelRoute(level: TaxonomyLevel): ApiRoute {
  const spaced = words(level.noun)
  const isDomain = level.noun === 'Domain'
  return {
    method: 'POST',
    path: level.path,
    ...(level.createStatuses ? { statuses: level.createStatuses } : {}),
    doc: {
      operationId: `create${level.noun}`,
      summary: `Create ${isDomain ? 'a Domain' : `a custom ${spaced}`}`,
      description: `${isDomain ? 'Section 4.1. ' : ''}Creates a custom ${spaced} in the taxonomy of \`external_vendor\`; 409 when one with the same external_id exists there${isDomain ? '' : ', 404 when its parent does not'}. Records a taxonomy change and sends \`ai.vendor.taxonomy.updated.v1\`${level.noun === 'Skill' ? ' and `ai.vendor.taxonomy.skill.created.v1`' : ''}.`,
      tag: 'Taxonomy',
      ...(isDomain ? { section: '4.1' } : {}),
      query: VendorOnly,
      body: { schema: level.schema, required: true, description: `The ${spaced}.` },
      success: emptySuccess(`The ${spaced} was created.`),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
    },
    handler: async (context) => {
      const body = checked(level.schema, await context.body(), level.what)
      await context.tenant((tenant) => level.create(tenant, body, { external_vendor: vendorOf(context) }))
      afterChange(level, context)
      return noContent
    },
  }
}

function listLevelRoute(level: TaxonomyLevel): ApiRoute {
  return {
    method: 'GET',
    path: level.path,
    doc: {
      operationId: `list${level.plural}`,
      summary: `List the ${words(level.plural)}`,
      description: `A page of the ${words(level.plural)} of \`external_vendor\`'s taxonomy (vocabulary and custom ones) in external_id order, after \`starting_after\` (exclusive; it need not exist); each record as its GET answers it. the resource pattern of docs/api.md.`,
      tag: 'Taxonomy',
      query: PageQuery.extend(level.query.shape),
      success: jsonSuccess(pageOf(level.response), `A page of ${words(level.plural)}.`),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) =>
      ok(
        await context.tenant((tenant) =>
          level.list(tenant, {
            starting_after: context.query('starting_after'),
            limit: context.query('limit'),
            external_vendor: vendorOf(context),
            include: context.queries('include'),
            vocab_language: context.query('vocab_language'),
          }),
        ),
      ),
  }
}

/** The spec section of a level's GET, where the spec has one (4.7 subdomains, 4.13 skills). */
const GET_SECTIONS: Record<string, { section: string; lead: string }> = {
  Subdomain: { section: '4.7', lead: 'Section 4.7. ' },
  Skill: {
    section: '4.13',
    lead: 'Section 4.13: answers 404 after the Skill is deleted; takes the vendor as a query parameter. ',
  },
}

function getLevelRoute(level: TaxonomyLevel): ApiRoute {
  const spaced = words(level.noun)
  const section = GET_SECTIONS[level.noun]
  return {
    method: 'GET',
    path: `${level.path}/:external_id`,
    ...(level.getStatuses ? { statuses: level.getStatuses } : {}),
    doc: {
      operationId: `get${level.noun}`,
      summary: `Get a ${spaced}`,
      description: `${section?.lead ?? ''}\`last_updated\` is the time of the last change; \`custom_properties\` only with \`include=custom_properties\`.`,
      tag: 'Taxonomy',
      ...(section ? { section: section.section } : {}),
      params: itemParams(level),
      query: level.query,
      success: jsonSuccess(level.response, `The ${spaced}.`),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) =>
      ok(
        await context.tenant((tenant) =>
          level.get(tenant, itemId(context), {
            external_vendor: vendorOf(context),
            include: context.queries('include'),
            vocab_language: context.query('vocab_language'),
          }),
        ),
      ),
  }
}

function updateLevelRoute(level: TaxonomyLevel): ApiRoute {
  const spaced = words(level.noun)
  return {
    method: 'PATCH',
    path: `${level.path}/:external_id`,
    doc: {
      operationId: `update${level.noun}`,
      summary: `Update a custom ${spaced}`,
      description: `Changes the fields the body names; a \`null\` custom property value removes that property. Entities of an imported vocabulary are read-only (403).${level.noun === 'Skill' ? ' Sends `ai.vendor.taxonomy.skill.updated.v1` when something changed.' : ''}`,
      tag: 'Taxonomy',
      params: itemParams(level),
      query: VendorOnly,
      body: { schema: level.patch, required: true, description: 'The fields to change.' },
      success: emptySuccess(`The ${spaced} was updated (or already was as asked).`),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
    },
    handler: async (context) => {
      const body = checked(level.patch, await context.body(), `an update of ${level.what}`)
      const change = await context.tenant((tenant) =>
        level.update(tenant, itemId(context), body, { external_vendor: vendorOf(context) }),
      )
      if (change !== null) afterChange(level, context)
      return noContent
    },
  }
}

function deleteLevelRoute(level: TaxonomyLevel): ApiRoute {
  const spaced = words(level.noun)
  const isSkill = level.noun === 'Skill'
  return {
    method: 'DELETE',
    path: `${level.path}/:external_id`,
    doc: {
      operationId: `delete${level.noun}`,
      summary: `Delete a custom ${spaced}`,
      description: `Entities of an imported vocabulary are read-only (403); 409 while ${isSkill ? 'it is in use' : 'entities below it still refer to it'}.${isSkill ? ' Sends `ai.vendor.taxonomy.skill.deleted.v1`; afterwards `GET` answers 404.' : ''}`,
      tag: 'Taxonomy',
      params: itemParams(level),
      query: VendorOnly,
      success: emptySuccess(`The ${spaced} was deleted.`),
      errors: errorsOf(BASE_ERRORS, [409, 422]),
    },
    handler: async (context) => {
      await context.tenant((tenant) =>
        level.remove(tenant, itemId(context), { external_vendor: vendorOf(context) }),
      )
      afterChange(level, context)
      return noContent
    },
  }
}
