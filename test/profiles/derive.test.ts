import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CloudEvent } from 'cloudevents'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readEvents } from '../../src/events/outbox.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import { readSkillProfile } from '../../src/profiles/read-profile.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { ingestRows } from '../helpers/ingest-rows.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
let tenant: OpenTenant
const ingest = (entity: string, rows: unknown[], options: { endActiveWorkingHistory?: boolean } = {}) =>
  ingestRows(tenant, temp.dir, entity, rows, options)
const event = (
  employee: string,
  id: string,
  type: string,
  timestamp: string,
  content: Record<string, unknown>,
) => ({
  employee_id: employee,
  external_id: id,
  event_type: type,
  timestamp,
  content,
  source: 'test',
})
const profile = (
  owner: 'employee' | 'job' | 'course',
  id: string,
  vocab_language: 'en_uk' | 'nl' = 'en_uk',
) => readSkillProfile(tenant, owner, id, { external_vendor: 'vendor_default', vocab_language })
const skillIds = async (owner: 'employee' | 'job' | 'course', id: string) =>
  (await profile(owner, id)).skills.map((skill) => skill.skill_id)
const eventsAfter = async (seq: number) =>
  (await readEvents(tenant.database, { sinceSeq: seq })) as unknown as {
    type: string
    source: string
    data: { external_id: string }
  }[]
const lastSeq = async () =>
  (await tenant.database.one<{ seq: number }>('SELECT coalesce(max(seq), 0) AS seq FROM outbox'))?.seq ?? 0

beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'))
  await ingest('job_families', [
    {
      external_id: 'jf-data',
      name: 'Data',
      description: 'Data engineering and analytics.',
      skills: [{ skill_id: 'skl-sql', proficiency_level: 4, critical: true }],
    },
  ])
  await ingest('jobs', [
    {
      external_id: 'job-de',
      title: 'Data Engineer',
      description: 'Builds pipelines in Python and Apache Airflow on Kubernetes.',
      job_family_id: 'jf-data',
    },
    {
      external_id: 'job-an',
      title: 'Data Analyst',
      description: 'Reports in Power BI and SQL.',
      job_family_id: 'jf-data',
    },
  ])
  await ingest('courses', [
    {
      external_id: 'c-k8s',
      title: 'Kubernetes fundamentals',
      description: 'Deploying containers with Kubernetes and Docker.',
    },
    { external_id: 'c-none', title: 'Welcome day', description: 'Meet the team and visit the office.' },
  ])
  await ingest('employees', [
    { external_id: 'ann' },
    { external_id: 'bob' },
    { external_id: 'cat' },
    { external_id: 'dan' },
  ])
  await ingest('skill_events', [
    event('ann', 'a1', 'working_history', '2020-01-01', {
      job_title: 'Data Engineer',
      start_date: '2020-01-01',
      company: 'Acme',
      job_description: 'Python and SQL pipelines on Kubernetes.',
    }),
    event('ann', 'a2', 'learning', '2021-03-01', { course_id: 'c-k8s' }),
    event('ann', 'a3', 'skill_notes', '2022-01-01', { skill_id: 'skl-terraform', proficiency_level: 4 }),
    event('ann', 'a4', 'certificate', '2027-01-01', {
      name: 'PRINCE2 Foundation',
      issuer: 'Axelos',
      issue_date: '2027-01-01',
    }),
    event('bob', 'b1', 'project', '2019-05-01', {
      name: 'Churn',
      description: 'Churn model in Python with scikit-learn.',
    }),
    event('bob', 'b2', 'skill_profile_feedback', '2024-01-01', { skill_id: 'skl-python', action: 'reject' }),
    event('cat', 'c1', 'working_history', '2023-01-01', { job_id: 'job-de', start_date: '2023-01-01' }),
    event('cat', 'c2', 'skill_profile_feedback', '2024-02-01', {
      skill_id: 'skl-negotiation',
      action: 'validate',
    }),
  ])
})
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

