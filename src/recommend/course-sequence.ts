/**
 * The course recommendation rule on plain data: how much of a gap each course closes, and the
 * greedy sequence of courses (each next course the one that closes most of what the ones before
 * it left). No SQL here: the inputs come from the course index and the gap of the employee.
 */

/** A skill of the gap, as the rule reads it. */
export interface GapNeed {
  skill_id: string
  /** What closing this skill is worth (critical and levels short weigh more). */
  weight: number
  /** The level needed, null when the target names none. */
  required_level: number | null
  /** The level the employee holds, 0 when the skill is missing, null when held at an unknown level. */
  held_level: number | null
}

/** What a course teaches of one skill: the course's number and its level (null when unknown). */
export interface CourseTeaching {
  course: number
  level: number | null
}

/** One step of the sequence: a course, what it adds, and its credit per gap skill it touches. */
export interface SequenceStep {
  course: number
  gain: number
  /** Per gap skill (by position in the gap), the course's credit, for the skills it covers. */
  credits: { skill: number; level: number | null; credit: number }[]
  /** The gap skills (positions) still not fully closed after this step. */
  open: number[]
}

/** Weight of a gap skill: critical skills count double, and each level short counts once. */
export function gapWeight(critical: boolean, requiredLevel: number | null, heldLevel: number | null): number {
  const short = requiredLevel === null ? 1 : Math.max(1, requiredLevel - (heldLevel ?? 0))
  return (critical ? 2 : 1) * short
}

/**
 * The share of a gap skill's distance a course closes: all of it when the course teaches the skill
 * at the level needed, or when either level is unknown (as the gap rule reads an unknown level);
 * below it, the part of the way from the level held to the level needed; nothing when the course
 * teaches no more than the employee holds.
 */
export function courseCredit(need: GapNeed, courseLevel: number | null): number {
  const needed = need.required_level
  if (needed === null || courseLevel === null || courseLevel >= needed) return 1
  const from = need.held_level ?? 0
  if (courseLevel <= from || needed <= from) return 0
  return (courseLevel - from) / (needed - from)
}

/**
 * The greedy sequence of at most `limit` courses: each step takes the course whose credits add
 * most weight beyond the progress so far (a skill's progress is the best credit any course taken
 * gives it: two courses at level 2 do not make level 3), ties to the smaller course number (the
 * smaller external_id). Stops when no course adds anything. `teaching[i]` lists the courses that
 * teach gap skill i.
 */
export function courseSequence(
  gap: readonly GapNeed[],
  teaching: readonly (readonly CourseTeaching[])[],
  limit: number,
): SequenceStep[] {
  const byCourse = new Map<number, { skill: number; level: number | null; credit: number }[]>()
  gap.forEach((need, skill) => {
    for (const { course, level } of teaching[skill] ?? []) {
      const credit = courseCredit(need, level)
      if (credit <= 0) continue
      let credits = byCourse.get(course)
      if (!credits) {
        credits = []
        byCourse.set(course, credits)
      }
      credits.push({ skill, level, credit })
    }
  })
  const progress = new Float64Array(gap.length)
  const steps: SequenceStep[] = []
  while (steps.length < limit) {
    let best = -1
    let bestGain = 0
    for (const [course, credits] of byCourse) {
      let gain = 0
      for (const { skill, credit } of credits)
        gain += (gap[skill] as GapNeed).weight * Math.max(0, credit - (progress[skill] as number))
      if (gain > bestGain + 1e-12 || (Math.abs(gain - bestGain) <= 1e-12 && gain > 0 && course < best)) {
        best = course
        bestGain = gain
      }
    }
    if (best < 0) break
    const credits = byCourse.get(best) as SequenceStep['credits']
    for (const { skill, credit } of credits) progress[skill] = Math.max(progress[skill] as number, credit)
    byCourse.delete(best)
    const open = gap.flatMap((_, skill) => ((progress[skill] as number) < 1 ? [skill] : []))
    steps.push({ course: best, gain: bestGain, credits, open })
  }
  return steps
}
