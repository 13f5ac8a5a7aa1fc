import { type GapCandidate, gapSkills } from '../analytics/gap-rule.js'
import { profileGapCandidates } from '../analytics/skill-gap.js'
import { errors } from '../errors/skillhouse-error.js'
import {
  CourseRecommendationOptions,
  type CourseRecommendationResponse,
  type RecommendationGapSkill,
} from '../schemas/recommendations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import type { TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import { listValue } from '../vendor/duckdb.js'
import { courseIndex } from './course-index.js'
import { courseSequence, type GapNeed, gapWeight } from './course-sequence.js'
import { type AnswerVocabulary, answerVocabulary, checkedOptions, rounded } from './recommend-options.js'

/** What the gap is measured against: a vacancy's or a job's profile, or a list of skills. */
type Target =
  | { kind: 'vacancy'; ids: [string] }
  | { kind: 'job'; ids: [string] }
  | { kind: 'skills'; ids: string[] }

/**
 * Courses for an employee's gap (a skillhouse extension, docs/recommendations.md): the gap to a
 * vacancy, a job or a list of skills, by the rule of 4.5 (`gapSkills`), each skill weighted
 * (`gapWeight`), then the greedy sequence of the tenant's courses that closes most of its weight
 * (`courseSequence`), with what each course covers and what is left after it.
 *
 * Exactly one of `vacancy_id`, `job_id` and `skill_id` (422 otherwise). 404 names an unknown
 * employee, vacancy, job or skill. An employee without a profile yet, a tenant without courses, a
 * gap no course touches and an empty gap are answers with a `note`, not errors.
 */
export async function recommendCourses(
  tenant: TaxonomyTenant,
  input: CourseRecommendationOptions & AnswerVocabulary,
): Promise<CourseRecommendationResponse> {
  const { external_vendor, vocab_language, ...fields } = input
  const options = checkedOptions(CourseRecommendationOptions, withoutUndefined(fields))
  const { vendor, language } = await answerVocabulary(tenant, { external_vendor, vocab_language })
  const database = tenant.database
  // The employee before the target: a request for nobody is a 404 whatever else it asks.
  const hasProfile = await requireEmployee(database, options.employee_id, vendor)
  const target = targetOf(options)
  await requireTarget(database, target, vendor)
  const gap = gapSkills(await candidatesOf(database, options.employee_id, target, vendor))
  const names = gap.length
    ? await SkillNames.load(
        database,
        vendor,
        gap.map((skill) => skill.skill_id),
      )
    : undefined
  const gapOut: RecommendationGapSkill[] = gap.map((skill) => ({
    skill_id: skill.skill_id,
    skill_name: names?.name(skill.skill_id, language) ?? skill.skill_id,
    reason: skill.reason,
    critical: skill.critical,
    required_level: skill.required_level,
    held_level: skill.held ? skill.held_level : null,
    weight: gapWeight(skill.critical, skill.required_level, skill.held ? skill.held_level : 0),
  }))
  const needs: GapNeed[] = gapOut.map((skill, at) => ({
    skill_id: skill.skill_id,
    weight: skill.weight,
    required_level: skill.required_level,
    held_level: (gap[at] as GapCandidate).held ? skill.held_level : 0,
  }))
  const index = await courseIndex(database, vendor, tenant.dataVersion)
  const steps = courseSequence(
    needs,
    needs.map((need) => index.bySkill.get(need.skill_id) ?? []),
    options.limit,
  )
  const total = needs.reduce((sum, need) => sum + need.weight, 0)
  let closed = 0
  const courses = steps.map((step, at) => {
    closed += step.gain
    return {
      rank: at + 1,
      course_id: index.courseIds[step.course] as string,
      title: index.titles[step.course] as string,
      gain: rounded(step.gain),
      closed_share: rounded(closed / total),
      covers: step.credits.map((credit) => ({
        skill_id: (needs[credit.skill] as GapNeed).skill_id,
        course_level: credit.level,
        credit: rounded(credit.credit),
      })),
      leaves: step.open.map((skill) => (needs[skill] as GapNeed).skill_id),
    }
  })
  return {
    employee_id: options.employee_id,
    target,
    employee_has_profile: hasProfile,
    gap: gapOut,
    gap_weight: rounded(total),
    courses,
    closed_share: total > 0 ? rounded(closed / total) : 0,
    note: noteOf(options.employee_id, hasProfile, gap.length, index.courseIds.length, courses.length),
  }
}

const withoutUndefined = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined))

