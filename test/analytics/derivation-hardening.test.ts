import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deriveProfiles } from '../../src/profiles/derive.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { eventRow, ingestRows } from '../helpers/ingest-rows.js'
import { createOpenTenant, runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-review-')
const ingest = (tenant: OpenTenant, entity: string, rows: unknown[]) =>
  ingestRows(tenant, temp.dir, entity, rows)
const event = (employee: string, id: string, type: string, timestamp: string, content: object) =>
  eventRow(employee, id, type, timestamp, content, 'review')

/** The stored profile of an entity as comparable rows (skills and the low_data flag). */
async function storedProfile(tenant: OpenTenant, entityType: string, id: string) {
  const skills = await tenant.database.all<{ skill_id: string; validation_state: string; score: number }>(
    `SELECT skill_id, validation_state, score FROM profile_skills
      WHERE entity_type = $1 AND entity_id = $2 AND external_vendor = 'vendor_default' ORDER BY skill_id`,
    [entityType, id],
  )
  const profile = await tenant.database.one<{ low_data: boolean }>(
    `SELECT low_data FROM skill_profiles WHERE entity_type = $1 AND entity_id = $2 AND external_vendor = 'vendor_default'`,
    [entityType, id],
  )
  return { skills, low_data: profile?.low_data ?? null }
}

afterAll(() => temp.cleanup())

describe('incremental derivation equals a full derivation', () => {
  let tenant: OpenTenant
  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'incremental'), 'acme')
  })
  afterAll(() => tenant.database.close())

  // README "How a profile is derived": "A Job Family's profile is its governed skills, its
  // description's skills, and the skills at least a third of its jobs hold"; README `derive`:
  // derives the profiles "whose records or events changed since the last run". A job that moves
  // to another family changes the old family's set of jobs, so the old family must be derived
  // again: after the move, the incremental result must equal a full derivation.
  it('derives the old family again when a job moves to another family', async () => {
    await ingest(tenant, 'job_families', [
      { external_id: 'jf-old', name: 'Old family' },
      { external_id: 'jf-new', name: 'New family' },
    ])
    await ingest(tenant, 'jobs', [
      {
        external_id: 'job-py',
        title: 'Python Developer',
        description: 'Builds services in Python and Kubernetes.',
        job_family_id: 'jf-old',
      },
      {
        external_id: 'job-acc',
        title: 'Accountant',
        description: 'Keeps the books: bookkeeping and payroll.',
        job_family_id: 'jf-old',
      },
    ])
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    const before = await storedProfile(tenant, 'job_family', 'jf-old')
    expect(before.skills.map((skill) => skill.skill_id)).toContain('skl-python')

    // job-py moves to jf-new (same title and description).
    await ingest(tenant, 'jobs', [
      {
        external_id: 'job-py',
        title: 'Python Developer',
        description: 'Builds services in Python and Kubernetes.',
        job_family_id: 'jf-new',
      },
    ])
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    const incremental = await storedProfile(tenant, 'job_family', 'jf-old')
    await deriveProfiles({ tenant, asOf: '2026-06-30', full: true })
    const full = await storedProfile(tenant, 'job_family', 'jf-old')
    expect(full.skills.map((skill) => skill.skill_id)).not.toContain('skl-python')
    expect(incremental).toEqual(full)
  })
})

