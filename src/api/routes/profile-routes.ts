import {
  type JobFamilyProfileQuery as JobFamilyProfileOptions,
  JobFamilyProfileQuery,
  readJobFamilyProfile,
} from '../../profiles/job-family-profile.js'
import { type ProfileOwner, readSkillProfile } from '../../profiles/read-profile.js'
import { JobFamilyProfileResponse, SkillProfileResponse } from '../../schemas/profiles.js'
import { DEFAULT_VENDOR } from '../../schemas/vendors.js'
import { requireVendor } from '../../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../../taxonomy/vocabulary-languages.js'
import type { ApiRoute } from '../api-route.js'
import {
  BASE_ERRORS,
  errorsOf,
  idParam,
  jsonSuccess,
  ProfileQuery,
  VocabLanguageQuery,
} from '../route-docs.js'
import { ok, queryOf, vendorOf } from './route-answers.js'

/** The skill profiles of 4.12 and 4.13: employees, jobs, courses and job families. */
export function profileRoutes(): ApiRoute[] {
  return [
    profileRoute({
      owner: 'employee',
      path: '/employees/:external_id/skill_profile',
      noun: 'Employee',
      param: 'employee_external_id',
      source: 'the Employee Skill Profile events point here',
    }),
    profileRoute({
      owner: 'job',
      path: '/job_architecture/jobs/:external_id/skill_profile',
      noun: 'Job',
      param: 'job_external_id',
      source: 'the Job Skill Profile events point here',
    }),
    profileRoute({
      owner: 'course',
      path: '/courses/:external_id/skill_profile',
      noun: 'Course',
      param: 'course_external_id',
      source: 'the Course Skill Profile event points here',
    }),
    jobFamilyProfileRoute(),
  ]
}

interface ProfileEndpoint {
  owner: ProfileOwner
  path: string
  /** The owner as the document names it, the name of its path parameter, and what points at it. */
  noun: string
  param: string
  source: string
}

function profileRoute({ owner, path, noun, param, source }: ProfileEndpoint): ApiRoute {
  return {
    method: 'GET',
    path,
    doc: {
      operationId: `get${noun}SkillProfile`,
      summary: `Get the Skill Profile of ${noun === 'Employee' ? 'an' : 'a'} ${noun}`,
      description: `Section 4.13 names this endpoint; ${source}. Validated skills first, then by score. An entity not derived yet has version 0 and no skills; an empty profile is a valid state.`,
      tag: 'Skill profiles',
      section: '4.13',
      params: idParam(param, `external_id of the ${noun}`),
      query: ProfileQuery,
      success: jsonSuccess(SkillProfileResponse, 'The Skill Profile.'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) =>
      ok(
        await context.tenant(async (tenant) => {
          const vendor = requireVendor(tenant, vendorOf(context) ?? DEFAULT_VENDOR)
          const language = await resolveVocabLanguage(tenant, vendor, context.query('vocab_language'))
          return readSkillProfile(tenant, owner, context.params.external_id ?? '', {
            external_vendor: vendor,
            vocab_language: language,
          })
        }),
      ),
  }
}

function jobFamilyProfileRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/job_architecture/job_families/:external_id/skill_profile',
    doc: {
      operationId: 'getJobFamilySkillProfile',
      summary: 'Get the Skill Profile of a Job Family',
      description:
        'Section 4.12 (path and parameter names: docs/api.md). Governed (validated) and suggested skills, in the list form of 2.11 or, with `format=hierarchy`, grouped by domain, subdomain and skill cluster. `include=skill_validation_state` does not work together with `external_vendor` (422).',
      tag: 'Skill profiles',
      section: '4.12',
      params: idParam('job_family_external_id', 'external_id of the Job Family'),
      query: JobFamilyProfileQuery.extend({ vocab_language: VocabLanguageQuery }),
      success: jsonSuccess(JobFamilyProfileResponse, 'The Job Family Skill Profile.'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) => {
      const query = {
        include: context.queries('include'),
        ...queryOf(context, ['domain_namespace', 'vocab_language', 'external_vendor', 'format']),
      }
      return ok(
        await context.tenant((tenant) =>
          readJobFamilyProfile(tenant, context.params.external_id ?? '', query as JobFamilyProfileOptions),
        ),
      )
    },
  }
}
