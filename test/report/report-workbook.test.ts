import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../src/server/start-server.js'
import { fixture, tempDir } from '../helpers/temp-tenant.js'
import { call, startTestServer, tokenFor } from '../server/server-helpers.js'
import { demoReport, readSheets } from './report-tenant.js'

type Row = Record<string, unknown>
interface ProfileSkill {
  skill_id: string
  proficiency_level: number | null
  critical: boolean | null
}
interface OrgNode {
  external_id: string
  total_nr_of_employees: number
  low_data_availability?: number
  children: OrgNode[]
}

/**
 * The workbook of the demo report read back (exceljs) and held, sheet by sheet, to what the API
 * answers for the same tenant: a real server on port 0 over the same data directory, asked as a
 * client would ask it (collections, profiles, 4.5, 4.6, 4.10, 4.11), and the figures rebuilt from
 * those answers.
 */
describe('skillhouse report: the workbook equals the API', () => {
  const temp = tempDir('skillhouse-report-')
  let sheets: Map<string, Row[]>
  let manifest: Awaited<ReturnType<typeof demoReport>>['manifest']
  let server: RunningServer
  let base: string
  let token: string
  const get = async (path: string) => {
    const answer = await call(`${base}${path}`, { token })
    expect(answer.status, `GET ${path}: ${answer.text}`).toBe(200)
    return answer.json as never
  }
  const post = async (path: string, body: unknown) => {
    const answer = await call(`${base}${path}`, { method: 'POST', token, body })
    expect(answer.status, `POST ${path}: ${answer.text}`).toBeLessThan(300)
    return answer.json as never
  }
  const all = async (collection: string): Promise<Row[]> => {
    const records: Row[] = []
    let after = ''
    for (;;) {
      const page = (await get(`/${collection}?limit=1000${after ? `&starting_after=${after}` : ''}`)) as {
        records: Row[]
        has_next: boolean
        next_starting_after: string | null
      }
      records.push(...page.records)
      if (!page.has_next || !page.next_starting_after) return records
      after = page.next_starting_after
    }
  }
  let employees: Row[]
  let jobs: Row[]
  let vacancies: Row[]
  const profiles = new Map<string, ProfileSkill[]>()
  const jobProfiles = new Map<string, ProfileSkill[]>()

  beforeAll(async () => {
    const made = await demoReport(temp.dir)
    manifest = made.manifest
    sheets = await readSheets(made.xlsx)
    server = await startTestServer(made.dataDir)
    base = `${server.url}/demo/eu`
    token = await tokenFor(made.dataDir, 'demo')
    employees = await all('employees')
    jobs = await all('job_architecture/jobs')
    vacancies = await all('vacancies')
    for (const employee of employees) {
      const id = employee.external_id as string
      profiles.set(id, ((await get(`/employees/${id}/skill_profile`)) as { skills: ProfileSkill[] }).skills)
    }
    for (const job of jobs) {
      const id = job.external_id as string
      jobProfiles.set(
        id,
        ((await get(`/job_architecture/jobs/${id}/skill_profile`)) as { skills: ProfileSkill[] }).skills,
      )
    }
  })
  afterAll(async () => {
    await server?.close()
    temp.cleanup()
  })

  const sheet = (name: string) => {
    const rows = sheets.get(name)
    expect(rows, `sheet ${name}`).toBeDefined()
    return rows as Row[]
  }
  /** Employees holding a skill at `level` as the profile API shows them (the 4.5 gap's rule). */
  const holdersAt = (skillId: string, level: number | null) =>
    [...profiles.values()].filter((skills) =>
      skills.some(
        (skill) =>
          skill.skill_id === skillId &&
          (level === null || skill.proficiency_level === null || skill.proficiency_level >= level),
      ),
    ).length

  it('has one sheet per chart, with frozen headers and filters on', async () => {
    expect([...sheets.keys()]).toEqual([
      'Overview',
      'Organisation heatmap',
      'Supply and demand',
      'Internal mobility',
      'Bench strength',
      'Data quality',
      'Rejected rows',
    ])
    for (const rows of sheets.values()) expect(rows.length).toBeGreaterThan(0)
  })

  it('counts employees, jobs, vacancies and low data availability as the collections and 4.6 do', async () => {
    const figures = new Map(sheet('Overview').map((row) => [row.Figure, row.Value]))
    expect(figures.get('Employees')).toBe(employees.length)
    expect(figures.get('Jobs')).toBe(jobs.length)
    expect(figures.get('Vacancies')).toBe(vacancies.length)
    expect(figures.get('Open vacancies')).toBe(
      vacancies.filter((vacancy) => (vacancy.status ?? 'active') === 'active').length,
    )
    const org = (await get('/organisational_units/export?include=low_data_availability_flag')) as {
      organisational_structure: OrgNode[]
    }
    const roots = org.organisational_structure
    expect(figures.get('Employees in organisational units')).toBe(
      roots.reduce((sum, root) => sum + root.total_nr_of_employees, 0),
    )
    expect(figures.get('Of them with low data availability')).toBe(
      roots.reduce((sum, root) => sum + (root.low_data_availability ?? 0), 0),
    )
    expect(figures.get('As of')).toBeInstanceOf(Date)
  })

  it('fills each heatmap cell with the share of a unit (and the units below it) holding the cluster at level 3 or more', async () => {
    const org = (await get('/organisational_units/export')) as { organisational_structure: OrgNode[] }
    const totals = new Map<string, number>()
    const stack = [...org.organisational_structure]
    while (stack.length > 0) {
      const node = stack.pop() as OrgNode
      totals.set(node.external_id, node.total_nr_of_employees)
      stack.push(...node.children)
    }
    const parents = new Map(
      (await all('organisational_units')).map((unit) => [unit.external_id, unit.parent_id]),
    )
    const clusterOf = new Map(
      (await all('taxonomy/skills')).map((skill) => [
        skill.external_id as string,
        skill.skill_cluster_id as string,
      ]),
    )
    // Per unit and cluster, the employees of the unit or a unit below it holding it at level ≥ 3.
    const holders = new Map<string, Set<string>>()
    for (const employee of employees) {
      const clusters = new Set(
        (profiles.get(employee.external_id as string) ?? [])
          .filter((skill) => (skill.proficiency_level ?? 0) >= 3)
          .map((skill) => clusterOf.get(skill.skill_id)),
      )
      for (
        let unit = employee.organisational_unit_id as string | null;
        unit;
        unit = parents.get(unit) as string | null
      ) {
        for (const cluster of clusters) {
          const key = `${unit}|${cluster}`
          const set = holders.get(key) ?? new Set()
          set.add(employee.external_id as string)
          holders.set(key, set)
        }
      }
    }
    const rows = sheet('Organisation heatmap')
    expect(rows.length).toBeGreaterThan(100)
    for (const row of rows) {
      expect(row.Employees).toBe(totals.get(row['Unit id'] as string))
      const expected = holders.get(`${row['Unit id']}|${row['Group id']}`)?.size ?? 0
      expect(row['Holders at level 3 or more'], `${row['Unit id']} × ${row['Group id']}`).toBe(expected)
      expect(row.Share).toBe(expected / (row.Employees as number))
    }
  })

  // Demand counted jobs too, so every shortage of the demo was ≤ 0: a job's role is mostly filled.
  it('compares the skills open vacancies ask for most with the employees holding them at the level asked', () => {
    const rows = sheet('Supply and demand')
    expect(rows).toHaveLength(30)
    for (const row of rows) {
      const skillId = row['Skill id'] as string
      const asking = [...jobProfiles.values()].filter((skills) =>
        skills.some((skill) => skill.skill_id === skillId),
      )
      expect(row.Jobs, skillId).toBe(asking.length)
      expect(row['Holders at that level'], skillId).toBe(
        holdersAt(skillId, row['Level asked'] as number | null),
      )
      expect(row.Demand, skillId).toBe(row['Open vacancies'])
      expect(row.Demand, skillId).toBeGreaterThan(0)
      expect(row.Shortage).toBe((row.Demand as number) - (row['Holders at that level'] as number))
    }
    const shortages = rows.map((row) => row.Shortage as number)
    expect(shortages).toEqual([...shortages].sort((a, b) => b - a))
  })

  it('lists for each open vacancy its best candidates by their 4.11 scores and the 4.5 gap of the best one', async () => {
    const byVacancy = new Map<string, { employee_id: string; score: number }[]>()
    for (const employee of employees) {
      const id = employee.external_id as string
      const answer = (await post(`/employees/${id}/matching_vacancies?limit=100`, {})) as {
        records: { vacancy_id: string; score: number }[]
        total: number
      }
      expect(answer.total).toBe(answer.records.length)
      for (const record of answer.records) {
        const list = byVacancy.get(record.vacancy_id) ?? []
        list.push({ employee_id: id, score: record.score })
        byVacancy.set(record.vacancy_id, list)
      }
    }
    const rows = sheet('Internal mobility')
    const open = vacancies.filter((vacancy) => (vacancy.status ?? 'active') === 'active')
    expect(rows.map((row) => row['Vacancy id']).sort()).toEqual(
      open.map((vacancy) => vacancy.external_id).sort(),
    )
    for (const row of rows) {
      const vacancyId = row['Vacancy id'] as string
      const ranked = (byVacancy.get(vacancyId) ?? []).sort(
        (a, b) => b.score - a.score || (a.employee_id < b.employee_id ? -1 : 1),
      )
      for (let rank = 0; rank < 3; rank++) {
        expect(row[`Candidate ${rank + 1}`] ?? null, `${vacancyId} #${rank + 1}`).toBe(
          ranked[rank]?.employee_id ?? null,
        )
        expect(row[`Score ${rank + 1}`] ?? null, `${vacancyId} #${rank + 1}`).toBe(
          ranked[rank]?.score ?? null,
        )
      }
      // Counted as shown, two decimals: a score that reads 0.70 counts.
      expect(row['Candidates 0.70 or above']).toBe(
        ranked.filter((candidate) => Math.round(candidate.score * 100) / 100 >= 0.7).length,
      )
      const best = ranked[0]
      const gap = best
        ? ((await get(`/employees/${best.employee_id}/vacancies/${vacancyId}/gap`)) as { skill_id: string }[])
        : []
      expect(row['Gap of the best (skill ids)'] ?? '').toBe(gap.map((entry) => entry.skill_id).join(' | '))
    }
  })

  it('gives each job the employees 4.10 matches to it and its critical skills fewer than two hold', async () => {
    const matches = new Map<string, { employee_id: string; score: number }[]>()
    let after: string | null = null
    do {
      const page = (await post('/job_architecture/export/jobs/matching_employees', {
        filters: [],
        weights: [],
        limit: 50,
        match_limit_per_entity: 100,
        ...(after ? { starting_after: after } : {}),
      })) as {
        records: { job_id: string; matches: { employee_id: string; score: number }[] }[]
        has_next: boolean
        next_starting_after: string | null
      }
      for (const record of page.records) matches.set(record.job_id, record.matches)
      after = page.has_next ? page.next_starting_after : null
    } while (after)
    const rows = sheet('Bench strength')
    expect(rows).toHaveLength(jobs.length)
    for (const row of rows) {
      const jobId = row['Job id'] as string
      const found = matches.get(jobId) ?? []
      expect(row['Matching employees'], jobId).toBe(found.length)
      expect(row['Best employee'] ?? null).toBe(found[0]?.employee_id ?? null)
      expect(row['Best score'] ?? null).toBe(found[0]?.score ?? null)
      const critical = (jobProfiles.get(jobId) ?? []).filter((skill) => skill.critical === true)
      expect(row['Critical skills']).toBe(critical.length)
      const thin = critical
        .filter((skill) => holdersAt(skill.skill_id, skill.proficiency_level) < 2)
        .map((skill) => skill.skill_id)
        .sort()
      expect(
        String(row['Held by fewer than 2 (skill ids)'] ?? '')
          .split(' | ')
          .filter(Boolean)
          .sort(),
      ).toEqual(thin)
    }
  })

  it('counts skill events per type as ingested and the rejected rows of the last run as its manifest', () => {
    const byType = new Map<string, number>()
    for (const line of readFileSync(fixture('demo', 'skill_events.ndjson'), 'utf8').split('\n')) {
      if (!line.trim()) continue
      const type = JSON.parse(line).event_type as string
      byType.set(type, (byType.get(type) ?? 0) + 1)
    }
    const rows = sheet('Data quality')
    expect(new Map(rows.map((row) => [row['Event type'], row.Events]))).toEqual(byType)
    for (const row of rows) {
      if (row['Event type'] === 'skill_profile_feedback') expect(row['Gave no skill'] ?? null).toBeNull()
      else expect(row['Gave no skill']).toBeGreaterThanOrEqual(0)
    }
    const rejects = sheet('Rejected rows')
    expect(rejects.reduce((sum, row) => sum + (row['Rows rejected'] as number), 0)).toBe(
      manifest.rejected_rows,
    )
    expect(rejects.map((row) => row['Rows read']).sort()).toEqual(
      manifest.inputs.map((input) => input.rows).sort(),
    )
  })

  // Last: it adds an employee to the tenant.
  it('counts the open vacancies asking for a skill as the 4.5 gap of an employee without skills lists them', async () => {
    await post('/employees', { external_id: 'emp-report-probe' })
    const asking = new Map<string, number>()
    for (const vacancy of vacancies.filter((record) => (record.status ?? 'active') === 'active')) {
      const gap = (await get(`/employees/emp-report-probe/vacancies/${vacancy.external_id}/gap`)) as {
        skill_id: string
      }[]
      for (const entry of gap) asking.set(entry.skill_id, (asking.get(entry.skill_id) ?? 0) + 1)
    }
    for (const row of sheet('Supply and demand'))
      expect(row['Open vacancies'], row['Skill id'] as string).toBe(
        asking.get(row['Skill id'] as string) ?? 0,
      )
  })
})
