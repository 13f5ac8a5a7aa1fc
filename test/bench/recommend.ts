import { join } from 'node:path'
import { skillGapDetail } from '../../src/analytics/skill-gap.js'
import { courseIndex } from '../../src/recommend/course-index.js'
import { recommendCourses } from '../../src/recommend/recommend-courses.js'
import { relatedSkills } from '../../src/recommend/related-skills.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant, type OpenTenant, withTenant } from '../../src/tenants/tenant-service.js'
import { SeededRandom } from '../../src/util/seeded-random.js'
import type { BenchResult } from './bench-result.js'
import { generate } from './match.js'
import { measure, scaled, scratchDir } from './measure.js'

/**
 * `npm run bench -- recommend`: course recommendations and related skills on the tenant of the
 * match bench (100,000 employees, 10,000 jobs, 20,000 vacancies; BENCH_SCALE scales them) with
 * 2,000 courses, each course teaching the skills of one job at its levels.
 *
 * - Ours: `recommendCourses` for 200 sampled employee and vacancy pairs as the server answers
 *   them (a data version given: the course index is kept), median and p95, after the index's
 *   first build (timed apart); `relatedSkills` for 50 sampled skills, first (counted in DuckDB)
 *   and again (kept per state of the profiles).
 * - Reference: the skill gap of 4.5 for the same pairs by its SQL path (`skillGapDetail` without a
 *   data version), the read a recommendation starts from. The ratio is ours over it.
 */
export async function benchRecommend(): Promise<BenchResult> {
  const scratch = scratchDir('recommend')
  const counts = { jobs: scaled(10_000), employees: scaled(100_000), vacancies: scaled(20_000) }
  const courses = Math.min(counts.jobs, scaled(2_000))
  try {
    const dataDir = join(scratch.dir, 'data')
    await createTenant({ dataDir, name: 'bench', region: 'eu', initialise: initialiseTenant })
    return await withTenant(dataDir, 'bench', async (tenant) => {
      console.log(`  … generating ${counts.employees} employees and ${courses} courses`)
      const rows = await generate(tenant, counts)
      await addCourses(tenant, courses)
      const random = new SeededRandom(20_261_202)
      const pairs = Array.from({ length: 200 }, () => ({
        employee: `emp-${String(random.int(counts.employees)).padStart(6, '0')}`,
        vacancy: `vac-${String(random.int(counts.vacancies)).padStart(6, '0')}`,
      }))
      const served = Object.assign(Object.create(tenant) as OpenTenant, { dataVersion: 'bench-1' })
      const build = await measure(() => courseIndex(tenant.database, 'vendor_default', 'bench-1'))
      const ours: number[] = []
      const reference: number[] = []
      let recommended = 0
      for (const pair of pairs) {
        const one = await measure(() =>
          recommendCourses(served, { employee_id: pair.employee, vacancy_id: pair.vacancy }),
        )
        ours.push(one.seconds * 1000)
        recommended += one.result.courses.length
        const gap = await measure(() => skillGapDetail(tenant, pair.employee, pair.vacancy))
        reference.push(gap.seconds * 1000)
      }
      const skills = await tenant.database.all<{ skill_id: string }>(
        `SELECT skill_id FROM profile_skills WHERE entity_type = 'employee' GROUP BY skill_id ORDER BY hash(skill_id) LIMIT 50`,
      )
      const relatedFirst: number[] = []
      const relatedAgain: number[] = []
      for (const { skill_id } of skills) {
        relatedFirst.push((await measure(() => relatedSkills(served, { skill_id }))).seconds * 1000)
        relatedAgain.push((await measure(() => relatedSkills(served, { skill_id }))).seconds * 1000)
      }
      const figures: Record<string, number | string> = {
        ...counts,
        courses,
        profile_rows: rows,
        course_index_build_ms: round(build.seconds * 1000),
        recommend_median_ms: round(quantile(ours, 0.5)),
        recommend_p95_ms: round(quantile(ours, 0.95)),
        recommended_courses_per_answer: round(recommended / pairs.length),
        reference_gap_sql_median_ms: round(quantile(reference, 0.5)),
        related_first_median_ms: round(quantile(relatedFirst, 0.5)),
        related_kept_median_ms: round(quantile(relatedAgain, 0.5)),
      }
      return {
        name: 'recommend',
        figures,
        ratios: { recommend_over_gap_sql_median: round(quantile(ours, 0.5) / quantile(reference, 0.5)) },
      }
    })
  } finally {
    scratch.cleanup()
  }
}

/** `count` courses: course i teaches the skills of job i at the job's levels. */
async function addCourses(tenant: OpenTenant, count: number): Promise<void> {
  await tenant.database.run(
    `INSERT INTO courses SELECT printf('crs-%06d', i), json_object('external_id', printf('crs-%06d', i), 'title', 'Course ' || i), 'h', TIMESTAMP '2026-01-01', i FROM range(0, $1) t(i)`,
    [count],
  )
  await tenant.database.run(
    `INSERT INTO profile_skills
       SELECT 'course', replace(entity_id, 'job-', 'crs-'), external_vendor, skill_id, validation_state, score,
              proficiency_float, proficiency_level, governed_proficiency_level, NULL, NULL, NULL, NULL, '[]'
         FROM profile_skills WHERE entity_type = 'job' AND entity_id < printf('job-%06d', $1::INTEGER)`,
    [count],
  )
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number
}
const round = (value: number) => Math.round(value * 1000) / 1000
