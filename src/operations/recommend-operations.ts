import { recommendCourses } from '../recommend/recommend-courses.js'
import { relatedSkills } from '../recommend/related-skills.js'
import type {
  CourseRecommendationOptions,
  CourseRecommendationResponse,
  RelatedSkillsOptions,
  RelatedSkillsResponse,
} from '../schemas/recommendations.js'
import { tenantOperation } from './tenant-operation.js'

/** The vocabulary of an answer, as a command passes it. */
interface Vocabulary {
  external_vendor?: string | undefined
  vocab_language?: string | undefined
}

/** `skillhouse recommend courses`: the courses that close an employee's gap (an extension). */
export const recommendCoursesForGap = tenantOperation(
  'recommend.courses',
  false,
  (tenant, params: CourseRecommendationOptions & Vocabulary): Promise<CourseRecommendationResponse> =>
    recommendCourses(tenant, params),
)

/** `skillhouse skill related`: the skills associated with a skill (an extension). */
export const relatedSkillsOf = tenantOperation(
  'skill.related',
  false,
  (tenant, params: RelatedSkillsOptions & Vocabulary): Promise<RelatedSkillsResponse> =>
    relatedSkills(tenant, params),
)
