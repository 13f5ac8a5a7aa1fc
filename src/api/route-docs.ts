import { ExternalId } from '../schemas/common.js'
import { TaxonomyInclude } from '../schemas/taxonomy-operations.js'
import { DEFAULT_VENDOR, ExternalVendor } from '../schemas/vendors.js'
import {
  DEFAULT_VOCAB_LANGUAGE,
  VOCAB_LANGUAGE_VALUES,
  VocabLanguageInput,
} from '../schemas/vocabulary-languages.js'
import { z } from '../vendor/zod.js'

/**
 * The words the routes' documentation is written in: each route below a tenant's base URL
 * carries its own `RouteDoc` (src/api/routes/), built from the tags, error lists and query
 * schemas here; the document (openapi-document.ts) takes the method, the path, the scope and the
 * extra headers from the route objects themselves.
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
  {
    name: 'Extensions',
    description:
      'skillhouse extensions, not part of the Skills Service API: course recommendations for a gap and related skills (docs/recommendations.md). Each operation carries `x-skillhouse-extension: true`.',
  },
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
  /** A skillhouse extension, not part of the spec: marked `x-skillhouse-extension` in the document. */
  extension?: true
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
/** What a route that reads a JSON body adds: 400 not JSON or malformed, 413 too large, 415 not JSON, 422 invalid. */
export const BODY_ERRORS: readonly DocErrorStatus[] = [400, 413, 415, 422]

export const VendorQuery = ExternalVendor.default(DEFAULT_VENDOR).meta({
  description: 'The vocabulary vendor (2.1); only vendors activated on the tenant work (403 otherwise).',
})
export const VocabLanguageQuery = VocabLanguageInput.default(DEFAULT_VOCAB_LANGUAGE).meta({
  description: `The vocabulary language skill names are shown in (2.1): ${VOCAB_LANGUAGE_VALUES.join(', ')}, or an IETF BCP 47 tag of one of them (en-US, fr-CA, zh-Hant-TW, …). The languages after nl work only with external_vendor=vendor_a and when the tenant's vocabulary has them (GET /taxonomy/skills/languages). It changes names only, never a profile.`,
  examples: ['en_uk', 'nl', 'de-AT'],
})
export const VendorOnly = z.object({ external_vendor: VendorQuery })
export const ProfileQuery = z.object({ external_vendor: VendorQuery, vocab_language: VocabLanguageQuery })
export const TaxonomyGetQuery = z.object({ include: TaxonomyInclude, external_vendor: VendorQuery })
/** The path parameters of a route with one `:param`, named as the document names it. */
export const idParam = (name: string, description: string) =>
  z.object({ [name]: ExternalId.meta({ description }) })

/** A success answered with no body (204). */
export const emptySuccess = (description: string) => ({ status: 204 as const, description })
/** A success answered with a JSON body (200). */
export const jsonSuccess = (schema: z.ZodType, description: string) => ({
  status: 200 as const,
  schema,
  description,
})
/** The union of error lists, in the order of DOC_ERROR_STATUSES. */
export const errorsOf = (...lists: (readonly DocErrorStatus[])[]): DocErrorStatus[] =>
  DOC_ERROR_STATUSES.filter((status) => lists.some((list) => list.includes(status)))

/** `job_architecture/job_families` → `JobArchitectureJobFamilies`: a path as part of an operationId. */
export const pascal = (path: string) =>
  path
    .split(/[/_]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')

/** `SkillCluster` → `Skill Cluster`. */
export const words = (noun: string) => noun.replace(/([a-z])([A-Z])/g, '$1 $2')
