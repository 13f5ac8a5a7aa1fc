import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gatherReport } from '../../src/report/gather-report.js'
import { LocaleFormat } from '../../src/report/number-format.js'
import { dataQualityReading } from '../../src/report/report-readings.js'
import { matchingNotice, NOT_DERIVED } from '../../src/report/section-notices.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { ingestRows } from '../helpers/ingest-rows.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const REPORT = { as_of: '2026-06-30', depth: 2, group_by: 'skill_cluster', locale: 'en-GB' } as const

describe('the notices of report sections that cannot show anything yet', () => {
  const temp = tempDir('skillhouse-report-notices-')
  let staffed: OpenTenant
  let unstaffed: OpenTenant

  beforeAll(async () => {
    // Both tenants have a job and an open vacancy; only the first has employees. Neither is derived.
    staffed = await createOpenTenant(temp.dir, 'staffed')
    unstaffed = await createOpenTenant(temp.dir, 'unstaffed')
    for (const tenant of [staffed, unstaffed]) {
      await ingestRows(tenant, temp.dir, 'organisational_units', [
        { external_id: 'ou-1', name: 'Head office' },
      ])
      await ingestRows(tenant, temp.dir, 'jobs', [{ external_id: 'job-1', title: 'Data engineer' }])
      await ingestRows(tenant, temp.dir, 'vacancies', [
        { external_id: 'vac-1', title: 'Data engineer', status: 'active', job_id: 'job-1' },
      ])
    }
    await ingestRows(staffed, temp.dir, 'employees', [
      { external_id: 'emp-1', first_name: 'Ada', organisational_unit_id: 'ou-1' },
    ])
  })
  afterAll(() => {
    staffed.database.close()
    unstaffed.database.close()
    temp.cleanup()
  })

  it('says in every section that needs profiles that none are derived yet, and how to derive them', async () => {
    const report = await gatherReport(staffed, REPORT)
    expect(report.organisation).toEqual({
      notice:
        'Skill profiles have not been derived yet (run skillhouse derive or skillhouse run), so no one holds a skill yet.',
    })
    expect(report.supply).toEqual({
      notice:
        'Skill profiles have not been derived yet (run skillhouse derive or skillhouse run): no open vacancy asks for a skill yet.',
    })
    expect(report.mobility).toEqual({
      notice:
        'Skill profiles have not been derived yet (run skillhouse derive or skillhouse run), so no one can be matched to a vacancy.',
    })
    expect(report.bench).toEqual({
      notice:
        'Skill profiles have not been derived yet (run skillhouse derive or skillhouse run), so no one can be matched to a job.',
    })
  })

  it('says that there is no one to match before it speaks of profiles', async () => {
    const report = await gatherReport(unstaffed, REPORT)
    expect(report.mobility).toEqual({
      notice: 'The tenant has no employees to move into its open vacancies.',
    })
    expect(report.bench).toEqual({ notice: 'The tenant has no employees to stand in for its jobs.' })
  })

  it("counts in data quality the skill events dated after the report's day, and says what that means", async () => {
    const event = (external_id: string, timestamp: string) => ({
      external_id,
      employee_id: 'emp-1',
      event_type: 'learning',
      timestamp,
      source: 'lms',
      content: { title: 'Advanced SQL' },
    })
    await ingestRows(staffed, temp.dir, 'skill_events', [
      event('ev-1', '2026-06-01'),
      event('ev-2', '2026-07-04'),
      event('ev-3', '2026-07-01'),
    ])
    const report = await gatherReport(staffed, REPORT)
    expect(report.quality.future_dated).toEqual({ after: '2026-06-30', events: 2, latest: '2026-07-04' })
    expect(dataQualityReading(report.quality, new LocaleFormat('en-GB'))).toContain(
      "2 skill events are dated after 2026-06-30, the latest 2026-07-04: they count only from their dates on. Dates in the future are often a source's clock or a day-month swap; check them at the source.",
    )
  })

  it('names what is missing first: nothing to match to, then no employee, then no profile', () => {
    const notices = { noTargets: 'no jobs', noEmployees: 'no employees', target: 'a job' }
    expect(matchingNotice({ targets: 0, employees: 0, derived: false }, notices)).toEqual({
      notice: 'no jobs',
    })
    expect(matchingNotice({ targets: 1, employees: 0, derived: false }, notices)).toEqual({
      notice: 'no employees',
    })
    expect(matchingNotice({ targets: 1, employees: 1, derived: false }, notices)).toEqual({
      notice: `${NOT_DERIVED}, so no one can be matched to a job.`,
    })
    expect(matchingNotice({ targets: 1, employees: 1, derived: true }, notices)).toBeUndefined()
  })
})
