import { getJobChangePreview, previewJobChange } from '../../analytics/job-change-preview.js'
import { exportOrganisation, orgExportJson } from '../../analytics/org-export.js'
import { skillGap } from '../../analytics/skill-gap.js'
import {
  JobChangePreview,
  JobChangePreviewRequest,
  JobChangePreviewResponse,
  OrgExportQuery,
  OrgExportResponse,
  SkillGapResponse,
} from '../../schemas/analytics.js'
import { ExternalId } from '../../schemas/common.js'
import { SkillEvent, SkillEventQuery } from '../../schemas/skill-events.js'
import { z } from '../../vendor/zod.js'
import type { ApiRoute } from '../api-route.js'
import {
  BASE_ERRORS,
  BODY_ERRORS,
  emptySuccess,
  errorsOf,
  idParam,
  jsonSuccess,
  ProfileQuery,
} from '../route-docs.js'
import type { SkillEventBatcher } from '../skill-event-batcher.js'
import { noContent, ok, vendorOf } from './route-answers.js'

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

/** 4.2: a skill event about an employee, written in a batch (group commit) of the app's batcher. */
export function skillEventRoute(skillEvents: SkillEventBatcher): ApiRoute {
  return {
    method: 'POST',
    path: '/employees/:employee_external_id/skill_events',
    statuses: [400, 401, 403, 404, 405, 409, 415, 422, 503],
    doc: {
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
      success: emptySuccess('The event was stored; processing is asynchronous.'),
      errors: errorsOf(BASE_ERRORS, BODY_ERRORS, [409]),
    },
    handler: async (context) => {
      const body = await context.body()
      const stored = await skillEvents.submit(
        context.tenantName,
        context.skillEventLane,
        {
          employeeId: context.params.employee_external_id ?? '',
          body,
          query: {
            language: context.query('language'),
            strict: context.query('strict'),
            end_active_working_history: context.query('end_active_working_history'),
          },
        },
        (tenant) => context.strictCheck(tenant),
        (tenant) => context.employeeLookup(tenant),
      )
      if (stored.stored) context.changed()
      return noContent
    },
  }
}

/** 4.5, 4.6 and 4.4: the skill gap, the organisational export and job change previews. */
export function analyticsRoutes(): ApiRoute[] {
  return [skillGapRoute(), orgExportRoute(), previewJobChangeRoute(), jobChangePreviewRoute()]
}

function skillGapRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/employees/:employee_external_id/vacancies/:vacancy_external_id/gap',
    statuses: [401, 403, 404, 405, 503],
    doc: {
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
      success: jsonSuccess(SkillGapResponse, 'The Skill gap entries (2.7).'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) =>
      ok(
        await context.tenant((tenant) =>
          skillGap(
            tenant,
            context.params.employee_external_id ?? '',
            context.params.vacancy_external_id ?? '',
            {
              vocab_language: context.query('vocab_language'),
              external_vendor: vendorOf(context),
            },
          ),
        ),
      ),
  }
}

function orgExportRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/organisational_units/export',
    statuses: [400, 401, 403, 405, 503],
    doc: {
      operationId: 'exportOrganisationalStructure',
      summary: 'Export the Organisational Structure hierarchy',
      description:
        'Section 4.6. Root units (those without a parent) with their children to any depth; `total_nr_of_employees` counts the employees of a unit and of every unit below it. With `skill_id`, only employees holding that skill count and only units with such employees (and their ancestors) are kept. A `skill_id` the vendor does not know, like any other bad query value, is a 400 naming it: 4.6 lists 400 and no 404 or 422 (the 404 below is the one of an unknown tenant or region).',
      tag: 'Organisational units',
      section: '4.6',
      query: OrgExportQuery,
      success: jsonSuccess(OrgExportResponse, 'The hierarchy (2.8).'),
      errors: errorsOf(BASE_ERRORS, [400, 422]),
    },
    handler: async (context) => {
      const result = await context.tenant((tenant) =>
        exportOrganisation(tenant, {
          skill_id: context.query('skill_id'),
          external_vendor: vendorOf(context),
          include: context.queries('include'),
        }),
      )
      // The text `org export --json` writes, safe at any depth of the hierarchy.
      return { status: 200, json: orgExportJson(result) }
    },
  }
}

function previewJobChangeRoute(): ApiRoute {
  return {
    method: 'POST',
    path: '/job_architecture/changes/preview',
    statuses: [400, 401, 403, 405, 503],
    doc: {
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
    handler: async (context) => {
      const body = await context.body()
      const result = await context.tenant((tenant) => previewJobChange(tenant, body))
      return { status: 202, json: JSON.stringify(result) }
    },
  }
}

function jobChangePreviewRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/job_architecture/changes/:change_id',
    doc: {
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
      success: jsonSuccess(JobChangePreview, 'The preview.'),
      errors: errorsOf(BASE_ERRORS),
    },
    handler: async (context) =>
      ok(await context.tenant((tenant) => getJobChangePreview(tenant, context.params.change_id ?? ''))),
  }
}
