import {
  type EventInput,
  type Evidence,
  evidenceOfEvent,
  KIND_WEIGHTS,
  type ReferencedProfiles,
  type SkillFinder,
} from './evidence.js'

/** One skill of a derived profile, as stored in `profile_skills`. */
export interface ProfileSkill {
  skill_id: string
  validation_state: 'validated' | 'suggested'
  score: number
  proficiency_float: number | null
  proficiency_level: number | null
  governed_proficiency_level: number | null
  governed_critical: boolean | null
  inferred_critical: boolean | null
  first_seen: string | null
  last_seen: string | null
  evidence: { external_id: string; event_type: string }[]
}

export interface DerivedProfile {
  entity_id: string
  skills: ProfileSkill[]
  low_data: boolean
}

/** Constants of the proficiency formula (README, "How a profile is derived"). */
export const PROFICIENCY = {
  /** Evidence halves in weight every this many years. */
  halfLifeYears: 4,
  /** Years of practice that count as full experience. */
  fullExperienceYears: 5,
  evidenceWeight: 0.65,
  experienceWeight: 0.35,
  /** Below this combined evidence a skill is not suggested. */
  minimumEvidence: 0.3,
  /** Low data availability: fewer skills than this, or no event in the last `recentYears`. */
  lowDataSkills: 3,
  recentYears: 3,
} as const

const DAY = 86_400_000
const days = new Map<string, number>()
/** Days since the epoch of a YYYY-MM-DD date; the same dates recur across events, so they are remembered. */
function toDay(date: string): number {
  let day = days.get(date)
  if (day === undefined) {
    day = Date.parse(`${date.slice(0, 10)}T00:00:00Z`) / DAY
    if (days.size > 100_000) days.clear()
    days.set(date, day)
  }
  return day
}
const years = (days: number) => days / 365.25

/**
 * An Employee Skill Profile from all the employee's skill events, as of a date.
 *
 * Per skill: evidence i has strength a (how sure the event is), kind weight k (employment 1 …
 * goal 0.2) and recency r = 0.5^(age/4 years) (an ongoing period is age 0). Evidence
 * E = 1 − Π(1 − a·k·r); experience D = min(1, Y/5) with Y the years covered by the union of the
 * employment and project periods that mention the skill; proficiency_float = 0.65·E + 0.35·D
 * (at least the level a skill note states), proficiency_level = 1 + ⌊5·float⌋ capped at 5. A skill
 * is suggested when E ≥ 0.3; the latest skill_profile_feedback validates it (kept whatever E) or
 * rejects it (gone until evidence dated after the rejection arrives). Events dated after `asOf`
 * do not count yet: the event's timestamp is the date from which the skill is held.
 */
export function deriveEmployeeProfile(
  employeeId: string,
  events: readonly EventInput[],
  context: {
    extractor: SkillFinder
    referenced: ReferencedProfiles
    knownSkills: ReadonlySet<string>
    asOf: string
    /** Implied skills as evidence (default true; see `evidenceOfEvent`). */
    implied?: boolean
  },
): DerivedProfile {
  const today = toDay(context.asOf)
  const current = events.filter((event) => toDay(event.timestamp) <= today)
  const evidence = new Map<string, Evidence[]>()
  for (const event of current) {
    for (const item of evidenceOfEvent(event, context.extractor, context.referenced, context.knownSkills, {
      implied: context.implied !== false,
    })) {
      const list = evidence.get(item.skill_id)
      if (list) list.push(item)
      else evidence.set(item.skill_id, [item])
    }
  }
  const feedback = latestFeedback(current)
  const skills: ProfileSkill[] = []
  for (const skillId of new Set([...evidence.keys(), ...feedback.keys()])) {
    const items = evidence.get(skillId) ?? []
    const verdict = feedback.get(skillId)
    if (verdict?.action === 'reject' && !items.some((item) => item.date > verdict.date)) continue
    let miss = 1
    for (const item of items) {
      const end = item.period ? (item.period.end === null ? today : toDay(item.period.end)) : toDay(item.date)
      const age = Math.max(0, years(today - Math.min(end, today)))
      miss *=
        1 - item.strength * (KIND_WEIGHTS[item.event_type] ?? 0.5) * 0.5 ** (age / PROFICIENCY.halfLifeYears)
    }
    const evidenceScore = 1 - miss
    const validated = verdict?.action === 'validate'
    if (!validated && evidenceScore < PROFICIENCY.minimumEvidence) continue
    const experience = Math.min(1, years(coveredDays(items, today)) / PROFICIENCY.fullExperienceYears)
    const stated = Math.max(0, ...items.map((item) => item.stated_level ?? 0))
    let proficiency = PROFICIENCY.evidenceWeight * evidenceScore + PROFICIENCY.experienceWeight * experience
    if (stated > 0) proficiency = Math.max(proficiency, (stated - 0.5) / 5)
    proficiency = round(Math.min(1, proficiency))
    const dates = items.map((item) => item.date).sort()
    const ongoing = items.some((item) => item.period && item.period.end === null)
    skills.push({
      skill_id: skillId,
      validation_state: validated ? 'validated' : 'suggested',
      score: round(evidenceScore),
      proficiency_float: proficiency,
      proficiency_level: Math.min(5, 1 + Math.floor(proficiency * 5)),
      governed_proficiency_level: null,
      governed_critical: null,
      inferred_critical: null,
      first_seen: dates[0] ?? verdict?.date ?? null,
      last_seen: ongoing ? context.asOf : (dates[dates.length - 1] ?? verdict?.date ?? null),
      evidence: items
        .slice()
        .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.event_id < b.event_id ? -1 : 1))
        .map((item) => ({ external_id: item.event_id, event_type: item.event_type })),
    })
  }
  skills.sort((a, b) => b.score - a.score || (a.skill_id < b.skill_id ? -1 : 1))
  const recent = current.some((event) => years(today - toDay(event.timestamp)) <= PROFICIENCY.recentYears)
  return { entity_id: employeeId, skills, low_data: skills.length < PROFICIENCY.lowDataSkills || !recent }
}

/** The latest validate or reject per skill (by date, then external_id). */
function latestFeedback(
  events: readonly EventInput[],
): Map<string, { action: 'validate' | 'reject'; date: string }> {
  const latest = new Map<string, { action: 'validate' | 'reject'; date: string; id: string }>()
  for (const event of events) {
    if (event.event_type !== 'skill_profile_feedback') continue
    const skillId = event.content.skill_id as string
    const known = latest.get(skillId)
    if (
      !known ||
      event.timestamp > known.date ||
      (event.timestamp === known.date && event.external_id > known.id)
    ) {
      latest.set(skillId, {
        action: event.content.action as 'validate' | 'reject',
        date: event.timestamp,
        id: event.external_id,
      })
    }
  }
  return latest
}

/** Days covered by the union of the evidence periods (up to today). */
function coveredDays(items: readonly Evidence[], today: number): number {
  const periods = items
    .filter((item) => item.period)
    .map((item) => {
      const period = item.period as { start: string; end: string | null }
      return [toDay(period.start), Math.min(today, period.end === null ? today : toDay(period.end))] as const
    })
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0])
  let total = 0
  let open = -Infinity
  let close = -Infinity
  for (const [start, end] of periods) {
    if (start > close) {
      if (close > open) total += close - open
      open = start
      close = end
    } else close = Math.max(close, end)
  }
  if (close > open) total += close - open
  return total
}

const round = (value: number) => Math.round(value * 10_000) / 10_000
