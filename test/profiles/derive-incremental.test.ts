import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deriveProfiles } from '../../src/profiles/derive.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { eventRow, ingestRows } from '../helpers/ingest-rows.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
let tenant: OpenTenant
const ingest = (entity: string, rows: unknown[]) => ingestRows(tenant, temp.dir, entity, rows)
const event = eventRow
const vacancy = (description: string) => ({
  external_id: 'vac-1',
  title: 'Data Engineer',
  description,
  status: 'active',
  job_id: 'job-de',
})
const skillsOf = async (entityType: string, id: string) =>
  tenant.database.all<{ skill_id: string; score: number; evidence: string }>(
    `SELECT skill_id, score, evidence::VARCHAR AS evidence FROM profile_skills
     WHERE entity_type = $1 AND entity_id = $2 ORDER BY skill_id`,
    [entityType, id],
  )
const AS_OF = '2026-06-30'

beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'))
  await ingest('jobs', [
    {
      external_id: 'job-de',
      title: 'Data Engineer',
      description: 'Builds pipelines in Python and Apache Airflow on Kubernetes.',
    },
  ])
  await ingest('courses', [
    { external_id: 'c-k8s', title: 'Kubernetes fundamentals', description: 'Containers with Docker.' },
  ])
  await ingest('vacancies', [vacancy('Pipelines in Python.')])
  await ingest('employees', [{ external_id: 'eve' }, { external_id: 'fay' }])
  await ingest('skill_events', [
    event('fay', 'f1', 'project', '2024-05-01', { name: 'Reports', description: 'Dashboards in Power BI.' }),
  ])
  await deriveProfiles({ tenant, asOf: AS_OF })
})
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

describe('incremental derivation', () => {
  it('gives a new event the skills of a job and a course derived in an earlier run', async () => {
    await ingest('skill_events', [
      event('eve', 'e1', 'working_history', '2023-01-01', { job_id: 'job-de', start_date: '2023-01-01' }),
      event('eve', 'e2', 'learning', '2024-03-01', { course_id: 'c-k8s' }),
    ])
    const result = await deriveProfiles({ tenant, asOf: AS_OF })
    expect(result.vendors[0]?.recomputed).toMatchObject({ employees: 1, jobs: 0, courses: 0 })
    const skills = await skillsOf('employee', 'eve')
    const jobSkills = (await skillsOf('job', 'job-de')).map((skill) => skill.skill_id)
    expect(jobSkills).toEqual(expect.arrayContaining(['skl-python', 'skl-kubernetes']))
    expect(skills.map((skill) => skill.skill_id)).toEqual(expect.arrayContaining(jobSkills))
    // Kubernetes: from the job (e1) and from the course (e2).
    const kubernetes = skills.find((skill) => skill.skill_id === 'skl-kubernetes')
    expect(
      JSON.parse(kubernetes?.evidence ?? '[]').map((item: { external_id: string }) => item.external_id),
    ).toEqual(['e1', 'e2'])
    // What the incremental run stored is what a full run computes: nothing left to change.
    const full = await deriveProfiles({ tenant, asOf: AS_OF, full: true })
    expect(full.vendors[0]?.changed).toEqual({})
  })

  it('derives a changed vacancy on the stored profile of a job that did not change', async () => {
    await ingest('vacancies', [vacancy('Pipelines in Python, reporting in Power BI.')])
    const result = await deriveProfiles({ tenant, asOf: AS_OF })
    expect(result.vendors[0]?.recomputed).toMatchObject({ vacancies: 1, jobs: 0 })
    const skills = (await skillsOf('vacancy', 'vac-1')).map((skill) => skill.skill_id)
    expect(skills).toEqual(expect.arrayContaining(['skl-python', 'skl-kubernetes', 'skl-power-bi']))
    const full = await deriveProfiles({ tenant, asOf: AS_OF, full: true })
    expect(full.vendors[0]?.changed).toEqual({})
  })

  it('reads every event once and reports no workers when it derives on the calling thread', async () => {
    await ingest('skill_events', [
      event('fay', 'f2', 'feedback', '2025-01-01', { text: 'Great SQL reporting.', rating: 5 }),
    ])
    const result = await deriveProfiles({ tenant, asOf: AS_OF })
    const text = await tenant.database.one<{ chars: number }>(
      "SELECT sum(length(content::VARCHAR)) AS chars FROM skill_events WHERE employee_id = 'fay'",
    )
    expect(result.text_bytes).toBe(text?.chars)
    expect(result.vendors[0]?.workers).toEqual([])
  })

  it('keeps one row per profile and skill through changed, unchanged and full runs', async () => {
    await ingest('skill_events', [
      event('eve', 'e3', 'project', '2025-02-01', {
        name: 'Lake',
        description: 'Python and Kubernetes again.',
      }),
    ])
    await deriveProfiles({ tenant, asOf: AS_OF })
    await deriveProfiles({ tenant, asOf: AS_OF })
    await deriveProfiles({ tenant, asOf: AS_OF, full: true })
    const rows = await tenant.database.one<{ rows: number; keys: number }>(
      `SELECT count(*)::INTEGER AS rows,
              count(DISTINCT (entity_type, entity_id, external_vendor, skill_id))::INTEGER AS keys
       FROM profile_skills`,
    )
    expect(rows?.rows).toBeGreaterThan(5)
    expect(rows?.keys).toBe(rows?.rows)
  })
})
