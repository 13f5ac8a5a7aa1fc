import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli, tempDir } from '../helpers/temp-tenant.js'
import { readSheets } from './report-tenant.js'

/** The sections a notice stands in for, read off the page: `data-notice` ids. */
const noticesOf = (html: string) => [...html.matchAll(/data-notice="([a-z-]+)"/g)].map((match) => match[1])
const chartsOf = (html: string) => [...html.matchAll(/data-chart="([a-z-]+)"/g)].map((match) => match[1])

describe('skillhouse report on tenants with little in them, and bad flags', () => {
  const temp = tempDir('skillhouse-report-bad-')
  const dataDir = join(temp.dir, 'data')
  const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir])

  beforeAll(async () => {
    expect((await cli(['tenant', 'create', 'empty', '--region', 'eu'])).exitCode).toBe(0)
    expect((await cli(['tenant', 'create', 'solo', '--region', 'eu'])).exitCode).toBe(0)
    const inbox = join(temp.dir, 'solo-inbox')
    mkdirSync(inbox)
    writeFileSync(join(inbox, 'organisational_units.csv'), 'external_id,name,parent_id\nou-1,Head office,\n')
    writeFileSync(
      join(inbox, 'employees.csv'),
      'external_id,first_name,organisational_unit_id\nemp-1,Ada,ou-1\n',
    )
    writeFileSync(
      join(inbox, 'skill_events.ndjson'),
      `${JSON.stringify({
        employee_id: 'emp-1',
        external_id: 'ev-1',
        event_type: 'working_history',
        timestamp: '2025-01-01',
        source: 'hr',
        content: {
          job_title: 'Data engineer',
          start_date: '2021-01-01',
          company: 'Acme',
          job_description:
            'Built data pipelines in Python and SQL; warehouse management and forklift operation.',
        },
      })}\n`,
    )
    expect(
      (await cli(['run', '--tenant', 'solo', '--inbox', inbox, '--out', join(temp.dir, 'solo-run')]))
        .exitCode,
    ).toBe(0)
  })
  afterAll(() => temp.cleanup())

  it('says in each section that a tenant with nothing derived has nothing to show, and still writes both files', async () => {
    const out = join(temp.dir, 'empty-report')
    const result = await cli(['report', '--tenant', 'empty', '--out', out])
    expect(result.exitCode, String(result.stderr)).toBe(0)
    const html = readFileSync(join(out, 'report.html'), 'utf8')
    expect(noticesOf(html)).toEqual([
      'overview',
      'organisation',
      'supply-demand',
      'mobility',
      'bench',
      'data-quality',
    ])
    expect(chartsOf(html)).toEqual([])
    expect(html).toContain('The tenant has no employees yet.')
    expect(html).toContain('The tenant has no organisational units')
    expect(html).toContain('Skill profiles have not been derived yet')
    expect(html).toContain('The tenant has no open vacancy.')
    expect(html).toContain('The tenant has no jobs.')
    const sheets = await readSheets(join(out, 'report.xlsx'))
    expect(sheets.get('Internal mobility')).toEqual([{ Notice: 'The tenant has no open vacancy.' }])
    expect(sheets.get('Bench strength')).toEqual([{ Notice: 'The tenant has no jobs.' }])
  })

  it('charts what one derived employee gives and says that there are no vacancies and no jobs', async () => {
    const out = join(temp.dir, 'solo-report')
    const result = await cli(['report', '--tenant', 'solo', '--out', out, '--json'])
    expect(result.exitCode, String(result.stderr)).toBe(0)
    const written = JSON.parse(String(result.stdout)) as { sections: Record<string, string> }
    expect(written.sections).toMatchObject({
      overview: 'chart',
      organisation: 'chart',
      supply_and_demand:
        'No open vacancy asks for any skill (there are none, or their profiles are empty): demand counts open vacancies only, as a job describes a role that is mostly filled already.',
      internal_mobility: 'The tenant has no open vacancy.',
      bench_strength: 'The tenant has no jobs.',
      data_quality: 'chart',
    })
    const html = readFileSync(join(out, 'report.html'), 'utf8')
    expect(chartsOf(html)).toEqual(['overview', 'organisation', 'data-quality'])
    expect(noticesOf(html)).toEqual(['supply-demand', 'mobility', 'bench'])
  })

  it('refuses an --out that is a file with a usage error naming it', async () => {
    const file = join(temp.dir, 'a-file.txt')
    writeFileSync(file, 'not a folder')
    const result = await cli(['report', '--tenant', 'solo', '--out', file])
    expect(result.exitCode).toBe(2)
    expect(String(result.stderr)).toContain(`--out ${file}: is a file`)
    expect(readFileSync(file, 'utf8')).toBe('not a folder')
  })

  it('refuses a date that does not exist and an unknown locale, naming the flag', async () => {
    const out = join(temp.dir, 'never')
    const asOf = await cli(['report', '--tenant', 'solo', '--out', out, '--as-of', '2026-02-30'])
    expect(asOf.exitCode).toBe(2)
    expect(String(asOf.stderr)).toContain('--as-of: ')
    const locale = await cli(['report', '--tenant', 'solo', '--out', out, '--locale', 'not a locale!'])
    expect(locale.exitCode).toBe(2)
    expect(String(locale.stderr)).toContain('--locale: must be a BCP 47 locale')
  })
})
