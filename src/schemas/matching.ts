import { CountryCode, ExternalId, GeoPoint, IsoDate, ProficiencyLevel, Share } from './common.js'
import { PropertyName } from './custom-properties.js'
import { LIMITS } from './limits.js'
import { MatchingEventType } from './skill-events.js'
import { z } from './zod.js'

const Distance = z.number().min(0).max(40_075)
const Ids = z.array(ExternalId).min(1).max(10_000)
const Scalar = z.union([z.string(), z.number(), z.boolean()])

/** A location in a match filter: {lat, lng} or {country, postal_code}. */
export const FilterLocation = z.union([
  GeoPoint,
  z.strictObject({ country: CountryCode, postal_code: z.string().min(1).max(20) }),
])

// Filters (2.13). Each object's `filter` field selects its kind.
const LastUpdatedFilter = z.strictObject({
  filter: z.literal('last_updated'),
  value: IsoDate,
  operator: z.enum(['lt', 'lte', 'gt', 'gte']).default('lt'),
})
const CustomPropertyEqualFilter = z.strictObject({
  filter: z.literal('custom_property_equal'),
  from_entity_property: PropertyName,
  to_entity_property: PropertyName,
})
const CustomPropertyFilter = z.strictObject({
  filter: z.literal('custom_property'),
  property_name: PropertyName,
  property_value: Scalar,
})
const CustomPropertyIsInFilter = z.strictObject({
  filter: z.literal('custom_property_is_in'),
  from_entity_property: PropertyName,
  to_entity_property: PropertyName,
})
const CustomPropertyIsInListFilter = z.strictObject({
  filter: z.literal('custom_property_is_in_list'),
  property_name: PropertyName,
  possible_values: z.array(Scalar).min(1).max(LIMITS.listItems.max),
})
const CustomPropertyContainsFilter = z.strictObject({
  filter: z.literal('custom_property_contains'),
  from_entity_property: PropertyName,
  to_entity_property: PropertyName,
})
const CustomPropertyContainsElementFilter = z.strictObject({
  filter: z.literal('custom_property_contains_element'),
  property_name: PropertyName,
  property_value: Scalar,
})
const CustomPropertyListOverlapFilter = z.strictObject({
  filter: z.literal('custom_property_list_overlap'),
  from_entity_property: PropertyName,
  to_entity_property: PropertyName,
})
const ExternalIdIsInListFilter = z.strictObject({
  filter: z.literal('external_id_is_in_list'),
  external_ids: Ids,
})
const LowDataAvailabilityFilter = z.strictObject({
  filter: z.literal('low_data_availability'),
  exclude_low_data_availability: z.boolean(),
})
const MaxGeoDistanceFilter = z.strictObject({
  filter: z.literal('max_geo_distance'),
  max_geo_distance: Distance,
  location: FilterLocation.optional(),
})
const MultiMaxGeoDistancesFilter = z.strictObject({
  filter: z.literal('multi_max_geo_distances'),
  multi_max_geo_distances: z
    .array(z.strictObject({ max_geo_distance: Distance, location: FilterLocation }))
    .min(1)
    .max(50),
})
const LanguageFilter = z.strictObject({
  filter: z.literal('language'),
  max_overqualification: z.number().int().min(0).max(4),
  max_underqualification: z.number().int().min(0).max(4),
})
const ExcludeMatchFeedbackFilter = z.strictObject({ filter: z.literal('exclude_match_feedback') })

const SHARED_FILTERS = [
  LastUpdatedFilter,
  CustomPropertyEqualFilter,
  CustomPropertyFilter,
  CustomPropertyIsInFilter,
  CustomPropertyIsInListFilter,
  CustomPropertyContainsFilter,
  CustomPropertyContainsElementFilter,
  CustomPropertyListOverlapFilter,
  ExternalIdIsInListFilter,
  LowDataAvailabilityFilter,
] as const

/** Filters of the Job column of 2.13. */
export const JobMatchFilter = z.discriminatedUnion('filter', [...SHARED_FILTERS])
export type JobMatchFilter = z.infer<typeof JobMatchFilter>

/** Filters of the Vacancy column of 2.13. */
export const VacancyMatchFilter = z.discriminatedUnion('filter', [
  ...SHARED_FILTERS,
  MaxGeoDistanceFilter,
  MultiMaxGeoDistancesFilter,
  LanguageFilter,
  ExcludeMatchFeedbackFilter,
])
export type VacancyMatchFilter = z.infer<typeof VacancyMatchFilter>

// Weights (2.14). Each object's `weight` field selects its kind; `value` is its weight.
const WeightValue = z.number().min(0).max(100)
const SkillsMatchWeight = z.strictObject({ weight: z.literal('skills_match'), value: WeightValue.default(1) })

/** Weights for Job matching: skills_match only, default 1.0. */
export const JobMatchWeight = z.discriminatedUnion('weight', [SkillsMatchWeight])
export type JobMatchWeight = z.infer<typeof JobMatchWeight>

