import { z } from 'zod'
import { ENTITY_COLLECTIONS } from '../entities/entity-collections.js'
import { VacancyMatchingQuery, VacancyMatchingResponse } from '../matching/vacancy-match-schema.js'
import { JobFamilyProfileQuery } from '../profiles/job-family-profile.js'
import {
  CollectionMetric,
  Company,
  Course,
  CUSTOM_PROPERTY_ENTITY_TYPES,
  CustomPropertyDefinition,
  DEFAULT_VENDOR,
  DEFAULT_VOCAB_LANGUAGE,
  Domain,
  DomainPatch,
  DomainResponse,
  Employee,
  ExternalId,
  ExternalVendor,
  Job,
  JobChangePreview,
  JobChangePreviewRequest,
  JobChangePreviewResponse,
  JobFamily,
  JobFamilyProfileResponse,
  JobMatchingRequest,
  JobMatchingResponse,
  OrganisationalUnit,
  OrgExportQuery,
  OrgExportResponse,
  PageQuery,
  pageOf,
  ResponseFormat,
  Skill,
  SkillCluster,
  SkillClusterPatch,
  SkillClusterResponse,
  SkillDetailResponse,
  SkillEvent,
  SkillEventQuery,
  SkillGapResponse,
  SkillPatch,
  SkillProfileResponse,
  Subdomain,
  SubdomainPatch,
  SubdomainResponse,
  TaxonomyChangesPage,
  TaxonomyChangesRequest,
  TaxonomyInclude,
  Vacancy,
  VacancyMatchingRequest,
  VOCAB_LANGUAGE_VALUES,
  VocabLanguageInput,
  VocabularyLanguagesResponse,
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookReplay,
  WebhookReplayRequest,
  WebhookSubscription,
  WebhookSubscriptionList,
  WebhookSubscriptionRequest,
} from '../schemas/index.js'

/**
 * The documentation of every route the server answers below a tenant's base URL, keyed by
 * `METHOD path` exactly as `apiRoutes()` names the route (Hono's `:param` form). The schemas are
 * the ones the library validates with; the document (openapi-document.ts) takes the method, the
 * path, the scope and the extra headers from the route objects themselves.
 */

/** The tags of the document, in the spec's order of sections. */
export const TAGS = [
  {
    name: 'Taxonomy',
    description: 'Domains, Subdomains, Skill Clusters and Skills (2.2, 2.3, 4.1, 4.7, 4.9, 4.13).',
  },
  { name: 'Custom properties', description: 'Custom Property definitions per entity type (2.9, 4.8).' },
  {
    name: 'Skill events',
    description: 'Skill Events about Employees, derived into their profiles asynchronously (2.4, 4.2).',
  },
  { name: 'Companies', description: 'External Companies (2.5, 4.3).' },
  { name: 'Job architecture', description: 'Jobs, Job Families and job change previews (2.6, 4.4).' },
  { name: 'Analytics', description: 'The Skill gap between an Employee and a Vacancy (2.7, 4.5).' },
  { name: 'Organisational units', description: 'Organisational Units and the hierarchy export (2.8, 4.6).' },
  {
    name: 'Matching',
    description: 'Top Employees for Jobs and top Vacancies for an Employee (2.12–2.14, 4.10, 4.11).',
  },
  {
    name: 'Skill profiles',
    description: 'Skill Profiles of Employees, Jobs, Courses and Job Families (2.11, 4.12, 4.13).',
  },
  { name: 'Entities', description: 'Employees, Vacancies and Courses: the resource pattern of docs/api.md.' },
  { name: 'Webhooks', description: 'Subscriptions to the CloudEvents of section 6 and their delivery log.' },
  { name: 'Auth', description: 'OAuth 2.0 client credentials (section 5; docs/api.md).' },
  { name: 'Operations', description: 'Health of the server.' },
] as const
export type TagName = (typeof TAGS)[number]['name']

