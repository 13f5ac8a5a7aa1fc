import { recommendCourses } from '../../recommend/recommend-courses.js'
import { relatedSkills } from '../../recommend/related-skills.js'
import { ExternalId } from '../../schemas/common.js'
import {
  COURSE_LIMIT,
  CourseRecommendationResponse,
  MAX_TARGET_SKILLS,
  MIN_SUPPORT,
  RELATED_LIMIT,
  RelatedSkillsResponse,
} from '../../schemas/recommendations.js'
import { z } from '../../vendor/zod.js'
import type { ApiRoute } from '../api-route.js'
import { BASE_ERRORS, errorsOf, idParam, jsonSuccess, ProfileQuery } from '../route-docs.js'
import { ok, vendorOf } from './route-answers.js'

/** What the document says of every extension: not part of the spec. */
const EXTENSION =
  'A skillhouse extension, not part of the Skills Service API (docs/recommendations.md); the same answer as the command'

const limitQuery = (bounds: { default: number; max: number }, what: string) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(bounds.max)
    .default(bounds.default)
    .meta({ description: `The most ${what} to list.` })

/** The extensions beyond section 4: courses for a gap, skills related to a skill. */
export function recommendRoutes(): ApiRoute[] {
  return [courseRecommendationRoute(), relatedSkillsRoute()]
}

function courseRecommendationRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/employees/:employee_external_id/course_recommendations',
    doc: {
      operationId: 'getCourseRecommendations',
      summary: "Recommend courses for an Employee's skill gap",
      description: `${EXTENSION} \`skillhouse recommend courses\`. The gap to a Vacancy, a Job or a list of skills (exactly one of \`vacancy_id\`, \`job_id\`, \`skill_id\`; 422 otherwise), by the rule of 4.5, each skill weighted (critical counts double, each level short once); then the greedy sequence of the tenant's Courses that closes most of the gap's weight, each with the gap skills it covers (credit 1 at the level needed, less below it) and those still open after it. 404 names an unknown Employee, Vacancy, Job or skill. No courses, an empty gap or an Employee without a profile yet: an answer with a \`note\`.`,
      tag: 'Extensions',
      extension: true,
      params: idParam('employee_external_id', 'external_id of the Employee'),
      query: z.object({
        vacancy_id: ExternalId.optional().meta({ description: "The gap to this Vacancy's profile." }),
        job_id: ExternalId.optional().meta({ description: "The gap to this Job's profile." }),
        skill_id: z
          .array(ExternalId)
          .max(MAX_TARGET_SKILLS)
          .optional()
          .meta({ description: 'The gap to these skills (repeatable), at any level.' }),
        limit: limitQuery(COURSE_LIMIT, 'courses'),
        ...ProfileQuery.shape,
      }),
      success: jsonSuccess(CourseRecommendationResponse, 'The gap and the courses that close it.'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) => {
      const skills = context.queries('skill_id')
      return ok(
        await context.tenant((tenant) =>
          recommendCourses(tenant, {
            employee_id: context.params.employee_external_id ?? '',
            vacancy_id: context.query('vacancy_id'),
            job_id: context.query('job_id'),
            skill_id: skills.length ? skills : undefined,
            limit: context.query('limit'),
            vocab_language: context.query('vocab_language'),
            external_vendor: vendorOf(context),
          }),
        ),
      )
    },
  }
}

function relatedSkillsRoute(): ApiRoute {
  return {
    method: 'GET',
    path: '/taxonomy/skills/:skill_id/related',
    doc: {
      operationId: 'getRelatedSkills',
      summary: 'Get the skills most associated with a skill',
      description: `${EXTENSION} \`skillhouse skill related\`. The skills held together with it in the tenant's Employee profiles, by NPMI (how much more often two skills go together than their popularity predicts), for pairs at least \`min_support\` Employees hold, merged with the skills of the same Skill Cluster; each labelled with its \`sources\`. Computed from the current profiles. 404 for a skill the vendor's taxonomy lacks.`,
      tag: 'Extensions',
      extension: true,
      params: idParam('skill_id', 'external_id of the Skill'),
      query: z.object({
        limit: limitQuery(RELATED_LIMIT, 'skills'),
        min_support: z.coerce
          .number()
          .int()
          .min(1)
          .max(MIN_SUPPORT.max)
          .default(MIN_SUPPORT.default)
          .meta({ description: 'Employees that must hold both skills before their association counts.' }),
        ...ProfileQuery.shape,
      }),
      success: jsonSuccess(RelatedSkillsResponse, 'The related skills, most associated first.'),
      errors: errorsOf(BASE_ERRORS, [422]),
    },
    handler: async (context) =>
      ok(
        await context.tenant((tenant) =>
          relatedSkills(tenant, {
            skill_id: context.params.skill_id ?? '',
            limit: context.query('limit'),
            min_support: context.query('min_support'),
            vocab_language: context.query('vocab_language'),
            external_vendor: vendorOf(context),
          }),
        ),
      ),
  }
}