/** The one target the options name; 422 naming the three fields when they name none or several. */
function targetOf(options: ReturnType<typeof CourseRecommendationOptions.parse>): Target {
  const named = [
    options.vacancy_id !== undefined,
    options.job_id !== undefined,
    options.skill_id !== undefined,
  ].filter(Boolean).length
  if (named !== 1 || options.skill_id?.length === 0) {
    throw errors.unprocessable(
      `\`vacancy_id\`, \`job_id\`, \`skill_id\`: name exactly one target for the gap (a vacancy, a job, or one or more skills); ${named === 0 ? 'none was given' : 'several were given'}`,
    )
  }
  if (options.vacancy_id !== undefined) return { kind: 'vacancy', ids: [options.vacancy_id] }
  if (options.job_id !== undefined) return { kind: 'job', ids: [options.job_id] }
  return { kind: 'skills', ids: [...new Set(options.skill_id)] }
}

/** 404 for an unknown employee; whether the employee has a profile of the vendor. */
async function requireEmployee(
  database: TenantDatabase,
  employeeId: string,
  vendor: ExternalVendor,
): Promise<boolean> {
  const row = await database.one<{ employee: boolean; profile: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM employees WHERE external_id = $1) AS employee,
            EXISTS (SELECT 1 FROM skill_profiles
                     WHERE entity_type = 'employee' AND entity_id = $1 AND external_vendor = $2) AS profile`,
    [employeeId, vendor],
  )
  if (row?.employee !== true) throw errors.notFound('employee', employeeId)
  return row.profile === true
}

/** 404 naming the unknown vacancy or job, or the first skill the vendor's vocabulary lacks. */
async function requireTarget(database: TenantDatabase, target: Target, vendor: ExternalVendor) {
  if (target.kind === 'skills') {
    const known = await database.all<{ external_id: string }>(
      `SELECT external_id FROM skills WHERE external_vendor = $1 AND list_contains($2, external_id)`,
      [vendor, listValue(target.ids)],
    )
    const found = new Set(known.map((row) => row.external_id))
    const unknown = target.ids.find((id) => !found.has(id))
    if (unknown !== undefined)
      throw errors.notFound(
        'skill',
        unknown,
        `no skill with this external_id exists in the ${vendor} taxonomy`,
      )
    return
  }
  // The table is a constant of this module, chosen by the target's kind.
  const table = target.kind === 'vacancy' ? 'vacancies' : 'jobs'
  const row = await database.one<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM ${table} WHERE external_id = $1) AS known`,
    target.ids,
  )
  if (row?.known !== true) throw errors.notFound(target.kind, target.ids[0])
}

/** The target's skills with what the employee holds of each: the inputs of the gap rule. */
function candidatesOf(
  database: TenantDatabase,
  employeeId: string,
  target: Target,
  vendor: ExternalVendor,
): Promise<GapCandidate[]> {
  if (target.kind !== 'skills')
    return profileGapCandidates(database, employeeId, target.kind, target.ids[0], vendor)
  // Skills named without a level: held at any level closes them.
  return database.all<GapCandidate & Record<string, unknown>>(
    `SELECT t.skill_id, false AS critical, 1.0::DOUBLE AS score, NULL::INTEGER AS required_level,
            e.skill_id IS NOT NULL AS held,
            coalesce(e.governed_proficiency_level, e.proficiency_level) AS held_level
       FROM (SELECT unnest($3::VARCHAR[]) AS skill_id) t
       LEFT JOIN profile_skills e
         ON e.entity_type = 'employee' AND e.entity_id = $1
        AND e.external_vendor = $2 AND e.skill_id = t.skill_id`,
    [employeeId, vendor, listValue(target.ids)],
  )
}

/** The sentence of an answer without a course to take, or without a profile to measure; else null. */
function noteOf(
  employeeId: string,
  hasProfile: boolean,
  gapSize: number,
  courseCount: number,
  recommended: number,
): string | null {
  const notes: string[] = []
  if (!hasProfile)
    notes.push(
      `employee '${employeeId}' has no skill profile yet (derive profiles after their skill events arrive): every skill of the target counts as missing`,
    )
  if (gapSize === 0) notes.push(`employee '${employeeId}' holds every skill of the target: no gap to close`)
  else if (courseCount === 0) notes.push('the tenant has no courses: there is no course to recommend')
  else if (recommended === 0) notes.push('no course of the tenant teaches a skill of the gap')
  return notes.length ? notes.join('; ') : null
}
