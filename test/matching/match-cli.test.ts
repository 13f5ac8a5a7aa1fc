import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matchJobs } from '../../src/matching/match-jobs.js'
import { VacancyMatchingResponse } from '../../src/matching/vacancy-match-schema.js'
import { JobMatchingResponse } from '../../src/schemas/index.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tenantDatabaseFile } from '../../src/tenants/data-directory.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { SeededRandom } from '../../src/util/seeded-random.js'
import { runCli, tempDir, testFixture } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-match-cli-')
const dataDir = join(temp.dir, 'data')
const out = join(temp.dir, 'out')
async function cli(args: string[], env: Record<string, string> = {}) {
  const result = await runCli([...args, '--data-dir', dataDir], { env: { NO_COLOR: '1', ...env } })
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) }
}

/** 40 jobs and 80 employees drawn from 12 skills, seeded; three vacancies around Brussels. */
async function seed() {
  const inbox = join(temp.dir, 'in')
  mkdirSync(inbox, { recursive: true })
  const jobs = Array.from({ length: 40 }, (_, index) => `job-${String(index).padStart(2, '0')}`)
  const employees = Array.from({ length: 80 }, (_, index) => `emp-${String(index).padStart(2, '0')}`)
  writeFileSync(
    join(inbox, 'jobs.csv'),
    `external_id,title\n${jobs.map((id) => `${id},Job ${id}`).join('\n')}\n`,
  )
  writeFileSync(
    join(inbox, 'employees.ndjson'),
    employees
      .map((id) =>
        JSON.stringify({
          external_id: id,
          location: { country: 'BE', postal_code: '1000' },
          languages: [{ language: 'nl', level: 3 }],
        }),
      )
      .join('\n'),
  )
  writeFileSync(
    join(inbox, 'vacancies.ndjson'),
    [
      { external_id: 'vac-1', title: 'Near', location: { country: 'BE', postal_code: '1050' } },
      { external_id: 'vac-2', title: 'Antwerp', location: { lat: 51.2194, lng: 4.4025 } },
      { external_id: 'vac-3', title: 'Paris', location: { country: 'FR', postal_code: '75001' } },
    ]
      .map((record) => JSON.stringify(record))
      .join('\n'),
  )
  expect((await cli(['ingest', inbox])).exitCode).toBe(0)
  const skills = [
    'skl-sql',
    'skl-python',
    'skl-java',
    'skl-communication',
    'skl-leadership',
    'skl-etl',
    'skl-project-management',
    'skl-go',
    'skl-rust',
    'skl-c',
    'skl-php',
    'skl-ruby',
  ]
  const random = new SeededRandom(7)
  const database = await TenantDatabase.open(tenantDatabaseFile(dataDir, 'cli'))
  try {
    const insert = async (type: string, id: string, count: number) => {
      const chosen = random.sample(skills, count)
      for (const skill of chosen) {
        await database.run(
          `INSERT INTO profile_skills VALUES ($1, $2, 'vendor_default', $3, 'suggested', $4, NULL, $5, NULL, NULL, NULL, NULL, NULL, '[]')`,
          [type, id, skill, [0.4, 0.6, 0.8, 1][random.int(4)] as number, random.between(1, 5)],
        )
      }
      await database.run(
        `INSERT INTO skill_profiles VALUES ($1, $2, 'vendor_default', 1, 'h', 'h', $3, false, now())`,
        [type, id, count],
      )
    }
    for (const id of jobs) await insert('job', id, random.between(2, 5))
    for (const id of employees) await insert('employee', id, random.between(1, 6))
    for (const id of ['vac-1', 'vac-2', 'vac-3']) await insert('vacancy', id, 3)
  } finally {
    database.close()
  }
}

