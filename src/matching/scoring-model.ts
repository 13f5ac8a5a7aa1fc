/**
 * # How skillhouse scores a match
 *
 * One model scores both directions of matching: top Employees for a Job (4.10) and top Vacancies
 * for an Employee (4.11). The *target* is the entity whose skills must be covered (the Job, the
 * Vacancy); the *candidate* is the Employee. Batch commands, the nightly job and the HTTP server
 * all call the functions of this module, so a score is the same number wherever it is computed.
 *
 * ## 1. Skill coverage (the `skills_match` component)
 *
 * Every skill j of the target's profile (of the requested `external_vendor`) gets a weight
 *
 *     w_j = e_j × idf_j × c_j
 *
 * - e_j, evidence: the target profile's score for the skill (1 for a governed, validated skill;
 *   the extraction strength, 0–1, for a suggested one). A skill the job's text barely implies
 *   asks less of a candidate than one its owner governs.
 * - idf_j = ln(1 + N / df_j), specificity: N is the number of target profiles of that kind (all
 *   Jobs, or all Vacancies, with a profile of the vendor) and df_j the number holding skill j. A
 *   skill every job asks for ("communication", ln 2 ≈ 0.69) says less about fit than one only a
 *   few jobs ask for (ln 1,001 ≈ 6.9 for one job in a thousand).
 * - c_j, criticality: 2 for a critical skill (governed_critical, else inferred_critical) when the
 *   tenant has `use_criticalities`; 1 otherwise.
 *
 * The candidate holds skill j with strength h_j: 1 when the skill is validated in the
 * candidate's profile, else the profile's evidence score (0–1); 0 when the skill is absent
 * (rejected skills are absent). With the tenant's `proficiency_matching`, a proficiency factor
 *
 *     f_j = 1 when the held level p ≥ the required level r (over-qualification costs nothing),
 *           p / r when p < r (under-qualification reduces the contribution proportionally),
 *           1 when either level is unknown;
 *
 * without it f_j = 1. Levels are 1–5: the target's governed level, else its inferred level; the
 * candidate's level, else 1 + ⌊5 × proficiency_float⌋. The coverage score is the weighted share
 * of the target's skills the candidate covers:
 *
 *     S_skills = Σ_j w_j · h_j · f_j  /  Σ_j w_j        (0 when the target has no skills)
 *
 * The sum runs over the target's skills in a fixed order (weight descending, then skill id), so
 * the same inputs always give the same floating-point number.
 *
 * Two per-match properties come with it:
 * - `critical_skills_match_ratio` (with `use_criticalities`): Σ f_j over the target's critical
 *   skills the candidate holds, divided by the number of critical skills (1 when there are none).
 *   `min_critical_skills_match_ratio` keeps only matches at or above it.
 * - `overqualified` (with `proficiency_matching`): the target has at least one skill with a
 *   required level, and the candidate holds every such skill at a known level above it.
 *   `include_overqualified: false` drops these matches.
 *
 * ## 2. Combining components (Vacancy matching)
 *
 * The weights of 2.14 name components, each a score s_k in [0, 1]:
 *
 * - `skills_match`: S_skills above. It is always present: 1.0 unless the request gives it a value
 *   (0 removes it).
 * - `desired_functions`: 1 when the vacancy's job, or that job's family, is among the employee's
 *   desired_functions; else 0.
 * - `geo_distance` (full_score_distance F, zero_score_distance Z, km): 1 up to F, 0 from Z on,
 *   linear between; 0 when either location is unknown.
 * - `language` (max_overqualification O, max_underqualification U): per language the vacancy
 *   requires at level r, with the employee's level p (0 when not spoken) and g = p − r: 1 when
 *   0 ≤ g ≤ O, 1 − |g| / (U + 1) when −U ≤ g < 0, 0 outside the tolerances; the mean over the
 *   requirements (1 when the vacancy requires none).
 * - custom property weights: 1 when the vacancy satisfies the rule, else 0; except
 *   `custom_property_contains_element` (the share of the listed values the vacancy's list holds)
 *   and `custom_property_list_overlap` (|A ∩ B| / min(|A|, |B|)).
 *
 * The score is the normalised weighted mean  Σ_k v_k · s_k / Σ_k v_k  with v_k the weights'
 * `value`s. Job matching has `skills_match` only, so its score is S_skills.
 *
 * ## 3. Scores, thresholds and order
 *
 * Scores are rounded to 12 decimal places (far below any meaningful difference) so that the
 * order never depends on the order of floating-point additions. A score of 0 is no match and is
 * never returned. Matches rank by score descending, ties by the candidate's (or vacancy's)
 * external_id ascending, so every run returns the same order. The search is exact: scores at
 * or above `score_min_threshold` / `min_score` are all considered, none below is returned.
 *
 * ## 4. A worked example
 *
 * A tenant with four job profiles, proficiency matching and criticalities on. The job "Data
 * Engineer" has three skills:
 *
 * | skill         | e   | df | idf = ln(1 + 4/df) | critical | w            | level |
 * |---------------|-----|----|--------------------|----------|--------------|-------|
 * | SQL           | 1.0 | 2  | 1.0986             | yes (×2) | 2.1972       | 4     |
 * | Python        | 0.8 | 1  | 1.6094             | no       | 1.2876       | 3     |
 * | Communication | 0.5 | 4  | 0.6931             | no       | 0.3466       | 2     |
 *
 * Σ w = 3.8313. An employee holds SQL validated at level 3 (h = 1, f = 3/4) and Python suggested
 * with evidence 0.9 at level 4 (h = 0.9, f = 1), and not Communication:
 *
 *     S_skills = (2.1972 × 1 × 0.75 + 1.2876 × 0.9 × 1) / 3.8313 = (1.6479 + 1.1588) / 3.8313 = 0.7326
 *
 * SQL contributes 0.4301 of the score, Python 0.3025; Communication would have added 0.0905.
 * critical_skills_match_ratio = 0.75 (SQL held at 3 of the 4 required); not overqualified
 * (Communication is missing, and SQL is below its level).
 *
 * Matched against a Vacancy with the same skills and the weights skills_match 1, geo_distance
 * 0.5 (F = 10 km, Z = 60 km) and language 0.5 (O = 1, U = 1): the employee lives 35 km away
 * (s = (60 − 35) / 50 = 0.5) and speaks Dutch at 2 where 3 is required (g = −1: s = 1 − 1/2 =
 * 0.5). The score is (1 × 0.7326 + 0.5 × 0.5 + 0.5 × 0.5) / 2 = 0.6163.
 */

