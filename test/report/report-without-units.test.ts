// A tenant whose employees sit in no organisational unit got five of six sections as notices,
// though it had skills to show: now its overview charts the skills held by level, and its heatmap
// has all employees and their jobs for rows.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gatherReport } from '../../src/report/gather-report.js'
import type { OrganisationHeatmap, ReportData } from '../../src/report/report-model.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { fixture, runCli, tempDir } from '../helpers/temp-tenant.js'

describe('skillhouse report of a tenant without organisational units', () => {
  const temp = tempDir('skillhouse-report-no-units-')
  const dataDir = join(temp.dir, 'data')
  let written: { sections: Record<string, string>; html: string }
  let data: ReportData

  beforeAll(async () => {
    // The demo's files without its units: no unit file, and no employee or vacancy placed in one.
    const inbox = join(temp.dir, 'inbox')
    mkdirSync(inbox)
    for (const name of readdirSync(fixture('demo')).filter(
      (name) => !name.startsWith('organisational_units'),
    ))
      copyFileSync(fixture('demo', name), join(inbox, name))
    const employees = readFileSync(join(inbox, 'employees.csv'), 'utf8').split('\n')
    const unitColumn = (employees[0] ?? '').split(',').indexOf('organisational_unit_id')
    const withoutUnit = (line: string) =>
      line === ''
        ? line
        : line
            .split(',')
            .map((cell, index) => (index === unitColumn ? '' : cell))
            .join(',')
    writeFileSync(
      join(inbox, 'employees.csv'),
      [employees[0], ...employees.slice(1).map(withoutUnit)].join('\n'),
    )
    const vacancies = readFileSync(join(inbox, 'vacancies.ndjson'), 'utf8').trim().split('\n')
    writeFileSync(
      join(inbox, 'vacancies.ndjson'),
      `${vacancies.map((line) => JSON.stringify({ ...JSON.parse(line), organisational_unit_id: undefined })).join('\n')}\n`,
    )
    expect(
      (await runCli(['tenant', 'create', 'demo', '--region', 'eu', '--data-dir', dataDir])).exitCode,
    ).toBe(0)
    const run = await runCli(['run', '--inbox', inbox, '--out', join(temp.dir, 'run'), '--data-dir', dataDir])
    expect(run.exitCode, String(run.stdout) + String(run.stderr)).toBe(0)
    const out = join(temp.dir, 'report')
    const report = await runCli(['report', '--data-dir', dataDir, '--out', out, '--json'])
    expect(report.exitCode, String(report.stderr)).toBe(0)
    written = JSON.parse(String(report.stdout))
    const tenant = await openTenant(dataDir, 'demo')
    try {
      data = await gatherReport(tenant, { depth: 2, group_by: 'skill_cluster', locale: 'en-GB' })
    } finally {
      tenant.database.close()
    }
  })
  afterAll(() => temp.cleanup())

  it('charts the skills held by level in the overview, and the skills by job in the heatmap', () => {
    expect(written.sections.overview).toBe('chart')
    expect(written.sections.organisation).toBe('chart')
    const html = readFileSync(written.html, 'utf8')
    expect(html).toContain('data-chart="overview"')
    expect(html).toContain('data-chart="organisation"')
    expect(html).toContain('rows are all employees and, below them, their jobs')
    expect(data.overview.employees_in_units).toBe(0)
    expect(data.overview.skills_by_level.map((row) => row.level)).toEqual(
      [...data.overview.skills_by_level.map((row) => row.level)].sort(),
    )
    expect(data.overview.skills_by_level.reduce((sum, row) => sum + row.held, 0)).toBeGreaterThan(0)
  })

  it('has all employees for its first row and each employee in the row of one job below it', () => {
    const heatmap = data.organisation as OrganisationHeatmap
    expect(heatmap.rows_by).toBe('jobs')
    const [all, ...jobs] = heatmap.units
    expect(all).toMatchObject({ name: 'All employees', depth: 1, employees: data.overview.employees })
    expect(jobs.length).toBeGreaterThan(1)
    expect(jobs.every((job) => job.depth === 2)).toBe(true)
    expect(jobs.reduce((sum, job) => sum + job.employees, 0)).toBe(all?.employees)
    heatmap.groups.forEach((group, column) => {
      expect(all?.holders[column], group.name).toBe(group.holders)
      expect(
        jobs.reduce((sum, job) => sum + (job.holders[column] ?? 0), 0),
        group.name,
      ).toBe(group.holders)
    })
    // Named by the jobs' titles.
    expect(jobs.map((job) => job.name)).toContain('Warehouse Operative')
  })
})