/** Error statuses an operation can answer with the spec's error body (section 7). */
export const DOC_ERROR_STATUSES = [400, 401, 403, 404, 405, 409, 413, 415, 422, 503] as const
export type DocErrorStatus = (typeof DOC_ERROR_STATUSES)[number]

export interface RouteDoc {
  operationId: string
  summary: string
  description?: string
  tag: TagName
  /** The spec section the route implements, when it has one. */
  section?: string
  /** Path parameters in the order of the route's `:params`; their keys are the document's names. */
  params?: z.ZodObject
  query?: z.ZodObject
  body?: { schema: z.ZodType; required: boolean; description: string }
  success: {
    status: 200 | 201 | 202 | 204
    description: string
    schema?: z.ZodType
    headers?: Record<string, { description: string; schema: z.ZodType }>
  }
  /** Error statuses the route answers, in addition to the ones every route below a base URL has. */
  errors: readonly DocErrorStatus[]
}

/**
 * What every route below a base URL can answer: 404 for an unknown tenant or region, 401 without
 * a valid token, 403 for a token of another tenant or without the scope, 405 for another method
 * on the path, 503 (`max connections reached: <limit>`) when the server is full.
 */
export const BASE_ERRORS: readonly DocErrorStatus[] = [401, 403, 404, 405, 503]
const BODY_ERRORS: readonly DocErrorStatus[] = [400, 413, 415, 422]

const VendorQuery = ExternalVendor.default(DEFAULT_VENDOR).meta({
  description: 'The vocabulary vendor (2.1); only vendors activated on the tenant work (403 otherwise).',
})
const VocabLanguageQuery = VocabLanguageInput.default(DEFAULT_VOCAB_LANGUAGE).meta({
  description: `The vocabulary language skill names are shown in (2.1): ${VOCAB_LANGUAGE_VALUES.join(', ')}, or an IETF BCP 47 tag of one of them (en-US, fr-CA, zh-Hant-TW, …). The languages after nl work only with external_vendor=vendor_a and when the tenant's vocabulary has them (GET /taxonomy/skills/languages). It changes names only, never a profile.`,
  examples: ['en_uk', 'nl', 'de-AT'],
})
const VendorOnly = z.object({ external_vendor: VendorQuery })
const ProfileQuery = z.object({ external_vendor: VendorQuery, vocab_language: VocabLanguageQuery })
const TaxonomyGetQuery = z.object({ include: TaxonomyInclude, external_vendor: VendorQuery })
// The query-string booleans of 4.2 accept true/false (and 1/0, yes/no, on/off); documented as booleans.
const SkillEventQueryDoc = SkillEventQuery.extend({
  strict: SkillEventQuery.shape.strict.meta({
    type: 'boolean',
    default: false,
    description:
      'When true, the event is refused (422) if no Skill Profile can be constructed from it; when false, it is stored and may leave an empty profile.',
  }),
  end_active_working_history: SkillEventQuery.shape.end_active_working_history.meta({
    type: 'boolean',
    default: false,
    description:
      "When true, the Employee's active working history events (those without end_date) are ended when this event is created.",
  }),
})

const idParam = (name: string, description: string) => z.object({ [name]: ExternalId.meta({ description }) })

const noContent = (description: string) => ({ status: 204 as const, description })
const ok = (schema: z.ZodType, description: string) => ({ status: 200 as const, schema, description })
const errorsOf = (...lists: (readonly DocErrorStatus[])[]): DocErrorStatus[] =>
  DOC_ERROR_STATUSES.filter((status) => lists.some((list) => list.includes(status)))