/** The constants of the model. */
export const SCORING = {
  /** c_j of a critical skill when the tenant uses criticalities. */
  criticalWeight: 2,
  /** Decimal places scores are rounded to. */
  scoreDecimals: 12,
  /** Decimal places of the figures of an explanation (contributions, weights). */
  explanationDecimals: 6,
} as const

const SCORE_SCALE = 10 ** SCORING.scoreDecimals
const EXPLANATION_SCALE = 10 ** SCORING.explanationDecimals

/** The tenant features that change the model. */
export interface ScoringFeatures {
  proficiencyMatching: boolean
  useCriticalities: boolean
}

/** The key of an index built for a vendor and feature set (one per combination). */
export const featuresKey = (vendor: string, features: ScoringFeatures) =>
  `${vendor}|${features.proficiencyMatching}|${features.useCriticalities}`

/** idf_j = ln(1 + N / df_j): how specific a skill is among N target profiles, df of which hold it. */
export function specificity(documentFrequency: number, targets: number): number {
  return documentFrequency > 0 ? Math.log(1 + targets / documentFrequency) : Math.log(1 + targets)
}

/** w_j = e_j × idf_j × c_j. */
export function targetSkillWeight(
  evidence: number,
  idf: number,
  critical: boolean,
  features: ScoringFeatures,
): number {
  return evidence * idf * (features.useCriticalities && critical ? SCORING.criticalWeight : 1)
}

/**
 * f_j: 1 at or above the required level, p / r below it, 1 when a level is unknown (0); 1 without
 * proficiency matching.
 */
export function proficiencyFactor(required: number, held: number, proficiencyMatching: boolean): number {
  if (!proficiencyMatching || required === 0 || held === 0 || held >= required) return 1
  return held / required
}

/**
 * f_j for every pair of levels 0–5 (0 = unknown) at [required · 6 + held], for a loop that looks
 * the factor up instead of branching on it.
 */
export function proficiencyFactorTable(proficiencyMatching: boolean): Float64Array {
  const table = new Float64Array(36)
  for (let required = 0; required < 6; required++) {
    for (let held = 0; held < 6; held++) {
      table[required * 6 + held] = proficiencyFactor(required, held, proficiencyMatching)
    }
  }
  return table
}

/**
 * w_j · h_j · f_j: what a held skill earns a candidate (f_j only with proficiency matching). Every
 * sum of the model adds these in the target's canonical order, so that the indexes and the
 * reference give the same floating-point sums.
 */
export function earnedWeight(
  weight: number,
  strength: number,
  required: number,
  level: number,
  proficiencyMatching: boolean,
): number {
  return weight * strength * proficiencyFactor(required, level, proficiencyMatching)
}

/** Rounds a score to the model's 12 decimal places. */
export function roundScore(score: number): number {
  return Math.round(score * SCORE_SCALE) / SCORE_SCALE
}

/** Rounds a figure of an explanation to 6 decimal places. */
export function roundFigure(value: number): number {
  return Math.round(value * EXPLANATION_SCALE) / EXPLANATION_SCALE
}

/** One skill of a target profile, weighted. */
export interface WeightedTargetSkill {
  skill_id: string
  weight: number
  /** Required level 1–5, 0 when unknown. */
  required: number
  critical: boolean
}

/** A candidate's hold on one skill. */
export interface HeldSkill {
  strength: number
  /** Level 1–5, 0 when unknown. */
  level: number
}

/**
 * Orders one target's skill rows [from, to) as the model sums them: weight descending, then skill
 * (skill numbers follow skill ids, so the tie-break on number is the tie-break on id). Leaves the
 * rows in `order[0 … to − from)`; an insertion sort, a target having a few dozen skills.
 */
