import { join } from 'node:path'
import { runDemo } from '../../src/pipeline/demo-tenant.js'
import { courseIndex } from '../../src/recommend/course-index.js'
import { courseCredit, type GapNeed } from '../../src/recommend/course-sequence.js'
import { recommendCourses } from '../../src/recommend/recommend-courses.js'
import { relatedSkills } from '../../src/recommend/related-skills.js'
import type { CourseRecommendationResponse } from '../../src/schemas/recommendations.js'
import { type OpenTenant, withTenant } from '../../src/tenants/tenant-service.js'
import { SeededRandom } from '../../src/util/seeded-random.js'
import { tempDir } from '../helpers/temp-tenant.js'
import type { EvaluationRow } from './evaluation-table.js'

/** The demo's "today", as the recorded examples run it. */
const DEMO_AS_OF = '2026-11-20'
/** Employees whose profiles lend a held-out skill, at most. */
const HELD_OUT = 1_000
/** Employee and vacancy pairs whose gaps the course recommendations are measured on, at most. */
const PAIRS = 300
const TOP = 10

/**
 * `npm run eval`'s rows of the recommendations, on the demo tenant:
 *
 * - Related skills by held-out recall: one skill of each employee's profile (with three skills or
 *   more) is removed from the profile table; the related lists (top 10) of the employee's other
 *   skills are summed by score, skills the employee holds left out, and the rank of the hidden
 *   skill read: RP@10 is then recall@10 (one relevant skill an item), with MRR. Beside it in the
 *   same run, the popularity baseline: every skill by how many employees hold it.
 * - Course recommendations by the share of the gap's weight the top 3 courses close (column R),
 *   for employee and vacancy pairs, beside 3 random courses and the 3 courses with the largest
 *   profiles (the popularity of a course, having no enrolments), each scored by the same rule.
 */
export async function recommendationRows(): Promise<EvaluationRow[]> {
  const scratch = tempDir('skillhouse-eval-recommend-')
  try {
    const dataDir = join(scratch.dir, 'data')
    await runDemo({ dataDir, out: join(scratch.dir, 'out'), asOf: DEMO_AS_OF })
    return await withTenant(dataDir, 'demo', async (tenant) => [
      // Courses first: the held-out run removes profile rows.
      ...(await courseCoverageRows(tenant)),
      ...(await heldOutRows(tenant)),
    ])
  } finally {
    scratch.cleanup()
  }
}

async function heldOutRows(tenant: OpenTenant): Promise<EvaluationRow[]> {
  const rows = await tenant.database.all<{ entity_id: string; skills: string[] }>(
    `SELECT entity_id, list(skill_id ORDER BY skill_id) AS skills FROM profile_skills
      WHERE entity_type = 'employee' AND external_vendor = 'vendor_default'
      GROUP BY entity_id HAVING count(*) >= 3 ORDER BY entity_id LIMIT ${HELD_OUT}`,
  )
  const random = new SeededRandom(20_261_202)
  const hidden = rows.map((row) => {
    const skills = [...row.skills]
    const [held] = skills.splice(random.int(skills.length), 1)
    return { employee: row.entity_id, hidden: held as string, others: skills }
  })
  for (const item of hidden) {
    await tenant.database.run(
      `DELETE FROM profile_skills WHERE entity_type = 'employee' AND entity_id = $1 AND skill_id = $2`,
      [item.employee, item.hidden],
    )
  }
  const popular = (
    await tenant.database.all<{ skill_id: string }>(
      `SELECT skill_id FROM profile_skills WHERE entity_type = 'employee' AND external_vendor = 'vendor_default'
        GROUP BY skill_id ORDER BY count(*) DESC, skill_id`,
    )
  ).map((row) => row.skill_id)
  const lists = new Map<string, { skill_id: string; score: number }[]>()
  const relatedOf = async (skill: string) => {
    let list = lists.get(skill)
    if (!list) {
      list = (await relatedSkills(tenant, { skill_id: skill, limit: TOP })).related
      lists.set(skill, list)
    }
    return list
  }
  const ours: number[] = []
  const baseline: number[] = []
  for (const item of hidden) {
    const held = new Set(item.others)
    const scores = new Map<string, number>()
    for (const skill of item.others)
      for (const related of await relatedOf(skill))
        scores.set(related.skill_id, (scores.get(related.skill_id) ?? 0) + related.score)
    const ranked = [...scores]
      .filter(([skill]) => !held.has(skill))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([skill]) => skill)
    ours.push(ranked.indexOf(item.hidden) + 1)
    baseline.push(popular.filter((skill) => !held.has(skill)).indexOf(item.hidden) + 1)
  }
  return [rankRow('related, demo', 'npmi+cluster', ours), rankRow('related, demo', 'popularity', baseline)]
}

