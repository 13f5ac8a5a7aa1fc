import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { CLUSTER_BONUS, relatedSkills } from '../../src/recommend/related-skills.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { insertEmployeeSkills } from './recommend-tenant.js'

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, at) => `e${from + at}`)

/**
 * 20 employees with profiles: Python e1–e10, SQL e1–e8 and e11, Git e9 and e12–e20, Docker
 * e1–e6 and e12. Python and SQL share a cluster of the default vocabulary (programming
 * languages); Git and Docker do not.
 */
const HELD = {
  'skl-python': range(1, 10),
  'skl-sql': [...range(1, 8), 'e11'],
  'skl-git': ['e9', ...range(12, 20)],
  'skl-docker': [...range(1, 6), 'e12'],
}

const npmi = (both: number, a: number, b: number, total: number) => {
  const pab = both / total
  return Math.log(pab / ((a / total) * (b / total))) / -Math.log(pab)
}

describe('skill related (real DuckDB tenant)', () => {
  const temp = tempDir()
  let tenant: OpenTenant

  beforeAll(async () => {
    tenant = await createOpenTenant(temp.dir)
    await insertEmployeeSkills(tenant, HELD)
  }, 60_000)
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('ranks skills held together by NPMI, adds the bonus of a shared cluster, and labels where each comes from', async () => {
    const answer = await relatedSkills(tenant, { skill_id: 'skl-python', limit: 4 })
    expect(answer).toMatchObject({
      skill_id: 'skl-python',
      skill_name: 'Python',
      holders: 10,
      employees: 20,
      min_support: 3,
    })
    const [sql, docker, ...cluster] = answer.related
    expect(sql).toMatchObject({ skill_id: 'skl-sql', sources: ['profiles', 'taxonomy'], together: 8 })
    expect(sql?.npmi).toBeCloseTo(npmi(8, 10, 9, 20), 4)
    expect(sql?.score).toBeCloseTo(npmi(8, 10, 9, 20) + CLUSTER_BONUS, 4)
    expect(docker).toMatchObject({ skill_id: 'skl-docker', sources: ['profiles'], together: 6 })
    expect(docker?.npmi).toBeCloseTo(npmi(6, 10, 7, 20), 4)
    // Then the cluster's other skills, held by nobody here: the bonus alone, by external_id.
    for (const skill of cluster)
      expect(skill).toMatchObject({ sources: ['taxonomy'], npmi: null, score: CLUSTER_BONUS })
    expect(cluster.map((skill) => skill.skill_id)).toEqual(['skl-abap', 'skl-c'])
  })

  it('leaves out a pair held together by fewer employees than the minimum support, and a negative association', async () => {
    const answer = await relatedSkills(tenant, { skill_id: 'skl-python', limit: 100, min_support: 1 })
    // Git goes with Python once in 20 employees, less often than their popularity predicts.
    expect(answer.related.map((skill) => skill.skill_id)).not.toContain('skl-git')
    const strict = await relatedSkills(tenant, { skill_id: 'skl-python', limit: 100, min_support: 7 })
    expect(strict.related.find((skill) => skill.skill_id === 'skl-docker')).toBeUndefined()
    expect(strict.related[0]?.skill_id).toBe('skl-sql')
  })

  it('follows the current profiles: a new profile changes the answer at once', async () => {
    const before = await relatedSkills(tenant, { skill_id: 'skl-git', limit: 3 })
    expect(before.related.map((skill) => skill.skill_id)).not.toContain('skl-kotlin')
    await insertEmployeeSkills(tenant, {
      'skl-git': ['e21', 'e22', 'e23'],
      'skl-kotlin': ['e21', 'e22', 'e23'],
    })
    const after = await relatedSkills(tenant, { skill_id: 'skl-git', limit: 3 })
    expect(after.employees).toBe(23)
    expect(after.related[0]).toMatchObject({ skill_id: 'skl-kotlin', together: 3, sources: ['profiles'] })
  })

  it('refuses a skill the vocabulary lacks with 404, and a bad limit with 422 naming it', async () => {
    const unknown = (await relatedSkills(tenant, { skill_id: 'skl-nope' }).catch(
      (error: unknown) => error,
    )) as SkillhouseError
    expect(unknown.status).toBe(404)
    expect(unknown.descriptions).toEqual([
      "skill 'skl-nope' does not exist; no skill with this external_id exists in the vendor_default taxonomy",
    ])
    const limit = (await relatedSkills(tenant, { skill_id: 'skl-git', limit: 'many' }).catch(
      (error: unknown) => error,
    )) as SkillhouseError
    expect(limit.status).toBe(422)
    expect(limit.descriptions[0]).toMatch(/^`limit` "many": /)
  })
})
