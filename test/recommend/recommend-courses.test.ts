import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { recommendCourses } from '../../src/recommend/recommend-courses.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createAnalyticsTenant } from '../analytics/analytics-tenant.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { createRecommendTenant } from './recommend-tenant.js'

/** The error a call fails with: its status and descriptions. */
async function failureOf(work: Promise<unknown>): Promise<{ status: number; descriptions: string[] }> {
  const error = (await work.then(
    () => undefined,
    (caught: unknown) => caught,
  )) as SkillhouseError | undefined
  if (!error) throw new Error('expected a failure')
  return { status: error.status, descriptions: error.descriptions }
}

describe('recommend courses (real DuckDB tenant)', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  let bare: OpenTenant

  beforeAll(async () => {
    tenant = await createRecommendTenant(join(temp.dir, 'data'))
    bare = await createAnalyticsTenant(join(temp.dir, 'bare-data'), 'bare')
  }, 120_000)
  afterAll(() => {
    tenant.database.close()
    bare.database.close()
    temp.cleanup()
  })

  it('weighs the gap to a vacancy and lists the greedy sequence of courses that closes it, each with what it covers and leaves', async () => {
    const answer = await recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-1' })
    expect(answer.target).toEqual({ kind: 'vacancy', ids: ['vac-1'] })
    expect(answer.employee_has_profile).toBe(true)
    expect(answer.gap.map((skill) => [skill.skill_id, skill.reason, skill.weight])).toEqual([
      ['skl-java', 'below_required_level', 4],
      ['skl-customer-enquiry-handling', 'missing', 2],
      ['skl-project-management', 'missing', 3],
      ['skl-data-analysis', 'missing', 2],
      ['skl-git', 'missing', 2],
    ])
    expect(answer.gap_weight).toBe(13)
    expect(answer.courses.map((course) => [course.course_id, course.gain, course.closed_share])).toEqual([
      ['crs-java-advanced', 6, 0.4615],
      ['crs-projects', 4, 0.7692],
      ['crs-data-git', 2, 0.9231],
    ])
    const projects = answer.courses[1]
    expect(projects?.title).toBe('Running Projects')
    expect(projects?.covers).toEqual([
      { skill_id: 'skl-customer-enquiry-handling', course_level: null, credit: 1 },
      { skill_id: 'skl-project-management', course_level: 2, credit: 0.6667 },
    ])
    expect(projects?.leaves).toEqual(['skl-project-management', 'skl-data-analysis'])
    expect(answer.courses[2]?.leaves).toEqual(['skl-project-management'])
    expect(answer.closed_share).toBe(0.9231)
    expect(answer.note).toBeNull()
  })

  it('keeps to the limit, and never recommends a course whose record is gone', async () => {
    const answer = await recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-1', limit: 1 })
    expect(answer.courses.map((course) => course.course_id)).toEqual(['crs-java-advanced'])
    const all = await recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-1', limit: 50 })
    expect(all.courses.map((course) => course.course_id)).not.toContain('crs-gone')
  })

  it("measures the gap to a job's profile and to named skills, held at any level", async () => {
    const job = await recommendCourses(tenant, { employee_id: 'e-deep-1', job_id: 'job-dev' })
    expect(job.target).toEqual({ kind: 'job', ids: ['job-dev'] })
    expect(job.gap.map((skill) => skill.skill_id)).toEqual(['skl-java', 'skl-git', 'skl-teamwork'])
    // No course teaches teamwork: it stays open after the only course that helps.
    expect(job.courses.map((course) => [course.course_id, course.leaves])).toEqual([
      ['crs-java-advanced', ['skl-teamwork']],
    ])
    const skills = await recommendCourses(tenant, {
      employee_id: 'e-deep-1',
      skill_id: ['skl-java', 'skl-git', 'skl-git'],
    })
    expect(skills.target).toEqual({ kind: 'skills', ids: ['skl-java', 'skl-git'] })
    expect(skills.gap.map((skill) => skill.skill_id)).toEqual(['skl-git'])
    // Both teach git fully: the tie goes to the smaller external_id.
    expect(skills.courses.map((course) => course.course_id)).toEqual(['crs-data-git'])
  })

  it('answers plainly for an employee without a profile, a tenant without courses, a gap no course touches and no gap', async () => {
    const noProfile = await recommendCourses(tenant, { employee_id: 'e-deep-2', vacancy_id: 'vac-1' })
    expect(noProfile.employee_has_profile).toBe(false)
    expect(noProfile.gap).toHaveLength(9)
    expect(noProfile.note).toContain("employee 'e-deep-2' has no skill profile yet")
    const noCourses = await recommendCourses(bare, { employee_id: 'e-deep-1', vacancy_id: 'vac-1' })
    expect(noCourses.courses).toEqual([])
    expect(noCourses.note).toBe('the tenant has no courses: there is no course to recommend')
    const untouched = await recommendCourses(tenant, { employee_id: 'e-deep-1', skill_id: ['skl-kotlin'] })
    expect(untouched.courses).toEqual([])
    expect(untouched.note).toBe('no course of the tenant teaches a skill of the gap')
    const none = await recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-empty' })
    expect(none.gap).toEqual([])
    expect(none.closed_share).toBe(0)
    expect(none.note).toBe("employee 'e-deep-1' holds every skill of the target: no gap to close")
  })

  it('refuses unknown ids with 404 naming them, and a missing or double target with 422 naming the fields', async () => {
    expect(
      await failureOf(recommendCourses(tenant, { employee_id: 'e-nobody', vacancy_id: 'vac-1' })),
    ).toEqual({
      status: 404,
      descriptions: ["employee 'e-nobody' does not exist; create it first"],
    })
    expect(
      (await failureOf(recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-x' })))
        .descriptions,
    ).toEqual(["vacancy 'vac-x' does not exist; create it first"])
    expect(
      (await failureOf(recommendCourses(tenant, { employee_id: 'e-deep-1', job_id: 'job-x' }))).status,
    ).toBe(404)
    expect(
      (
        await failureOf(
          recommendCourses(tenant, { employee_id: 'e-deep-1', skill_id: ['skl-java', 'skl-nope'] }),
        )
      ).descriptions,
    ).toEqual([
      "skill 'skl-nope' does not exist; no skill with this external_id exists in the vendor_default taxonomy",
    ])
    const none = await failureOf(recommendCourses(tenant, { employee_id: 'e-deep-1' }))
    expect(none.status).toBe(422)
    expect(none.descriptions[0]).toMatch(
      /^`vacancy_id`, `job_id`, `skill_id`: name exactly one target.*none was given$/,
    )
    const both = await failureOf(
      recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-1', job_id: 'job-dev' }),
    )
    expect(both.descriptions[0]).toMatch(/several were given$/)
    const limit = await failureOf(
      recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-1', limit: 0 }),
    )
    expect(limit.status).toBe(422)
    expect(limit.descriptions[0]).toMatch(/^`limit` 0: /)
  })
})