beforeAll(async () => {
  // The e2e tests run the built CLI: build it when this checkout has no build yet.
  if (!existsSync(join(projectRoot(), 'dist', 'commands', 'match', 'jobs.js'))) {
    await execa('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: projectRoot() })
  }
  expect((await cli(['tenant', 'create', 'cli', '--region', 'eu'])).exitCode).toBe(0)
  await seed()
})
afterAll(() => temp.cleanup())

describe('skillhouse match and geo import (built CLI)', () => {
  it('imports postal codes, reporting rejected lines and exiting with 3', async () => {
    const result = await cli(['geo', 'import', testFixture('geo', 'postal-codes.csv')])
    expect(result.exitCode).toBe(3)
    expect(result.stdout).toMatch(
      /postal-codes\.csv: 12 rows, 9 postal codes \(BE, DE, FR, GB, NL\), 2 rejected/,
    )
    expect(result.stderr).toMatch(/line 12: latitude must be a number/)
  })

  it('exports every page of job matches to a file, equal to the library answer', async () => {
    const file = join(out, 'matching_employees.json')
    const result = await cli(['match', 'jobs', '--all-pages', '--out', file])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^40 jobs, \d+ matches → /)
    const written = JobMatchingResponse.parse(JSON.parse(readFileSync(file, 'utf8')))
    expect(written.records).toHaveLength(40)
    expect(written.records.some((record) => record.matches.length > 0)).toBe(true)
    const library = await withTenant(dataDir, 'cli', (tenant) =>
      matchJobs(tenant, { filters: [], weights: [], limit: 50 }),
    )
    expect(written).toEqual(library)
  })

  it('gives the same matches from worker threads as in one thread', async () => {
    const request = join(temp.dir, 'threshold.json')
    writeFileSync(
      request,
      JSON.stringify({ filters: [], weights: [], score_min_threshold: 0.2, match_limit_per_entity: 5 }),
    )
    const single = await cli(['match', 'jobs', '--all-pages', '--request', request, '--format', 'ndjson'])
    const threaded = await cli(['match', 'jobs', '--all-pages', '--request', request, '--format', 'ndjson'], {
      SKILLHOUSE_MATCH_PARALLEL_MIN_JOBS: '1',
      SKILLHOUSE_MATCH_WORKERS: '2',
    })
    expect(single.exitCode).toBe(0)
    expect(threaded.exitCode, threaded.stderr).toBe(0)
    expect(single.stdout.trim().split('\n')).toHaveLength(40)
    expect(threaded.stdout).toBe(single.stdout)
  })

  it('answers one page with explanations, and a 422 naming the field with exit code 2', async () => {
    const request = join(temp.dir, 'page.json')
    writeFileSync(request, JSON.stringify({ filters: [], weights: [], limit: 2, score_min_threshold: 0 }))
    const page = await cli([
      'match',
      'jobs',
      '--request',
      request,
      '--response-format',
      'explained',
      '--vocab-language',
      'de',
    ])
    expect(page.exitCode, page.stderr).toBe(0)
    const body = JSON.parse(page.stdout) as JobMatchingResponse
    expect(body).toMatchObject({ has_next: true, next_starting_after: 'job-01' })
    expect(body.records[0]?.matches[0]).toHaveProperty('explanation.matched_skills')
    const bad = join(temp.dir, 'bad.json')
    writeFileSync(bad, JSON.stringify({ filters: [], weights: [], limit: 80 }))
    const refused = await cli(['match', 'jobs', '--request', bad])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('error: limit: must be between 1 and 50; got 80')
  })

  it('matches vacancies for one employee and for all of them, writing one file each', async () => {
    const one = await cli([
      'match',
      'vacancies',
      '--employee',
      'emp-00',
      '--include',
      'location',
      '--min-score',
      '0',
      '--json',
    ])
    expect(one.exitCode, one.stderr).toBe(0)
    const answer = VacancyMatchingResponse.parse(JSON.parse(one.stdout))
    // On a terminal: a table with each vacancy's title and distance.
    const table = await cli(['match', 'vacancies', '--employee', 'emp-00', '--min-score', '0'])
    expect(table.stdout.split('\n')[1]).toMatch(/^ {2}RANK {2}SCORE {2}VACANCY +DISTANCE {2}ID$/)
    expect(table.stdout).toMatch(new RegExp(`${answer.records[0]?.vacancy_id}$`, 'm'))
    // Paris is beyond the default 50 km.
    expect(answer.records.map((record) => record.vacancy_id)).not.toContain('vac-3')
    const all = await cli(['match', 'vacancies', '--all-employees', '--out', out])
    expect(all.exitCode, all.stderr).toBe(0)
    const file = join(out, 'matching_vacancies', 'emp-00.json')
    expect(VacancyMatchingResponse.parse(JSON.parse(readFileSync(file, 'utf8')))).toMatchObject({
      employee_id: 'emp-00',
    })
    const refused = await cli(['match', 'vacancies', '--employee', 'emp-00', '--limit', '500'])
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('error: limit: must be between 1 and 100; got 500')
    expect((await cli(['match', 'vacancies', '--employee', 'nobody'])).exitCode).toBe(1)
  })
})