const pascal = (path: string) =>
  path
    .split(/[/_]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')

/** The documentation of every route below the base URL, keyed `METHOD path` as `apiRoutes()` names them. */
export function routeDocs(): Map<string, RouteDoc> {
  const docs = new Map<string, RouteDoc>()
  const add = (key: string, doc: RouteDoc) => {
    if (docs.has(key)) throw new Error(`two route docs for ${key}`)
    docs.set(key, doc)
  }
  for (const [key, doc] of [
    ...customPropertyDocs(),
    ...taxonomyDocs(),
    ...analyticsDocs(),
    ...profileDocs(),
    ...matchingDocs(),
    ...collectionDocs(),
    ...webhookDocs(),
  ])
    add(key, doc)
  return docs
}

function customPropertyDocs(): [string, RouteDoc][] {
  return CUSTOM_PROPERTY_ENTITY_TYPES.flatMap((type): [string, RouteDoc][] => [
    [
      `GET /${type}/custom_properties`,
      {
        operationId: `list${pascal(type)}CustomProperties`,
        summary: `Get all Custom Property definitions of ${type}`,
        description:
          'Section 4.8, `GET /{entity_type}/custom_properties`, for this entity type (entity types hold a slash, so each has its own path). Oldest definition first.',
        tag: 'Custom properties',
        section: '4.8',
        success: ok(z.array(CustomPropertyDefinition), 'The definitions of the entity type.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
    [
      `POST /${type}/custom_properties`,
      {
        operationId: `create${pascal(type)}CustomProperty`,
        summary: `Define a Custom Property for ${type}`,
        description:
          'Adds a Custom Property definition (2.9) to the entity type; its values are then checked on every record of that type. 409 when the entity type already has a property of that name.',
        tag: 'Custom properties',
        body: { schema: CustomPropertyDefinition, required: true, description: 'The definition (2.9).' },
        success: noContent('The definition was created.'),
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
      },
    ],
  ])
}

interface LevelDoc {
  path: string
  param: string
  noun: string
  plural: string
  create: z.ZodType
  patch: z.ZodType
  response: z.ZodType
  query: z.ZodObject
}

const LEVELS: LevelDoc[] = [
  {
    path: '/taxonomy/domains',
    param: 'domain_external_id',
    noun: 'Domain',
    plural: 'Domains',
    create: Domain,
    patch: DomainPatch,
    response: DomainResponse,
    query: TaxonomyGetQuery,
  },
  {
    path: '/taxonomy/subdomains',
    param: 'subdomain_external_id',
    noun: 'Subdomain',
    plural: 'Subdomains',
    create: Subdomain,
    patch: SubdomainPatch,
    response: SubdomainResponse,
    query: TaxonomyGetQuery,
  },
  {
    path: '/taxonomy/skill_clusters',
    param: 'skill_cluster_external_id',
    noun: 'SkillCluster',
    plural: 'SkillClusters',
    create: SkillCluster,
    patch: SkillClusterPatch,
    response: SkillClusterResponse,
    query: TaxonomyGetQuery,
  },
  {
    path: '/taxonomy/skills',
    param: 'skill_id',
    noun: 'Skill',
    plural: 'Skills',
    create: Skill,
    patch: SkillPatch,
    response: SkillDetailResponse,
    query: TaxonomyGetQuery.extend({ vocab_language: VocabLanguageQuery }),
  },
]

const words = (noun: string) => noun.replace(/([a-z])([A-Z])/g, '$1 $2')

function taxonomyDocs(): [string, RouteDoc][] {
  const docs: [string, RouteDoc][] = [
    [
      'GET /taxonomy/skills/languages',
      {
        operationId: 'listVocabularyLanguages',
        summary: 'Get the vocabulary languages per vendor',
        description:
          'Section 4.13 names this endpoint (2.1: the languages available per vendor for the tenant are discoverable here). Per vendor: whether it is activated, the languages the tenant can use with it, and how many skills its vocabulary holds.',
        tag: 'Taxonomy',
        section: '4.13',
        success: ok(VocabularyLanguagesResponse, 'The languages per vendor.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
    [
      'POST /taxonomy/changes',
      {
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
        success: ok(TaxonomyChangesPage, 'A page of changes.'),
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
      },
    ],
    [
      'GET /skill_clusters/metrics/count',
      {
        operationId: 'getSkillClusterCount',
        summary: 'Get the Skill Cluster count (deprecated)',
        description:
          "Section 4.9, deprecated (9.3). The number of Skill Clusters of the tenant's activated vendors as a collection metric (2.10); `entity_id` is the tenant's name and `last_update` the newest change of a cluster.",
        tag: 'Taxonomy',
        section: '4.9',
        success: ok(CollectionMetric, 'The collection metric.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
  ]
  for (const level of LEVELS) {
    const item = `${level.path}/:external_id`
    const params = idParam(level.param, `external_id of the ${words(level.noun)}`)
    const spaced = words(level.noun)
    docs.push(
      [
        `GET ${level.path}`,
        {
          operationId: `list${level.plural}`,
          summary: `List the ${words(level.plural)}`,
          description: `A page of the ${words(level.plural)} of \`external_vendor\`'s taxonomy (vocabulary and custom ones) in external_id order, after \`starting_after\` (exclusive; it need not exist); each record as its GET answers it. the resource pattern of docs/api.md.`,
          tag: 'Taxonomy',
          query: PageQuery.extend(level.query.shape),
          success: ok(pageOf(level.response), `A page of ${words(level.plural)}.`),
          errors: errorsOf(BASE_ERRORS, [422]),
        },
      ],
      [
        `POST ${level.path}`,
        {
          operationId: `create${level.noun}`,
          summary: `Create ${level.noun === 'Domain' ? 'a Domain' : `a custom ${spaced}`}`,
          description: `${level.noun === 'Domain' ? 'Section 4.1. ' : ''}Creates a custom ${spaced} in the taxonomy of \`external_vendor\`; 409 when one with the same external_id exists there${level.noun === 'Domain' ? '' : ', 404 when its parent does not'}. Records a taxonomy change and sends \`ai.vendor.taxonomy.updated.v1\`${level.noun === 'Skill' ? ' and `ai.vendor.taxonomy.skill.created.v1`' : ''}.`,
          tag: 'Taxonomy',
          ...(level.noun === 'Domain' ? { section: '4.1' } : {}),
          query: VendorOnly,
          body: { schema: level.create, required: true, description: `The ${spaced}.` },
          success: noContent(`The ${spaced} was created.`),
          errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
        },
      ],
      [
        `GET ${item}`,
        {
          operationId: `get${level.noun}`,
          summary: `Get a ${spaced}`,
          description: `${level.noun === 'Subdomain' ? 'Section 4.7. ' : level.noun === 'Skill' ? 'Section 4.13: answers 404 after the Skill is deleted; takes the vendor as a query parameter. ' : ''}\`last_updated\` is the time of the last change; \`custom_properties\` only with \`include=custom_properties\`.`,
          tag: 'Taxonomy',
          ...(level.noun === 'Subdomain'
            ? { section: '4.7' }
            : level.noun === 'Skill'
              ? { section: '4.13' }
              : {}),
          params,
          query: level.query,
          success: ok(level.response, `The ${spaced}.`),
          errors: errorsOf(BASE_ERRORS, [422]),
        },
      ],
      [
        `PATCH ${item}`,
        {
          operationId: `update${level.noun}`,
          summary: `Update a custom ${spaced}`,
          description: `Changes the fields the body names; a \`null\` custom property value removes that property. Entities of an imported vocabulary are read-only (403).${level.noun === 'Skill' ? ' Sends `ai.vendor.taxonomy.skill.updated.v1` when something changed.' : ''}`,
          tag: 'Taxonomy',
          params,
          query: VendorOnly,
          body: { schema: level.patch, required: true, description: 'The fields to change.' },
          success: noContent(`The ${spaced} was updated (or already was as asked).`),
          errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
        },
      ],
      [
        `DELETE ${item}`,
        {
          operationId: `delete${level.noun}`,
          summary: `Delete a custom ${spaced}`,
          description: `Entities of an imported vocabulary are read-only (403); 409 while ${level.noun === 'Skill' ? 'it is in use' : 'entities below it still refer to it'}.${level.noun === 'Skill' ? ' Sends `ai.vendor.taxonomy.skill.deleted.v1`; afterwards `GET` answers 404.' : ''}`,
          tag: 'Taxonomy',
          params,
          query: VendorOnly,
          success: noContent(`The ${spaced} was deleted.`),
          errors: errorsOf(BASE_ERRORS, [409, 422]),
        },
      ],
    )
  }
  return docs
}

function analyticsDocs(): [string, RouteDoc][] {
  return [
    [
      'POST /employees/:employee_external_id/skill_events',
      {
        operationId: 'createSkillEvent',
        summary: 'Create a Skill Event for an Employee',
        description:
          "Section 4.2. Stored at once and derived into the Employee's Skill Profile asynchronously (`ai.vendor.employee.skill_profile.updated.v1` follows). 404 when the Employee does not exist; 409 (Skill Event already exists) whenever an event with this external_id is stored, with the same content (a retry: it is stored, nothing changes) or other content (an event cannot be changed), the description says which; 422 for invalid field data, or for ticket and merge_request events on a tenant whose model configuration is older than MC_2025_Q1_V1.",
        tag: 'Skill events',
        section: '4.2',
        params: idParam('employee_external_id', 'external_id of the Employee'),
        query: SkillEventQueryDoc,
        body: {
          schema: SkillEvent,
          required: true,
          description: 'The Skill Event (2.4); `content` follows `event_type`.',
        },
        success: noContent('The event was stored; processing is asynchronous.'),
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
      },
    ],
    [
      'GET /employees/:employee_external_id/vacancies/:vacancy_external_id/gap',
      {
        operationId: 'getSkillGap',
        summary: 'Get the Skill gap between an Employee and a Vacancy',
        description:
          "Section 4.5. The skills of the Vacancy's profile the Employee lacks, or holds below the level the Vacancy asks for when both levels are known; critical skills first, then by the Vacancy's score. 404 names the unknown Employee, Vacancy or both.",
        tag: 'Analytics',
        section: '4.5',
        params: z.object({
          employee_external_id: ExternalId.meta({ description: 'external_id of the Employee' }),
          vacancy_external_id: ExternalId.meta({ description: 'external_id of the Vacancy' }),
        }),
        query: ProfileQuery,
        success: ok(SkillGapResponse, 'The Skill gap entries (2.7).'),
        errors: errorsOf(BASE_ERRORS, [422]),
      },
    ],
    [
      'GET /organisational_units/export',
      {
        operationId: 'exportOrganisationalStructure',
        summary: 'Export the Organisational Structure hierarchy',
        description:
          'Section 4.6. Root units (those without a parent) with their children to any depth; `total_nr_of_employees` counts the employees of a unit and of every unit below it. With `skill_id`, only employees holding that skill count and only units with such employees (and their ancestors) are kept. A `skill_id` the vendor does not know, like any other bad query value, is a 400 naming it: 4.6 lists 400 and no 404 or 422 (the 404 below is the one of an unknown tenant or region).',
        tag: 'Organisational units',
        section: '4.6',
        query: OrgExportQuery,
        success: ok(OrgExportResponse, 'The hierarchy (2.8).'),
        errors: errorsOf(BASE_ERRORS, [400, 422]),
      },
    ],
    [
      'POST /job_architecture/changes/preview',
      {
        operationId: 'previewJobChange',
        summary: 'Generate a preview Job change',
        description:
          'Section 4.4. Generates a job description for the Job from its skill profile, its family and the reference jobs, offline and deterministically, and stores it: the same request on the same data gives the same change_id. Read it with `GET /job_architecture/changes/{change_id}`. A `job_id` of no Job is a 400 naming it, as is an invalid value or another content type: 4.4 lists 400 and no 404, 415 or 422 (the 404 below is the one of an unknown tenant or region).',
        tag: 'Job architecture',
        section: '4.4',
        body: { schema: JobChangePreviewRequest, required: true, description: 'The preview request (2.6).' },
        success: {
          status: 202,
          schema: JobChangePreviewResponse,
          description: 'The preview was generated; its change_id.',
        },
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
      },
    ],
    [
      'GET /job_architecture/changes/:change_id',
      {
        operationId: 'getJobChangePreview',
        summary: 'Get a previewed Job change',
        description:
          'The stored preview of `POST /job_architecture/changes/preview`: the generated description as Markdown and by section, and the context as it was applied.',
        tag: 'Job architecture',
        params: z.object({
          change_id: JobChangePreviewResponse.shape.change_id.meta({
            description: 'The change_id the preview answered',
          }),
        }),
        success: ok(JobChangePreview, 'The preview.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
  ]
}

function profileDocs(): [string, RouteDoc][] {
  const profile = (path: string, noun: string, param: string, source: string): [string, RouteDoc] => [
    `GET ${path}`,
    {
      operationId: `get${noun}SkillProfile`,
      summary: `Get the Skill Profile of ${noun === 'Employee' ? 'an' : 'a'} ${noun}`,
      description: `Section 4.13 names this endpoint; ${source}. Validated skills first, then by score. An entity not derived yet has version 0 and no skills; an empty profile is a valid state.`,
      tag: 'Skill profiles',
      section: '4.13',
      params: idParam(param, `external_id of the ${noun}`),
      query: ProfileQuery,
      success: ok(SkillProfileResponse, 'The Skill Profile.'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
  ]
  return [
    profile(
      '/employees/:external_id/skill_profile',
      'Employee',
      'employee_external_id',
      'the Employee Skill Profile events point here',
    ),
    profile(
      '/job_architecture/jobs/:external_id/skill_profile',
      'Job',
      'job_external_id',
      'the Job Skill Profile events point here',
    ),
    profile(
      '/courses/:external_id/skill_profile',
      'Course',
      'course_external_id',
      'the Course Skill Profile event points here',
    ),
    [
      'GET /job_architecture/job_families/:external_id/skill_profile',
      {
        operationId: 'getJobFamilySkillProfile',
        summary: 'Get the Skill Profile of a Job Family',
        description:
          'Section 4.12 (path and parameter names: docs/api.md). Governed (validated) and suggested skills, in the list form of 2.11 or, with `format=hierarchy`, grouped by domain, subdomain and skill cluster. `include=skill_validation_state` does not work together with `external_vendor` (422).',
        tag: 'Skill profiles',
        section: '4.12',
        params: idParam('job_family_external_id', 'external_id of the Job Family'),
        query: JobFamilyProfileQuery.extend({ vocab_language: VocabLanguageQuery }),
        success: ok(JobFamilyProfileResponse, 'The Job Family Skill Profile.'),
        errors: errorsOf(BASE_ERRORS, [422]),
      },
    ],
  ]
}

function matchingDocs(): [string, RouteDoc][] {
  return [
    [
      'POST /job_architecture/export/jobs/matching_employees',
      {
        operationId: 'matchEmployeesForJobs',
        summary: 'Export top matching Employees for Jobs',
        description:
          "Section 4.10. Computes and stores nothing, so it needs the read scope. Jobs in external_id order, a page of `limit` jobs at a time (`starting_after`: the `next_starting_after` of the previous page); per job the best `match_limit_per_entity` employees with a score of at least `score_min_threshold`. The filters select the employees that are matched, never the jobs: `external_id_is_in_list` lists employees, `last_updated` and `low_data_availability` test the employee, a `property_name` rule reads the employee's custom property and a from/to rule compares the job's (`from_entity_property`) with the employee's (`to_entity_property`). A filter that cannot apply to employees is a 422 naming it: a property not defined for employees, or an `external_id_is_in_list` that names no employee (job ids, say). A match carries `overqualified` when the tenant matches with proficiency levels, `critical_skills_match_ratio` when it uses criticalities, and `explanation` with `response_format=explained`.",
        tag: 'Matching',
        section: '4.10',
        query: z.object({
          response_format: ResponseFormat.default('simple'),
          external_vendor: VendorQuery,
          vocab_language: VocabLanguageQuery,
        }),
        body: {
          schema: JobMatchingRequest,
          required: true,
          description: 'Filters, weights and paging (4.10).',
        },
        success: ok(JobMatchingResponse, 'A page of jobs with their matches.'),
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
      },
    ],
    [
      'POST /employees/:employee_external_id/matching_vacancies',
      {
        operationId: 'matchVacanciesForEmployee',
        summary: 'Get the top matching Vacancies for an Employee',
        description:
          "Section 4.11 (path, parameter and body names: docs/api.md). Only active vacancies; 50 km from the employee is the distance limit when no `max_geo_distance` filter is given. An employee who cannot be placed (no location, or an address whose postal code is not in the tenant's postal-code table, see `skillhouse geo import`) gets no default limit: the answer says so with `geo_filter_applied: false` and `geo_filter_note`, and `location.distance_km` is null. Answers `{employee_id, records, offset, limit, total, geo_filter_applied, geo_filter_note?}`: the matches from rank `offset + 1` to `offset + limit`, best first; each include adds a field of the same name to every record, `response_format=explained` adds `explanation`. Computes and stores nothing, so it needs the read scope.",
        tag: 'Matching',
        section: '4.11',
        params: idParam('employee_external_id', 'external_id of the Employee'),
        query: VacancyMatchingQuery.extend({
          external_vendor: VendorQuery,
          vocab_language: VocabLanguageQuery,
        }),
        body: {
          schema: VacancyMatchingRequest,
          required: false,
          description: 'Filters, weights and the event types to consider; an absent body uses none.',
        },
        success: ok(VacancyMatchingResponse, 'The matches.'),
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
      },
    ],
  ]
}

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

function collectionDocs(): [string, RouteDoc][] {
  return ENTITY_COLLECTIONS.flatMap((collection): [string, RouteDoc][] => {
    const doc = COLLECTION_DOCS[collection.path]
    if (!doc) return []
    const spaced = words(doc.noun)
    const article = /^[AEIOU]/.test(doc.noun) ? 'an' : 'a'
    const params = idParam(doc.param, `external_id of the ${spaced}`)
    const base = `/${collection.path}`
    const item = `${base}/:external_id`
    return [
      [
        `POST ${base}`,
        {
          operationId: `create${doc.noun}`,
          summary: `Create ${article} ${spaced}`,
          description: `${doc.section ? `Section ${doc.section}. ` : ''}The record is checked as ingest checks a row of ${collection.path} (references must exist: 404; custom properties must be defined: 422); 409 when its external_id exists.`,
          tag: doc.tag,
          ...(doc.section ? { section: doc.section } : {}),
          body: { schema: doc.schema, required: true, description: `The ${spaced}.` },
          success: noContent(`The ${spaced} was created.`),
          errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
        },
      ],
      [
        `GET ${base}`,
        {
          operationId: `list${doc.plural}`,
          summary: `List ${words(doc.plural)}`,
          description:
            'A page of records in external_id order, after `starting_after` (exclusive; it need not exist).',
          tag: doc.tag,
          query: PageQuery,
          success: ok(pageOf(doc.schema), `A page of ${words(doc.plural)}.`),
          errors: errorsOf(BASE_ERRORS, [422]),
        },
      ],
      [
        `GET ${item}`,
        {
          operationId: `get${doc.noun}`,
          summary: `Get ${article} ${spaced}`,
          description: 'The record as stored.',
          tag: doc.tag,
          params,
          success: ok(doc.schema, `The ${spaced}.`),
          errors: errorsOf(BASE_ERRORS),
        },
      ],
      [
        `PATCH ${item}`,
        {
          operationId: `update${doc.noun}`,
          summary: `Update ${article} ${spaced}`,
          description:
            'A merge: a field of the body replaces the stored field whole, `custom_properties` merge by property name, and `null` removes a field or a property. The merged record gets every check of a new one; `external_id` may be repeated but not changed (422).',
          tag: doc.tag,
          params,
          body: { schema: patchOf(doc.schema), required: true, description: 'The fields to change.' },
          success: noContent(`The ${spaced} was updated (or already was as asked).`),
          errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
        },
      ],
      [
        `DELETE ${item}`,
        {
          operationId: `delete${doc.noun}`,
          summary: `Delete ${article} ${spaced}`,
          description: `Removes the record and what means nothing without it (its skill profile${collection.path === 'employees' ? ', skill events and match feedback' : ''}); 409 names the records that still refer to it.`,
          tag: doc.tag,
          params,
          success: noContent(`The ${spaced} was deleted.`),
          errors: errorsOf(BASE_ERRORS, [409]),
        },
      ],
    ]
  })
}

function webhookDocs(): [string, RouteDoc][] {
  const params = z.object({
    webhook_id: WebhookSubscription.shape.id.meta({ description: 'The subscription id' }),
  })
  return [
    [
      'POST /webhooks',
      {
        operationId: 'createWebhook',
        summary: 'Subscribe an endpoint to the events',
        description:
          'Sends `ai.vendor.health_check` to the URL first (6, rule 4); the subscription is created once the consumer answers it with a 2XX, and 422 names the URL and its answer otherwise. The consumer then receives the events appended after this moment, at least once.',
        tag: 'Webhooks',
        body: {
          schema: WebhookSubscriptionRequest,
          required: true,
          description: 'The endpoint and the event types.',
        },
        success: {
          status: 201,
          schema: WebhookSubscription,
          description: 'The subscription.',
          headers: { Location: { description: 'The address of the subscription.', schema: z.string() } },
        },
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
      },
    ],
    [
      'GET /webhooks',
      {
        operationId: 'listWebhooks',
        summary: 'List the webhook subscriptions',
        description: 'The active subscriptions of the tenant, oldest first, each with its delivery counts.',
        tag: 'Webhooks',
        success: ok(WebhookSubscriptionList, 'The active subscriptions, oldest first.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
    [
      'GET /webhooks/:webhook_id',
      {
        operationId: 'getWebhook',
        summary: 'Get a webhook subscription',
        description:
          'One active subscription with its delivery counts; 404 when no active subscription has that id.',
        tag: 'Webhooks',
        params,
        success: ok(WebhookSubscription, 'The subscription with its delivery counts.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
    [
      'DELETE /webhooks/:webhook_id',
      {
        operationId: 'deleteWebhook',
        summary: 'Remove a webhook subscription',
        description: 'Nothing more is sent to it, its pending events included.',
        tag: 'Webhooks',
        params,
        success: noContent('The subscription was removed.'),
        errors: errorsOf(BASE_ERRORS),
      },
    ],
    [
      'GET /webhooks/:webhook_id/deliveries',
      {
        operationId: 'listWebhookDeliveries',
        summary: 'Get the delivery log of a subscription',
        description:
          'The deliveries of events to the subscription in outbox order, with their state, attempts and last answer; `state` filters, `starting_after` (an outbox sequence number) and `limit` page.',
        tag: 'Webhooks',
        params,
        query: WebhookDeliveryQuery,
        success: ok(WebhookDeliveryPage, 'A page of deliveries in outbox order.'),
        errors: errorsOf(BASE_ERRORS, [422]),
      },
    ],
    [
      'POST /webhooks/:webhook_id/replay',
      {
        operationId: 'replayWebhookDeliveries',
        summary: 'Send events to a subscription again',
        description:
          "skillhouse's extension (section 6 leaves subscriptions and retries to the service). Queues again, each with a new retry window: without a body (or `{}`) the subscription's dead letters; with `since`, every outbox event at or after that time that its event types take; with `event_id`, that outbox event and every later one. Events appended before the subscription was made are queued too. They go in outbox order, before the subscription's later events, from its next batch; a subscription waiting for its consumer to come back is tried at once. 404 for an unknown subscription or event id.",
        tag: 'Webhooks',
        params,
        body: {
          schema: WebhookReplayRequest,
          required: false,
          description: 'What to send again; absent or empty: the dead letters.',
        },
        success: { status: 202, schema: WebhookReplay, description: 'The events are queued to go again.' },
        errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
      },
    ],
  ]
}