/** Recall@10 and MRR of the ranks of one hidden skill an item (0: not ranked at all). */
function rankRow(set: string, system: string, ranks: readonly number[]): EvaluationRow {
  const found = (rank: number) => rank > 0 && rank <= TOP
  return {
    set,
    system,
    items: ranks.length,
    rp_at_10: pct(ranks.filter(found).length / ranks.length),
    mrr: pct(ranks.reduce((sum, rank) => sum + (rank > 0 ? 1 / rank : 0), 0) / ranks.length),
  }
}

async function courseCoverageRows(tenant: OpenTenant): Promise<EvaluationRow[]> {
  const employees = await tenant.database.all<{ id: string }>(
    `SELECT external_id AS id FROM employees ORDER BY external_id`,
  )
  const vacancies = await tenant.database.all<{ id: string }>(
    `SELECT external_id AS id FROM vacancies ORDER BY external_id`,
  )
  const index = await courseIndex(tenant.database, 'vendor_default', undefined)
  const size = new Map<number, number>()
  for (const teaching of index.bySkill.values())
    for (const { course } of teaching) size.set(course, (size.get(course) ?? 0) + 1)
  const largest = [...size]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 3)
    .map(([course]) => course)
  const random = new SeededRandom(20_261_203)
  const shares = { greedy: [] as number[], random: [] as number[], largest: [] as number[] }
  for (let pair = 0; pair < Math.min(PAIRS, employees.length); pair++) {
    const employee = (employees[pair] as { id: string }).id
    const vacancy = (vacancies[random.int(vacancies.length)] as { id: string }).id
    const answer = await recommendCourses(tenant, { employee_id: employee, vacancy_id: vacancy, limit: 3 })
    if (answer.gap.length === 0) continue
    shares.greedy.push(answer.closed_share)
    const randomThree = new Set<number>()
    while (randomThree.size < Math.min(3, index.courseIds.length))
      randomThree.add(random.int(index.courseIds.length))
    shares.random.push(closedShare(answer, index.bySkill, [...randomThree]))
    shares.largest.push(closedShare(answer, index.bySkill, largest))
  }
  return Object.entries(shares).map(([system, values]) => ({
    set: 'courses, demo',
    system: `${system} top 3`,
    items: values.length,
    recall: pct(values.reduce((sum, value) => sum + value, 0) / values.length),
  }))
}

/** The share of the gap's weight a set of courses closes, by the rule the recommendations use. */
function closedShare(
  answer: CourseRecommendationResponse,
  bySkill: ReadonlyMap<string, readonly { course: number; level: number | null }[]>,
  courses: readonly number[],
): number {
  const taken = new Set(courses)
  let closed = 0
  for (const skill of answer.gap) {
    const need: GapNeed = {
      skill_id: skill.skill_id,
      weight: skill.weight,
      required_level: skill.required_level,
      held_level: skill.reason === 'missing' ? 0 : skill.held_level,
    }
    let best = 0
    for (const { course, level } of bySkill.get(skill.skill_id) ?? [])
      if (taken.has(course)) best = Math.max(best, courseCredit(need, level))
    closed += skill.weight * best
  }
  return answer.gap_weight > 0 ? closed / answer.gap_weight : 0
}

const pct = (share: number) => Math.round(share * 1000) / 10