describe('time-dependent parts of a profile in an incremental derivation', () => {
  let tenant: OpenTenant
  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'time'), 'acme')
    await ingest(tenant, 'employees', [{ external_id: 'emp-idle' }, { external_id: 'emp-future' }])
    await ingest(tenant, 'skill_events', [
      event('emp-idle', 'idle-1', 'project', '2023-06-01', {
        name: 'Platform',
        description: 'Services in Python, Kubernetes, Terraform and PostgreSQL.',
        start_date: '2022-01-01',
        end_date: '2023-06-01',
      }),
    ])
  })
  afterAll(() => tenant.database.close())

  // README: "low data availability: fewer than 3 profile skills, or no skill event in the last 3
  // years" (as of the derivation date). An employee whose last event was 2.6 years ago is not low
  // data; a year later (the nightly run, incremental) the same employee has had no event for 3.6
  // years and must be flagged, as a full derivation flags it. The org export's
  // low_data_availability counts (4.6) read this flag.
  it('flags an employee low data once their last event is more than 3 years old', async () => {
    await deriveProfiles({ tenant, asOf: '2026-01-01' })
    const first = await storedProfile(tenant, 'employee', 'emp-idle')
    expect(first.skills.length).toBeGreaterThanOrEqual(3)
    expect(first.low_data).toBe(false)

    await deriveProfiles({ tenant, asOf: '2027-01-01' })
    const incremental = await storedProfile(tenant, 'employee', 'emp-idle')
    await deriveProfiles({ tenant, asOf: '2027-01-01', full: true })
    const full = await storedProfile(tenant, 'employee', 'emp-idle')
    expect(full.low_data).toBe(true)
    expect(incremental.low_data).toBe(full.low_data)
  })

  // README "How a profile is derived": "an event's timestamp is the date from which its skills
  // count"; `derive --as-of` takes any real date. Derived as of a date before an event, the event
  // must not count, whether the derivation is full or incremental (README `derive`: only what
  // changed is derived again, so the result must be the full derivation's).
  it('leaves out an event dated after --as-of when the previous run was as of a later date', async () => {
    await ingest(tenant, 'skill_events', [
      event('emp-future', 'future-1', 'project', '2026-10-01', {
        name: 'Platform',
        description: 'Services in Python, Kubernetes and Terraform.',
        start_date: '2026-01-01',
        end_date: '2026-10-01',
      }),
    ])
    await deriveProfiles({ tenant, asOf: '2026-12-31' })
    expect((await storedProfile(tenant, 'employee', 'emp-future')).skills.length).toBeGreaterThan(0)

    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    const incremental = await storedProfile(tenant, 'employee', 'emp-future')
    await deriveProfiles({ tenant, asOf: '2026-06-30', full: true })
    const full = await storedProfile(tenant, 'employee', 'emp-future')
    expect(full.skills).toEqual([])
    expect(incremental).toEqual(full)
  })
})

describe('CLI profile commands and the vendors of the tenant', () => {
  let dataDir: string
  beforeAll(async () => {
    dataDir = join(temp.dir, 'cli-vendor')
    const tenant = await createOpenTenant(dataDir, 'acme')
    await ingest(tenant, 'employees', [{ external_id: 'emp-1' }])
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    tenant.database.close()
  })

  // Spec 2.1: "External vendor ... Only vendors activated on the tenant work." The server answers
  // GET /employees/{id}/skill_profile?external_vendor=vendor_b with 403 on a tenant without
  // vendor_b (profileRoute calls requireVendor), and `gap` / `org export` refuse it too. `profile
  // employee` must not answer an empty "version 0" profile with exit 0 for a vendor the tenant
  // does not have.
  it('refuses `profile employee --external-vendor` of a vendor not activated on the tenant', async () => {
    const result = await runCli([
      'profile',
      'employee',
      'emp-1',
      '--external-vendor',
      'vendor_b',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--json',
    ])
    expect(result.exitCode, String(result.stdout)).not.toBe(0)
    expect(String(result.stdout) + String(result.stderr)).toMatch(/not activated/)
  })
})

describe('course profile events', () => {
  let tenant: OpenTenant
  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'course-events'), 'acme')
  })
  afterAll(() => tenant.database.close())

  // Spec 6.2: ai.vendor.course.skill_profile.updated.v1 is emitted when "Skills are added to or
  // removed from the Course Skill Profile"; README (CloudEvents): "the job and course
  // equivalents (a course's only when skills are added or removed)". A new description that
  // names the same skills (only their scores move) adds and removes nothing.
  it('emits no course event when the course keeps the same skills', async () => {
    await ingest(tenant, 'courses', [
      { external_id: 'c-py', title: 'Python basics', description: 'An introduction.' },
    ])
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    const before = await storedProfile(tenant, 'course', 'c-py')
    expect(before.skills.map((skill) => skill.skill_id)).toEqual(['skl-python'])
    const count = async () =>
      Number(
        (
          await tenant.database.one<{ n: number }>(
            `SELECT count(*) AS n FROM outbox WHERE type = 'ai.vendor.course.skill_profile.updated.v1'`,
          )
        )?.n,
      )
    const eventsBefore = await count()

    await ingest(tenant, 'courses', [
      { external_id: 'c-py', title: 'Python basics', description: 'An introduction to Python programming.' },
    ])
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    const after = await storedProfile(tenant, 'course', 'c-py')
    expect(after.skills.map((skill) => skill.skill_id)).toEqual(['skl-python'])
    expect(after.skills[0]?.score).not.toBe(before.skills[0]?.score)
    expect(await count()).toBe(eventsBefore)
  })
})