describe('derivation', () => {
  it('builds an employee profile from every kind of evidence with first and last seen', async () => {
    const result = await deriveProfiles({ tenant, asOf: '2026-06-30' })
    expect(result.vendors[0]?.full).toBe(true)
    const ann = await profile('employee', 'ann')
    const byId = Object.fromEntries(ann.skills.map((skill) => [skill.skill_id, skill]))
    expect(Object.keys(byId)).toEqual(
      expect.arrayContaining(['skl-python', 'skl-sql', 'skl-kubernetes', 'skl-terraform']),
    )
    // An active working history (no end_date) is still held today.
    expect(byId['skl-python']).toMatchObject({
      first_seen: '2020-01-01',
      last_seen: '2026-06-30',
      validation_state: 'suggested',
    })
    // The course the employee completed lends its skills; the skill note its stated level.
    expect(byId['skl-kubernetes']?.evidence.map((item) => item.external_id)).toEqual(['a1', 'a2'])
    expect(byId['skl-terraform']?.proficiency_level).toBeGreaterThanOrEqual(4)
    for (const skill of ann.skills) {
      expect(skill.proficiency_float).toBeGreaterThanOrEqual(0)
      expect(skill.proficiency_float).toBeLessThanOrEqual(1)
      expect(skill.proficiency_level).toBeGreaterThanOrEqual(1)
      expect(skill.proficiency_level).toBeLessThanOrEqual(5)
    }
  })

  it('does not count a future-dated event until its date, and then picks it up incrementally', async () => {
    expect(await skillIds('employee', 'ann')).not.toContain('skl-prince2')
    const later = await deriveProfiles({ tenant, asOf: '2027-02-01' })
    expect(later.vendors[0]?.full).toBe(false)
    // ann (her event came due), and bob and cat, whose last events (2024-01-01, 2024-02-01) fell
    // behind the 3-year low-data horizon between 2026-06-30 and 2027-02-01.
    expect(later.vendors[0]?.recomputed.employees).toBe(3)
    expect(await skillIds('employee', 'ann')).toContain('skl-prince2')
  })

  it('keeps a rejected skill out until evidence dated after the rejection arrives', async () => {
    expect(await skillIds('employee', 'bob')).not.toContain('skl-python')
    await ingest('skill_events', [
      event('bob', 'b3', 'project', '2025-01-10', {
        name: 'Forecast',
        description: 'Demand forecast in Python.',
      }),
    ])
    await deriveProfiles({ tenant, asOf: '2027-02-01' })
    expect(await skillIds('employee', 'bob')).toContain('skl-python')
  })

  it('validates a skill through feedback, with or without other evidence', async () => {
    const cat = await profile('employee', 'cat')
    expect(cat.skills.find((skill) => skill.skill_id === 'skl-negotiation')?.validation_state).toBe(
      'validated',
    )
    // A working history in one of the tenant's jobs lends that job's skills.
    expect(cat.skills.map((skill) => skill.skill_id)).toEqual(
      expect.arrayContaining(['skl-python', 'skl-kubernetes']),
    )
  })

  it('gives an employee without events an empty profile, which is a valid result', async () => {
    const dan = await profile('employee', 'dan')
    expect(dan).toMatchObject({ version: 1, skills: [] })
  })

  it('derives jobs from title, description and family, with governed skills validated', async () => {
    const job = await profile('job', 'job-de')
    const sql = job.skills.find((skill) => skill.skill_id === 'skl-sql')
    expect(sql).toMatchObject({ validation_state: 'validated', proficiency_level: 4, critical: true })
    expect(job.skills.map((skill) => skill.skill_id)).toEqual(
      expect.arrayContaining(['skl-python', 'skl-kubernetes']),
    )
    expect(await skillIds('course', 'c-k8s')).toEqual(
      expect.arrayContaining(['skl-kubernetes', 'skl-docker']),
    )
  })

  it('changes skill names with the vocabulary language, never the profile', async () => {
    const english = await profile('employee', 'ann', 'en_uk')
    const dutch = await profile('employee', 'ann', 'nl')
    expect(dutch.skills.map((skill) => skill.skill_id)).toEqual(english.skills.map((skill) => skill.skill_id))
    expect(dutch.skills.map((skill) => skill.proficiency_float)).toEqual(
      english.skills.map((skill) => skill.proficiency_float),
    )
  })

  it('recomputes nothing and emits nothing when nothing changed', async () => {
    const before = await lastSeq()
    const again = await deriveProfiles({ tenant, asOf: '2027-02-01' })
    expect(Object.values(again.vendors[0]?.recomputed ?? {}).every((count) => count === 0)).toBe(true)
    expect(await eventsAfter(before)).toEqual([])
  })

  it('ends active working history when asked, and the profile follows', async () => {
    await ingest(
      'skill_events',
      [
        event('ann', 'a5', 'working_history', '2027-03-01', {
          job_title: 'Engineering Manager',
          start_date: '2027-03-01',
          company: 'Acme',
          job_description: 'People management and budgeting.',
        }),
      ],
      { endActiveWorkingHistory: true },
    )
    const ended = await tenant.database.one<{ ended_on: string }>(
      "SELECT strftime(ended_on, '%Y-%m-%d') AS ended_on FROM skill_events WHERE external_id = 'a1'",
    )
    expect(ended?.ended_on).toBe('2027-03-01')
    await deriveProfiles({ tenant, asOf: '2027-04-01' })
    const python = (await profile('employee', 'ann')).skills.find((skill) => skill.skill_id === 'skl-python')
    expect(python?.last_seen).toBe('2020-01-01')
  })
})

