import { type JobMatchingQuery, matchJobs } from '../../matching/match-jobs.js'
import { matchVacancies } from '../../matching/match-vacancies.js'
import { VacancyMatchingQuery, VacancyMatchingResponse } from '../../matching/vacancy-match-schema.js'
import {
  JobMatchingRequest,
  JobMatchingResponse,
  ResponseFormat,
  VacancyMatchingRequest,
} from '../../schemas/matching.js'
import { z } from '../../vendor/zod.js'
import type { ApiRoute } from '../api-route.js'
import {
  BASE_ERRORS,
  BODY_ERRORS,
  errorsOf,
  idParam,
  jsonSuccess,
  VendorQuery,
  VocabLanguageQuery,
} from '../route-docs.js'
import { ok, queryOf } from './route-answers.js'

/**
 * 4.10 and 4.11 (path and names: docs/api.md): the same functions as `match jobs` and
 * `match vacancies`. They compute and store nothing, so a `read` token is enough.
 */
export function matchingRoutes(): ApiRoute[] {
  return [matchEmployeesRoute(), matchVacanciesRoute()]
}

function matchEmployeesRoute(): ApiRoute {
  return {
    method: 'POST',
    path: '/job_architecture/export/jobs/matching_employees',
    scope: 'read',
    doc: {
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
      success: jsonSuccess(JobMatchingResponse, 'A page of jobs with their matches.'),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
    },
    handler: async (context) => {
      const body = await context.body()
      const query = queryOf(context, ['response_format', 'external_vendor', 'vocab_language'])
      return ok(await context.tenant((tenant) => matchJobs(tenant, body, query as JobMatchingQuery)))
    },
  }
}

function matchVacanciesRoute(): ApiRoute {
  return {
    method: 'POST',
    path: '/employees/:employee_external_id/matching_vacancies',
    scope: 'read',
    doc: {
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
      success: jsonSuccess(VacancyMatchingResponse, 'The matches.'),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS),
    },
    handler: async (context) => {
      const body = await context.body({ optional: true })
      const query = {
        ...queryOf(context, [
          'min_score',
          'limit',
          'offset',
          'response_format',
          'external_vendor',
          'vocab_language',
        ]),
        ...(context.queries('include').length ? { include: context.queries('include') } : {}),
      }
      return ok(
        await context.tenant((tenant) =>
          matchVacancies(
            tenant,
            context.params.employee_external_id ?? '',
            body ?? {},
            query as VacancyMatchingQuery,
          ),
        ),
      )
    },
  }
}