/** Weights of the Vacancy column of 2.14. */
export const VacancyMatchWeight = z.discriminatedUnion('weight', [
  SkillsMatchWeight,
  z.strictObject({ weight: z.literal('desired_functions'), value: WeightValue }),
  z.strictObject({
    weight: z.literal('geo_distance'),
    value: WeightValue,
    full_score_distance: Distance,
    zero_score_distance: Distance,
  }),
  z.strictObject({
    weight: z.literal('language'),
    value: WeightValue,
    max_overqualification: z.number().int().min(0).max(4),
    max_underqualification: z.number().int().min(0).max(4),
  }),
  z.strictObject({
    weight: z.literal('custom_property'),
    value: WeightValue,
    property_name: PropertyName,
    operator: z.enum(['eq', 'neq', 'lt', 'lte', 'gt', 'gte']),
    property_value: Scalar,
  }),
  z.strictObject({
    weight: z.literal('custom_property_is_in'),
    value: WeightValue,
    from_entity_property: PropertyName,
    to_entity_property: PropertyName,
  }),
  z.strictObject({
    weight: z.literal('custom_property_is_in_list'),
    value: WeightValue,
    property_name: PropertyName,
    possible_values: z.array(Scalar).min(1).max(LIMITS.listItems.max),
  }),
  z.strictObject({
    weight: z.literal('custom_property_contains'),
    value: WeightValue,
    from_entity_property: PropertyName,
    to_entity_property: PropertyName,
  }),
  z.strictObject({
    weight: z.literal('custom_property_contains_element'),
    value: WeightValue,
    property_name: PropertyName,
    property_value: z.array(Scalar).min(1).max(LIMITS.listItems.max),
  }),
  z.strictObject({
    weight: z.literal('custom_property_list_overlap'),
    value: WeightValue,
    from_entity_property: PropertyName,
    to_entity_property: PropertyName,
  }),
])
export type VacancyMatchWeight = z.infer<typeof VacancyMatchWeight>

export const ResponseFormat = z.enum(['simple', 'explained'])

/** Body of 4.10. */
export const JobMatchingRequest = z.strictObject({
  filters: z.array(JobMatchFilter).max(100),
  weights: z.array(JobMatchWeight).max(1),
  limit: z.number().int().min(1).max(50).default(LIMITS.jobMatching.limit.default),
  match_limit_per_entity: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(LIMITS.jobMatching.matchLimitPerEntity.default),
  score_min_threshold: z.number().min(0).max(1).default(LIMITS.jobMatching.scoreMinThreshold.default),
  starting_after: z
    .string()
    .max(100)
    .regex(/^[a-zA-Z0-9_-]*$/, 'must contain only letters, digits, hyphens and underscores')
    .nullish(),
  include_overqualified: z.boolean().default(true),
  min_critical_skills_match_ratio: z.number().min(0).max(1).nullish(),
})
export type JobMatchingRequest = z.infer<typeof JobMatchingRequest>

/** Body of 4.11 (property names: docs/api.md). */
export const VacancyMatchingRequest = z.strictObject({
  filters: z.array(VacancyMatchFilter).max(100).default([]),
  weights: z.array(VacancyMatchWeight).max(100).default([]),
  event_types: z.array(MatchingEventType).max(20).optional(),
})
export type VacancyMatchingRequest = z.infer<typeof VacancyMatchingRequest>

export const VACANCY_MATCH_INCLUDES = [
  'custom_properties',
  'entity',
  'location',
  'relevant_experience',
  'score_breakdown',
  'match_feedback',
] as const

/** A matched or missing skill of an explanation; figures are shares of the skills_match score. */
export const ExplainedSkill = z.object({
  skill_id: z.string(),
  skill_name: z.string(),
  /** w_j / Σ w: the share of the skills_match score this skill stands for. */
  weight: Share,
  /** What the employee earns with it (matched skills only). */
  contribution: Share.optional(),
  required_level: ProficiencyLevel.nullable().optional(),
  level: ProficiencyLevel.nullable().optional(),
  critical: z.boolean().optional(),
})

export const MatchExplanation = z.object({
  matched_skills: z.array(ExplainedSkill),
  missing_skills: z.array(ExplainedSkill),
  /** What else shaped the match: unknown locations, restricted event types. */
  notes: z.array(z.string()).optional(),
})

/**
 * One match of 4.10 (2.12): `{employee_id, score}`, and the fields the spec leaves open: with
 * proficiency matching on the tenant `overqualified`, with criticalities
 * `critical_skills_match_ratio`, with `response_format=explained` an `explanation`.
 */
export const EmployeeMatch = z.object({
  employee_id: ExternalId,
  score: z.number().min(0).max(1),
  overqualified: z.boolean().optional().meta({
    description:
      'Present when the tenant matches with proficiency levels: the job asks a level of at least one skill, and the employee holds every such skill at a level above it (`include_overqualified: false` drops these matches).',
  }),
  critical_skills_match_ratio: z.number().min(0).max(1).optional().meta({
    description:
      "Present when the tenant uses criticalities: over the job's critical skills, the sum of how fully each is held (1 at or above the level asked for, held/asked below it, 0 when missing) divided by their number; 1 when the job has none.",
  }),
  /** With `response_format=explained`: the skills of the job the employee holds and lacks. */
  explanation: MatchExplanation.optional(),
})
export type EmployeeMatch = z.infer<typeof EmployeeMatch>

/** Answer of 4.10: a page of jobs with their matches. */
export const JobMatchingResponse = z.object({
  records: z.array(z.object({ job_id: ExternalId, matches: z.array(EmployeeMatch) })),
  has_next: z.boolean(),
  next_starting_after: z.string().max(100).nullable(),
})
export type JobMatchingResponse = z.infer<typeof JobMatchingResponse>

/** Match feedback on a vacancy for an employee (the `exclude_match_feedback` filter reads it). */
export const MatchFeedback = z.strictObject({
  employee_id: ExternalId,
  vacancy_id: ExternalId,
  feedback: z.enum(['interested', 'not_interested', 'applied', 'dismissed']),
  timestamp: IsoDate,
})
export type MatchFeedback = z.infer<typeof MatchFeedback>
