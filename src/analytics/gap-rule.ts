/**
 * The gap rule (4.5) on plain data: which skills of a vacancy are in an employee's gap and in
 * what order, wherever the inputs come from (the gap index, gap-index.ts, or the database, skill-gap.ts).
 */

/** One skill of the vacancy's profile, with what the employee holds of it. */
export interface GapCandidate {
  skill_id: string
  /** governed_critical, else inferred_critical, of the vacancy's skill; null counts as not critical. */
  critical: boolean
  /** The vacancy profile's score of the skill: how strongly the vacancy asks for it. */
  score: number
  /** Level the vacancy asks for (governed, else inferred), null when unknown. */
  required_level: number | null
  /** Whether the employee's profile holds the skill (suggested or validated; rejected skills are absent). */
  held: boolean
  /** The employee's level of the skill, null when not held or unknown. */
  held_level: number | null
}

/** Why a skill is in the gap. */
export type GapReason = 'missing' | 'below_required_level'

/**
 * Whether a held skill is held at the level asked for: always when either level is unknown (a
 * profile without proficiency never makes a held skill a gap), else at or above it.
 */
export function meetsLevel(requiredLevel: number | null, heldLevel: number | null): boolean {
  return requiredLevel === null || heldLevel === null || heldLevel >= requiredLevel
}

/**
 * The gap rule, on plain data: a vacancy skill is in the gap when the employee does not hold it
 * at all, or holds it below the level the vacancy asks for — the level comparison applies only
 * when both levels are known (a profile without proficiency never makes a held skill a gap).
 * Ordered by importance: critical skills first, then the vacancy's score (highest first), then
 * skill_id, so that equal inputs always give the same order.
 */
export function gapSkills(candidates: readonly GapCandidate[]): (GapCandidate & { reason: GapReason })[] {
  const gap: (GapCandidate & { reason: GapReason })[] = []
  for (const candidate of candidates) {
    if (!candidate.held) gap.push({ ...candidate, reason: 'missing' })
    else if (!meetsLevel(candidate.required_level, candidate.held_level)) {
      gap.push({ ...candidate, reason: 'below_required_level' })
    }
  }
  return gap.sort(
    (a, b) =>
      Number(b.critical) - Number(a.critical) ||
      b.score - a.score ||
      (a.skill_id < b.skill_id ? -1 : a.skill_id > b.skill_id ? 1 : 0),
  )
}
