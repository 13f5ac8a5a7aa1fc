import { ExternalId, IsoDate, LocationOrAddress, Share } from '../schemas/common.js'
import { CustomProperties } from '../schemas/custom-properties.js'
import { LIMITS } from '../schemas/limits.js'
import {
  MatchExplanation,
  MatchFeedback,
  ResponseFormat,
  VACANCY_MATCH_INCLUDES,
} from '../schemas/matching.js'
import { SKILL_EVENT_TYPES } from '../schemas/skill-events.js'
import { z } from '../vendor/zod.js'

/**
 * Section 4.11, `POST /employees/{employee_external_id}/matching_vacancies` (docs/api.md), whose
 * response the spec leaves open ("shape depends on the include options"). skillhouse answers:
 *
 *     {employee_id, records: [{vacancy_id, score, rank, …includes, explanation?}], offset, limit, total,
 *      geo_filter_applied, geo_filter_note?}
 *
 * - `records` are the matches from rank `offset + 1` to `offset + limit`, best first (score
 *   descending, ties by vacancy external_id); `rank` is the 1-based place in the whole ranking.
 * - `total` counts every active vacancy that passed the filters with a score above 0 and at least
 *   `min_score`, so `offset + records.length < total` means more follow.
 * - Each include adds one field of the same name to every record; `response_format=explained`
 *   adds `explanation`.
 * - `geo_filter_applied` says whether a distance filter restricted the vacancies (the spec's
 *   50 km default included); it is false, with `geo_filter_note`, when the employee cannot be
 *   placed and the default was skipped.
 */

/** The query parameters of 4.11 (names: docs/api.md), as strings or values. */
export const VacancyMatchingQuery = z.strictObject({
  min_score: z.coerce
    .number()
    .min(LIMITS.vacancyMatching.minScore.min)
    .max(LIMITS.vacancyMatching.minScore.max)
    .default(LIMITS.vacancyMatching.minScore.default),
  limit: z.coerce
    .number()
    .int()
    .min(LIMITS.vacancyMatching.limit.min)
    .max(LIMITS.vacancyMatching.limit.max)
    .default(LIMITS.vacancyMatching.limit.default),
  offset: z.coerce
    .number()
    .int()
    .min(LIMITS.vacancyMatching.offset.min)
    .max(LIMITS.vacancyMatching.offset.max)
    .default(LIMITS.vacancyMatching.offset.default),
  response_format: ResponseFormat.default('simple'),
  external_vendor: z.string().optional(),
  vocab_language: z.string().optional(),
  include: z
    .preprocess(
      (value) => (typeof value === 'string' ? [value] : value),
      z.array(z.enum(VACANCY_MATCH_INCLUDES)),
    )
    .default([]),
})
/** The query as callers hand it over: strings from a URL or flags, or values. */
export interface VacancyMatchingQuery {
  min_score?: unknown
  limit?: unknown
  offset?: unknown
  response_format?: string | undefined
  external_vendor?: string | undefined
  vocab_language?: string | undefined
  include?: unknown
}

/** One component of the score (`include=score_breakdown`), in the order of the request's weights. */
export const ScoreComponent = z.object({
  weight: z.string(),
  value: z.number(),
  /** The component's own score, 0–1. */
  score: Share,
  /** value × score / Σ values: what it adds to the match's score. */
  contribution: Share,
  property_name: z.string().optional(),
})

/** Half the Earth's circumference (km): no two places are farther apart. */
const MAX_DISTANCE_KM = 20_016

/** The vacancy's location (`include=location`): as stored, where it was placed, and how far away. */
export const MatchLocation = z.object({
  location: LocationOrAddress.nullable(),
  lat: z.number().min(-90).max(90).nullable(),
  lng: z.number().min(-180).max(180).nullable(),
  known: z.boolean(),
  /** Great-circle distance from the employee (or the request's location), km, 1 decimal. */
  distance_km: z.number().min(0).max(MAX_DISTANCE_KM).nullable(),
  note: z.string().optional(),
})

/** An event of the employee that supports skills of the match (`include=relevant_experience`). */
export const RelevantExperience = z.object({
  external_id: ExternalId,
  event_type: z.enum(SKILL_EVENT_TYPES),
  timestamp: IsoDate,
  summary: z.string().nullable(),
  skill_ids: z.array(z.string()),
})

export const VacancyMatchRecord = z.object({
  vacancy_id: ExternalId,
  score: z.number().min(0).max(1),
  rank: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.vacancyMatching.offset.max + LIMITS.vacancyMatching.limit.max),
  custom_properties: CustomProperties.optional(),
  entity: z.object({ title: z.string(), description: z.string().nullable() }).optional(),
  location: MatchLocation.optional(),
  relevant_experience: z.array(RelevantExperience).optional(),
  score_breakdown: z.array(ScoreComponent).optional(),
  match_feedback: MatchFeedback.pick({ feedback: true, timestamp: true }).nullable().optional(),
  explanation: MatchExplanation.optional(),
})
export type VacancyMatchRecord = z.infer<typeof VacancyMatchRecord>

export const VacancyMatchingResponse = z.object({
  employee_id: ExternalId,
  records: z.array(VacancyMatchRecord),
  offset: z.number().int().min(0).max(LIMITS.vacancyMatching.offset.max),
  limit: z.number().int().min(1).max(100),
  total: z.number().int().min(0),
  geo_filter_applied: z.boolean().meta({
    description:
      "Whether a distance filter restricted the vacancies: a `max_geo_distance` or `multi_max_geo_distances` filter of the request, else the spec's default of 50 km from the employee. False when the default could not apply because the employee cannot be placed (no location, or an address whose postal code is not in the tenant's postal-code table, `skillhouse geo import`): then vacancies at any distance are matched.",
  }),
  geo_filter_note: z.string().optional().meta({
    description: 'With `geo_filter_applied: false`: why the employee could not be placed.',
  }),
})
export type VacancyMatchingResponse = z.infer<typeof VacancyMatchingResponse>
