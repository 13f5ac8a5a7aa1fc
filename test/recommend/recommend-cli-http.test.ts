import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from '../../src/openapi/openapi-document.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import { recommendCourses } from '../../src/recommend/recommend-courses.js'
import type { CourseRecommendationResponse, RecommendedCourse } from '../../src/schemas/recommendations.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'
import { call, startTestServer, tokenFor } from '../server/server-helpers.js'
import {
  COURSE_PROFILES,
  createRecommendTenant,
  insertCourseProfiles,
  insertEmployeeSkills,
} from './recommend-tenant.js'

const text = async (args: string[]) => {
  const result = await runCli(args)
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) }
}

describe('recommend courses and skill related: the built CLI and the server', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  const common = ['--data-dir', dataDir, '--tenant', 'acme']

  beforeAll(async () => {
    const tenant = await createRecommendTenant(dataDir)
    // The worker of a server derives a tenant when it opens it: derived now, it finds nothing to
    // change. The hand-made course profiles go in after, as a derivation would have left them.
    await deriveProfiles({ tenant })
    await tenant.database.run(`DELETE FROM profile_skills WHERE entity_type = 'course'`)
    await tenant.database.run(`DELETE FROM skill_profiles WHERE entity_type = 'course'`)
    await insertCourseProfiles(tenant, COURSE_PROFILES)
    await insertEmployeeSkills(tenant, {
      'skl-python': ['e-a', 'e-a1', 'e-a2-1', 'e-a2-2'],
      'skl-sql': ['e-a', 'e-a1', 'e-a2-1'],
    })
    const answer = await recommendCourses(tenant, { employee_id: 'e-deep-1', vacancy_id: 'vac-1' })
    expect(answer.courses.length).toBeGreaterThan(0)
    tenant.database.close()
  }, 240_000)
  afterAll(() => temp.cleanup())

  it('prints the sequence for a person, and names flags in its errors', async () => {
    const table = await text([
      'recommend',
      'courses',
      '--employee',
      'e-deep-1',
      '--vacancy',
      'vac-1',
      ...common,
    ])
    expect(table.exitCode, table.stderr).toBe(0)
    const json = await text([
      'recommend',
      'courses',
      '--employee',
      'e-deep-1',
      '--vacancy',
      'vac-1',
      '--json',
      ...common,
    ])
    const answer = JSON.parse(json.stdout) as CourseRecommendationResponse
    const first = answer.courses[0] as RecommendedCourse
    const lines = table.stdout.split('\n')
    expect(lines[0]).toBe(
      `${answer.courses.length === 1 ? '1 course closes' : `${answer.courses.length} courses close`} ${Math.round(answer.closed_share * 100)}% of the gap of ${answer.gap.length} skills:`,
    )
    expect(lines[1]).toMatch(/^# +COURSE +CLOSED +COVERS +STILL OPEN +ID$/)
    expect(lines[2]).toMatch(new RegExp(`^1  ${first.title} .* ${first.leaves.length}  ${first.course_id}$`))
    const none = await text(['recommend', 'courses', '--employee', 'e-deep-1', ...common])
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('--vacancy, --job, --skill: name exactly one target')
    const unknown = await text(['recommend', 'courses', '--employee', 'e-x', '--job', 'job-dev', ...common])
    expect(unknown.stderr).toContain("employee 'e-x' does not exist")
    const related = await text(['skill', 'related', 'skl-nope', ...common])
    expect(related.stderr).toContain("skill 'skl-nope' does not exist")
    const limit = await text(['skill', 'related', 'skl-python', '--min-support', '0', ...common])
    expect(limit.stderr).toContain('--min-support 0:')
  })

  it('answers over HTTP with the bytes of `--json`, documented as extensions', async () => {
    const json = ['--json', ...common]
    const courses = await text([
      'recommend',
      'courses',
      '--employee',
      'e-deep-1',
      '--vacancy',
      'vac-1',
      '--vocab-language',
      'nl',
      ...json,
    ])
    const skills = await text([
      'recommend',
      'courses',
      '--employee',
      'e-deep-1',
      '--skill',
      'skl-git',
      '--skill',
      'skl-java',
      ...json,
    ])
    const related = await text([
      'skill',
      'related',
      'skl-python',
      '--min-support',
      '2',
      '--limit',
      '3',
      ...json,
    ])
    for (const result of [courses, skills, related]) expect(result.exitCode, result.stderr).toBe(0)

    const server = await startTestServer(dataDir)
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${server.url}/acme/eu`
      const answers = [
        await call(`${base}/employees/e-deep-1/course_recommendations?vacancy_id=vac-1&vocab_language=nl`, {
          token,
        }),
        await call(`${base}/employees/e-deep-1/course_recommendations?skill_id=skl-git&skill_id=skl-java`, {
          token,
        }),
        await call(`${base}/taxonomy/skills/skl-python/related?min_support=2&limit=3`, { token }),
      ]
      ;[courses, skills, related].forEach((cli, at) => {
        const http = answers[at]
        expect(http?.status).toBe(200)
        // oclif indents the --json of a returned result by 2: the same JSON, the same order of keys.
        expect(cli.stdout).toBe(JSON.stringify(JSON.parse(http?.text ?? ''), null, 2))
        expect(http?.text).toBe(JSON.stringify(JSON.parse(cli.stdout)))
      })
      expect((answers[2]?.json as { related: unknown[] } | undefined)?.related).toHaveLength(3)
      const unknown = await call(`${base}/employees/e-x/course_recommendations?job_id=job-dev`, { token })
      expect(unknown.status).toBe(404)
      expect(unknown.json).toEqual([
        { title: '404 Not Found', description: "employee 'e-x' does not exist; create it first" },
      ])
      const misspelt = await call(`${base}/taxonomy/skills/skl-python/related?limt=3`, { token })
      expect(misspelt.status).toBe(422)
    } finally {
      await server.close()
    }
    const document = openApiDocument({ examples: undefined })
    for (const path of [
      '/employees/{employee_external_id}/course_recommendations',
      '/taxonomy/skills/{skill_id}/related',
    ]) {
      const operation = document.paths?.[path]?.get as Record<string, unknown> | undefined
      expect(operation?.['x-skillhouse-extension']).toBe(true)
      expect(operation?.tags).toEqual(['Extensions'])
    }
  })
})