export function canonicalOrder(
  order: Int32Array,
  from: number,
  to: number,
  weights: Float64Array,
  skills: Int32Array,
): void {
  for (let row = from; row < to; row++) {
    let at = row - from - 1
    while (at >= 0) {
      const before = order[at] as number
      const weightFirst = (weights[before] as number) - (weights[row] as number)
      if (weightFirst > 0 || (weightFirst === 0 && (skills[before] as number) < (skills[row] as number)))
        break
      order[at + 1] = before
      at--
    }
    order[at + 1] = row
  }
}

export interface CoverageSkill {
  skill_id: string
  /** w_j / Σ w: the share of the score this skill stands for. */
  weight: number
  /** w_j · h_j · f_j / Σ w: what the candidate earns with it (0 when missing). */
  contribution: number
  critical: boolean
  required_level: number | null
  level: number | null
}

export interface Coverage {
  /** S_skills, unrounded. */
  score: number
  criticalRatio: number
  overqualified: boolean
  matched: CoverageSkill[]
  missing: CoverageSkill[]
}

/**
 * S_skills of one candidate for one target, with the explanation: the reference implementation
 * of section 1 (the indexes of job and vacancy matching compute the same sums in the same order).
 * `skills` must be in canonical order.
 */
export function scoreCoverage(
  skills: readonly WeightedTargetSkill[],
  held: (skillId: string) => HeldSkill | undefined,
  features: ScoringFeatures,
): Coverage {
  let total = 0
  for (const skill of skills) total += skill.weight
  let sum = 0
  let criticalCount = 0
  let criticalHeld = 0
  let leveled = 0
  let over = 0
  const matched: CoverageSkill[] = []
  const missing: CoverageSkill[] = []
  for (const skill of skills) {
    const hold = held(skill.skill_id)
    if (skill.critical) criticalCount++
    if (skill.required > 0) leveled++
    const entry: CoverageSkill = {
      skill_id: skill.skill_id,
      weight: total > 0 ? roundFigure(skill.weight / total) : 0,
      contribution: 0,
      critical: skill.critical,
      required_level: skill.required || null,
      level: hold ? hold.level || null : null,
    }
    if (!hold) {
      missing.push(entry)
      continue
    }
    const factor = proficiencyFactor(skill.required, hold.level, features.proficiencyMatching)
    const earned = earnedWeight(
      skill.weight,
      hold.strength,
      skill.required,
      hold.level,
      features.proficiencyMatching,
    )
    sum += earned
    if (skill.critical) criticalHeld += factor
    if (skill.required > 0 && hold.level > skill.required) over++
    entry.contribution = total > 0 ? roundFigure(earned / total) : 0
    matched.push(entry)
  }
  return {
    score: total > 0 ? sum / total : 0,
    criticalRatio: criticalCount > 0 ? criticalHeld / criticalCount : 1,
    overqualified: leveled > 0 && over === leveled,
    matched,
    missing,
  }
}

/** A component of a combined score: its value v_k and its score s_k of an item (a vacancy number). */
export interface ScoreComponent {
  value: number
  score: (item: number) => number
}

/**
 * Σ v_k · s_k / Σ v_k over the components (`totalValue` = Σ v_k > 0), as a score of an item: with
 * one component its own score (which v · s / v may miss in the last bit), components of value 0
 * left out.
 */
export function weightedMean(
  components: readonly ScoreComponent[],
  totalValue: number,
): (item: number) => number {
  const single = components.length === 1 ? components[0] : undefined
  if (single) return single.score
  return (item) => {
    let sum = 0
    for (const component of components)
      if (component.value > 0) sum += component.value * component.score(item)
    return sum / totalValue
  }
}

/** v_k · s_k / Σ v_k: what one component adds to a combined score. */
export function contribution(value: number, score: number, totalValue: number): number {
  return (value * score) / totalValue
}

/** The geo_distance component: 1 up to `full` km, 0 from `zero` km on, linear between. */
export function distanceScore(distanceKm: number | null, full: number, zero: number): number {
  if (distanceKm === null || !Number.isFinite(distanceKm)) return 0
  if (distanceKm <= full) return 1
  if (distanceKm >= zero) return 0
  return (zero - distanceKm) / (zero - full)
}

/**
 * One language requirement against the employee's level (0 when not spoken): 1 when met within
 * `maxOver`, 1 − gap / (maxUnder + 1) when short by at most `maxUnder`, 0 outside the tolerances.
 */
export function languageRequirementScore(
  required: number,
  held: number,
  maxOver: number,
  maxUnder: number,
): number {
  const gap = held - required
  if (gap >= 0) return gap <= maxOver ? 1 : 0
  return -gap <= maxUnder ? 1 - -gap / (maxUnder + 1) : 0
}

/** Whether a requirement is within the language filter's tolerances. */
export function languageWithinTolerance(
  required: number,
  held: number,
  maxOver: number,
  maxUnder: number,
): boolean {
  const gap = held - required
  return gap >= -maxUnder && gap <= maxOver
}
