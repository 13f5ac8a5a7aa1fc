import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JobTitleIndex, TITLE_MIN_SIMILARITY, titleTerms } from '../../src/extraction/job-titles.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import { TITLE_WEIGHT } from '../../src/profiles/evidence.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { eventRow, ingestRows } from '../helpers/ingest-rows.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const JOBS = [
  { job_id: 'job-country', title: 'Country Manager' },
  { job_id: 'job-site', title: 'Site Manager' },
  { job_id: 'job-forklift', title: 'Heftruck- en reachtruckchauffeur' },
  { job_id: 'job-accountant', title: 'Accountant' },
  { job_id: 'job-cs-lead', title: 'Customer Service Team Leader' },
]

describe('job titles', () => {
  const index = new JobTitleIndex(JOBS)
  const nearest = (title: string) => index.nearest(title)?.job_id

  it('read as the meanings of their words, compounds as their parts, in four languages', () => {
    expect(titleTerms('Directeur pays')).toEqual(titleTerms('Country Manager'))
    expect(titleTerms('Landesleiter')).toEqual(titleTerms('Country Manager'))
    expect(titleTerms('Magazijnmedewerker')).toEqual(titleTerms('Warehouse Operative'))
    expect(titleTerms('Lagermitarbeiter')).toEqual(titleTerms('Warehouse Operative'))
    expect(titleTerms('Senior Staplerfahrer (m/w/d)')).toEqual(titleTerms('Forklift Driver'))
  })

  it('find the nearest Job of the tenant, or none', () => {
    expect(nearest('Directeur pays')).toBe('job-country')
    expect(nearest('Landesleiter')).toBe('job-country')
    expect(nearest('Directeur de site')).toBe('job-site')
    expect(nearest('Vestigingsmanager')).toBe('job-site')
    expect(nearest('Conducteur de chariot élévateur')).toBe('job-forklift')
    expect(nearest('Staplerfahrer')).toBe('job-forklift')
    expect(nearest('Comptable')).toBe('job-accountant')
    expect(nearest('Teamleiter Kundenservice')).toBe('job-cs-lead')
    expect(nearest('Responsable d’équipe service client')).toBe('job-cs-lead')
    // A role the tenant has no Job for, and a lone generic word.
    expect(nearest('Verpleegkundige')).toBeUndefined()
    expect(nearest('Manager')).toBeUndefined()
    expect(nearest('')).toBeUndefined()
    expect(index.nearest('Directeur pays')?.similarity).toBeGreaterThanOrEqual(TITLE_MIN_SIMILARITY)
  })
})

describe('a working history job title in derivation', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  const ingest = (entity: string, rows: unknown[]) => ingestRows(tenant, temp.dir, entity, rows)
  const skillsOf = async (id: string) =>
    tenant.database.all<{ skill_id: string; score: number }>(
      `SELECT skill_id, score FROM profile_skills WHERE entity_type = $1 AND entity_id = $2 ORDER BY skill_id`,
      ['employee', id],
    )
  const history = (employee: string, id: string, title: string) =>
    eventRow(employee, id, 'working_history', '2025-01-01', {
      job_title: title,
      start_date: '2025-01-01',
      company: 'Northwind',
      job_description: 'Four years.',
    })

  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'))
    // The family governs a skill its jobs inherit: the family is broader than the role.
    await ingest('job_families', [
      { external_id: 'jf-ops', name: 'Operations', skills: [{ skill_id: 'skl-forklift-operation' }] },
    ])
    await ingest('jobs', [
      {
        external_id: 'job-country',
        job_family_id: 'jf-ops',
        title: 'Country Manager',
        description:
          'Full P&L responsibility for the country. Budgeting and forecasting, people management of the site managers, stakeholder management.',
      },
      {
        external_id: 'job-site',
        title: 'Site Manager',
        description: 'Runs a warehouse: warehouse management, health and safety, lean manufacturing.',
      },
    ])
    await ingest('employees', [{ external_id: 'ann' }, { external_id: 'ben' }, { external_id: 'cas' }])
    await ingest('skill_events', [
      history('ann', 'a1', 'Directeur pays'),
      history('ben', 'b1', 'Country Manager'),
      history('cas', 'c1', 'Verpleegkundige'),
    ])
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('gives "Directeur pays" and "Country Manager" the same skills, the Country Manager Job\'s own ones, weaker', async () => {
    const jobSkills = await tenant.database.all<{ skill_id: string; score: number }>(
      `SELECT skill_id, score FROM profile_skills WHERE entity_type = 'job' AND entity_id = 'job-country'`,
    )
    const ann = await skillsOf('ann')
    expect(ann.length).toBeGreaterThan(0)
    expect(ann).toEqual(await skillsOf('ben'))
    const best = Math.max(...jobSkills.map((skill) => skill.score))
    for (const skill of ann) {
      expect(jobSkills.map((job) => job.skill_id)).toContain(skill.skill_id)
      expect(skill.score).toBeLessThanOrEqual(best)
    }
    expect(TITLE_WEIGHT).toBeLessThan(0.9)
    expect(jobSkills.map((skill) => skill.skill_id)).toContain('skl-forklift-operation')
    expect(ann.map((skill) => skill.skill_id)).not.toContain('skl-forklift-operation')
  })

  it('derives the titled working histories again when a Job changes', async () => {
    const before = await skillsOf('ann')
    await ingest('jobs', [
      {
        external_id: 'job-country',
        job_family_id: 'jf-ops',
        title: 'Country Manager',
        description: 'Full P&L responsibility for the country and contract negotiation with key accounts.',
      },
    ])
    const result = await deriveProfiles({ tenant, asOf: '2026-06-30' })
    expect(result.vendors[0]?.recomputed.employees).toBeGreaterThanOrEqual(2)
    const after = await skillsOf('ann')
    expect(after).not.toEqual(before)
    expect(after).toEqual(await skillsOf('ben'))
  })

  it('gives a title that is no Job of the tenant no role skills', async () => {
    const roleSkills = (
      await tenant.database.all<{ skill_id: string }>(
        `SELECT skill_id FROM profile_skills WHERE entity_type = 'job'`,
      )
    ).map((skill) => skill.skill_id)
    for (const skill of await skillsOf('cas')) expect(roleSkills).not.toContain(skill.skill_id)
  })
})
