import { ExternalId } from './common.js'
import { z } from './zod.js'

/**
 * skillhouse's extensions beyond the spec: course recommendations for a skill gap and the skills
 * related to a skill. Not part of the Skills Service API; documented as extensions (docs/recommendations.md).
 */

/** How many courses a recommendation lists at most (a greedy sequence rarely needs more). */
export const COURSE_LIMIT = { default: 5, max: 50 } as const
/** How many related skills an answer lists at most. */
export const RELATED_LIMIT = { default: 10, max: 100 } as const
/** How many skills a `skill_id` target may name. */
export const MAX_TARGET_SKILLS = 100

const limitOf = (bounds: { default: number; max: number }) =>
  z.coerce.number().int().min(1).max(bounds.max).default(bounds.default)

/**
 * What a course recommendation is asked for: an employee and exactly one target (a vacancy, a
 * job, or skills), checked by `recommendCourses`.
 */
export const CourseRecommendationOptions = z.strictObject({
  employee_id: ExternalId,
  vacancy_id: ExternalId.optional(),
  job_id: ExternalId.optional(),
  skill_id: z.array(ExternalId).max(MAX_TARGET_SKILLS).optional(),
  limit: limitOf(COURSE_LIMIT),
})
export type CourseRecommendationOptions = z.input<typeof CourseRecommendationOptions>

/** A skill of the gap a recommendation closes, with the weight it carries. */
export const RecommendationGapSkill = z.object({
  skill_id: z.string(),
  skill_name: z.string(),
  reason: z.enum(['missing', 'below_required_level']),
  critical: z.boolean(),
  required_level: z.number().int().nullable(),
  held_level: z.number().int().nullable(),
  weight: z.number(),
})

/** What a course does for one gap skill: its level of the skill and the share of the skill's gap it closes. */
export const CoveredSkill = z.object({
  skill_id: z.string(),
  course_level: z.number().int().nullable(),
  /** 1 when the course teaches the skill at the level needed, less for a lower level. */
  credit: z.number(),
})

/** One course of the greedy sequence. */
export const RecommendedCourse = z.object({
  rank: z.number().int(),
  course_id: z.string(),
  title: z.string(),
  /** The weight of the gap this course closes beyond the courses before it. */
  gain: z.number(),
  /** The share of the gap's weight closed by this course and the ones before it. */
  closed_share: z.number(),
  covers: z.array(CoveredSkill),
  /** The gap skills still open (not fully closed) after this course and the ones before it. */
  leaves: z.array(z.string()),
})

export const CourseRecommendationResponse = z
  .object({
    employee_id: z.string(),
    target: z.object({
      kind: z.enum(['vacancy', 'job', 'skills']),
      ids: z.array(z.string()),
    }),
    employee_has_profile: z.boolean(),
    gap: z.array(RecommendationGapSkill),
    gap_weight: z.number(),
    courses: z.array(RecommendedCourse),
    /** The share of the gap's weight the listed courses close together. */
    closed_share: z.number(),
    /** A sentence for the cases without a course to take (no gap, no course, no course touching the gap). */
    note: z.string().nullable(),
  })
  .meta({ description: 'Courses ranked by the share of the gap they close (skillhouse extension).' })
export type CourseRecommendationResponse = z.infer<typeof CourseRecommendationResponse>
export type RecommendedCourse = z.infer<typeof RecommendedCourse>
export type RecommendationGapSkill = z.infer<typeof RecommendationGapSkill>

/** Employees that must hold both skills before their association counts. */
export const MIN_SUPPORT = { default: 3, max: 100_000 } as const

export const RelatedSkillsOptions = z.strictObject({
  skill_id: ExternalId,
  limit: limitOf(RELATED_LIMIT),
  min_support: z.coerce.number().int().min(1).max(MIN_SUPPORT.max).default(MIN_SUPPORT.default),
})
export type RelatedSkillsOptions = z.input<typeof RelatedSkillsOptions>

/** Where a related skill comes from. */
export const RELATED_SOURCES = ['profiles', 'taxonomy'] as const

export const RelatedSkill = z.object({
  skill_id: z.string(),
  skill_name: z.string(),
  /** NPMI plus the bonus of a shared cluster: what the list is ordered by. */
  score: z.number(),
  sources: z.array(z.enum(RELATED_SOURCES)),
  /** Normalised pointwise mutual information over employee profiles; null below the minimum support. */
  npmi: z.number().nullable(),
  /** Employees holding both skills. */
  together: z.number().int(),
})
export type RelatedSkill = z.infer<typeof RelatedSkill>

export const RelatedSkillsResponse = z
  .object({
    skill_id: z.string(),
    skill_name: z.string(),
    /** Employees whose profile holds the skill, and employees with a profile at all. */
    holders: z.number().int(),
    employees: z.number().int(),
    min_support: z.number().int(),
    related: z.array(RelatedSkill),
  })
  .meta({ description: 'Skills associated with a skill (skillhouse extension).' })
export type RelatedSkillsResponse = z.infer<typeof RelatedSkillsResponse>