describe('profile events', () => {
  it('are CloudEvents 1.0 on the tenant base URL, for the first inference too, and only for what changed', async () => {
    const all = await eventsAfter(0)
    const types = new Set(all.map((item) => item.type))
    expect(types).toContain('ai.vendor.employee.skill_profile.updated.v1')
    expect(types).toContain('ai.vendor.employee.skill_profile.suggested_updated.v1')
    expect(types).toContain('ai.vendor.job_architecture.job.skill_profile.updated.v1')
    expect(types).toContain('ai.vendor.course.skill_profile.updated.v1')
    for (const item of all) expect(() => new CloudEvent(item as never)).not.toThrow()
    const employeeUpdates = all.filter((item) => item.type === 'ai.vendor.employee.skill_profile.updated.v1')
    // dan's empty first profile is announced; its suggested set did not change.
    expect(employeeUpdates.some((item) => item.data.external_id === 'dan')).toBe(true)
    expect(
      all.some((item) => item.type.endsWith('suggested_updated.v1') && item.data.external_id === 'dan'),
    ).toBe(false)
    expect(employeeUpdates.find((item) => item.data.external_id === 'ann')?.source).toBe(
      `${tenant.baseUrl}/employees/ann/skill_profile`,
    )
    // A course whose first profile has no skills announces nothing (no skill was added).
    expect(
      all.some(
        (item) =>
          item.type === 'ai.vendor.course.skill_profile.updated.v1' && item.data.external_id === 'c-none',
      ),
    ).toBe(false)
  })

  it('stores each change as a new profile version', async () => {
    const versions = await tenant.database.all<{ version: number }>(
      "SELECT version FROM skill_profile_versions WHERE entity_type = 'employee' AND entity_id = 'ann' ORDER BY version",
    )
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3])
  })
})

describe('the job family profile (4.12)', () => {
  it('lists governed skills as validated and skills most of its jobs share as suggested, with their source data', async () => {
    const { readJobFamilyProfile } = await import('../../src/profiles/job-family-profile.js')
    const profile = (await readJobFamilyProfile(tenant, 'jf-data', {
      include: ['proficiency_level', 'critical'],
    })) as {
      skills: {
        skill_id: string
        validation_state: string
        source_data: { source_data_type: string }[]
        governed_proficiency_level?: number | null
        governed_critical?: boolean | null
        inferred_proficiency_level?: number | null
      }[]
    }
    const sql = profile.skills.find((skill) => skill.skill_id === 'skl-sql')
    expect(sql).toMatchObject({
      validation_state: 'validated',
      governed_proficiency_level: 4,
      governed_critical: true,
      inferred_proficiency_level: null,
    })
    expect(sql?.source_data[0]?.source_data_type).toBe('job_family_profile_data')
    const fromJobs = profile.skills.filter((skill) =>
      skill.source_data.some((source) => source.source_data_type === 'job_profile_data'),
    )
    expect(fromJobs.length).toBeGreaterThan(0)
  })

  it('groups the same skills by domain, subdomain and cluster in the hierarchy format', async () => {
    const { readJobFamilyProfile } = await import('../../src/profiles/job-family-profile.js')
    const list = (await readJobFamilyProfile(tenant, 'jf-data', {})) as { skills: { skill_id: string }[] }
    const tree = (await readJobFamilyProfile(tenant, 'jf-data', { format: 'hierarchy' })) as {
      domains: { subdomains: { skill_clusters: { skills: { skill_id: string }[] }[] }[] }[]
    }
    const inTree = tree.domains.flatMap((domain) =>
      domain.subdomains.flatMap((sub) =>
        sub.skill_clusters.flatMap((cluster) => cluster.skills.map((skill) => skill.skill_id)),
      ),
    )
    expect(inTree.sort()).toEqual(list.skills.map((skill) => skill.skill_id).sort())
  })

  it('refuses skill_validation_state together with external_vendor, and an unknown family', async () => {
    const { readJobFamilyProfile } = await import('../../src/profiles/job-family-profile.js')
    await expect(
      readJobFamilyProfile(tenant, 'jf-data', {
        include: ['skill_validation_state'],
        external_vendor: 'vendor_default',
      }),
    ).rejects.toMatchObject({ status: 422 })
    await expect(readJobFamilyProfile(tenant, 'jf-none', {})).rejects.toMatchObject({ status: 404 })
  })
})

describe('the strict option', () => {
  it('rejects an event from which no profile can be built, and stores it without strict', async () => {
    const rows = [
      event('dan', 'd1', 'goal', '2026-01-01', { title: 'Move to the Ghent office' }),
      event('dan', 'd2', 'goal', '2026-01-01', { title: 'Learn Kubernetes' }),
    ]
    const path = join(temp.dir, 'skill_events.strict.ndjson')
    writeFileSync(path, rows.map((row) => JSON.stringify(row)).join('\n'))
    const strict = await ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: [path],
      rejectsDir: join(temp.dir, 'rejects'),
      strict: true,
    })
    expect(strict.files[0]).toMatchObject({ rows_inserted: 1, rows_rejected: 1 })
    const lenient = await ingestPaths({
      database: tenant.database,
      settings: tenant.settings,
      paths: [path],
      rejectsDir: join(temp.dir, 'rejects'),
    })
    expect(lenient.files[0]).toMatchObject({ rows_inserted: 1, rows_rejected: 0 })
  })
})
