import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { textTable } from '../../src/cli/text-table.js'
import { recommendCoursesForGap } from '../../src/operations/recommend-operations.js'
import type { CourseRecommendationResponse } from '../../src/schemas/recommendations.js'
import { VENDORS } from '../../src/schemas/vendors.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class RecommendCourses extends SkillhouseCommand {
  static override summary = "Courses that close an employee's skill gap (a skillhouse extension)"
  static override description =
    "Measures the employee's gap to a vacancy, a job or a list of skills (the rule of section 4.5), weighs each skill of it (critical counts double, each level short once), and lists the tenant's courses in a greedy sequence: first the course that closes most of the gap's weight, then the one that closes most of what is left. A course covers a skill when its profile holds it at the level needed, and earns partial credit below. For each course: the gap skills it covers and those still open after it. docs/recommendations.md explains the scores."
  static override examples = [
    '<%= config.bin %> recommend courses --employee emp-10004 --vacancy vac-0001',
    '<%= config.bin %> recommend courses --employee emp-10004 --skill skl-python --skill skl-sql --json',
  ]
  static override fieldFlags = {
    employee_id: 'employee',
    vacancy_id: 'vacancy',
    job_id: 'job',
    skill_id: 'skill',
  }
  static override flags = {
    tenant: tenantFlag,
    employee: Flags.string({ description: 'external_id of the employee', required: true }),
    vacancy: Flags.string({ description: "the gap to this vacancy's profile" }),
    job: Flags.string({ description: "the gap to this job's profile" }),
    skill: Flags.string({ description: 'the gap to these skills (repeatable)', multiple: true }),
    limit: Flags.integer({ description: 'most courses to list (default 5, at most 50)' }),
    'vocab-language': Flags.string({ description: 'language of the skill names (default en_uk)' }),
    'external-vendor': Flags.string({
      description: 'vocabulary vendor of the profiles (default vendor_default)',
      options: [...VENDORS],
    }),
  }

  async run(): Promise<CourseRecommendationResponse> {
    const { flags } = await this.parse(RecommendCourses)
    const answer = await this.runOnTenant(flags, recommendCoursesForGap, {
      employee_id: flags.employee,
      vacancy_id: flags.vacancy,
      job_id: flags.job,
      skill_id: flags.skill,
      limit: flags.limit,
      vocab_language: flags['vocab-language'],
      external_vendor: flags['external-vendor'],
    })
    if (answer.note) this.log(answer.note)
    if (answer.courses.length > 0) {
      const percent = (share: number) => `${Math.round(share * 100)}%`
      this.log(
        `${answer.courses.length === 1 ? '1 course closes' : `${answer.courses.length} courses close`} ${percent(answer.closed_share)} of the gap of ${answer.gap.length} skills:`,
      )
      // On a terminal a skill goes by its name (the gap names each); --json keeps the API's ids.
      const names = new Map(answer.gap.map((skill) => [skill.skill_id, skill.skill_name]))
      const rows = answer.courses.map((course) => [
        String(course.rank),
        course.title,
        percent(course.closed_share),
        course.covers
          .map(
            (skill) =>
              (names.get(skill.skill_id) ?? skill.skill_id) +
              (skill.credit < 1 ? ` (${percent(skill.credit)})` : ''),
          )
          .join(', '),
        String(course.leaves.length),
        course.course_id,
      ])
      for (const line of textTable(['#', 'COURSE', 'CLOSED', 'COVERS', 'STILL OPEN', 'ID'], rows, [0, 2, 4]))
        this.log(line)
    }
    return answer
  }
}
