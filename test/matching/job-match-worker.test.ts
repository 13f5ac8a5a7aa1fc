import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { heldProfiles, invert, weighJobs } from '../../src/matching/job-index.js'
import type { JobMatchData } from '../../src/matching/job-match-data.js'
import { JobWorkerPool } from '../../src/matching/job-match-worker.js'
import { type PairFilterSpec, pairFilterOf } from '../../src/matching/match-filters.js'
import type { ProfileColumns } from '../../src/matching/profile-columns.js'
import {
  JobCandidateScorer,
  type JobMatchesTable,
  type JobScoringParams,
  jobMatchesTable,
} from '../../src/matching/score-job-candidates.js'
import { SeededRandom } from '../../src/util/seeded-random.js'

// Worker threads run the compiled module (`npm run build`, which `npm test` runs first).
const SCRIPT = new URL('../../dist/src/matching/job-match-worker.js', import.meta.url)

function columns(entities: [number, number, number, boolean][][]): ProfileColumns {
  const start = new Int32Array(entities.length + 1)
  const rows = entities.flatMap((skills, entity) => {
    const unique = [...new Map(skills.map((skill) => [skill[0], skill])).values()]
    start[entity + 1] = (start[entity] as number) + unique.length
    return unique
  })
  return {
    count: entities.length,
    start,
    skill: Int32Array.from(rows, (row) => row[0]),
    strength: Float64Array.from(rows, (row) => row[1]),
    level: Uint8Array.from(rows, (row) => row[2]),
    critical: Uint8Array.from(rows, (row) => (row[3] ? 1 : 0)),
  }
}

/** An index of `employees` employees and `jobs` jobs over 40 skills. */
function index(seed: number, employees: number, jobs: number): JobMatchData {
  const random = new SeededRandom(seed)
  const profile = () =>
    Array.from(
      { length: random.between(3, 12) },
      () =>
        [random.int(40), random.pick([0.4, 0.7, 1]), random.int(6), random.chance(0.2)] as [
          number,
          number,
          number,
          boolean,
        ],
    )
  const employeeProfiles = columns(Array.from({ length: employees }, profile))
  const skillIds = Array.from({ length: 40 }, (_, skill) => `skill-${String(skill).padStart(2, '0')}`)
  return {
    employeeCount: employees,
    jobCount: jobs,
    skillCount: 40,
    employees: heldProfiles(employeeProfiles),
    postings: invert(employeeProfiles, 40),
    jobs: weighJobs(columns(Array.from({ length: jobs }, profile)), skillIds, {
      proficiencyMatching: true,
      useCriticalities: true,
    }),
  }
}

const params: JobScoringParams = {
  threshold: 0.3,
  k: 7,
  proficiencyMatching: true,
  useCriticalities: true,
  minCriticalRatio: null,
  excludeOverqualified: false,
}

/** Employees and jobs of equal grade (grade = number mod 3) only. */
function sameGrade(data: JobMatchData): PairFilterSpec {
  return {
    rules: [
      {
        rule: { filter: 'custom_property_equal', from_entity_property: 'grade', to_entity_property: 'grade' },
        field: 'filters[0]',
      },
    ],
    sourceDefinitions: [['grade', 'number']],
    candidateDefinitions: [['grade', 'number']],
    sourceProps: Array.from({ length: data.jobCount }, (_, job) => ({ grade: job % 3 })),
    candidateProps: Array.from({ length: data.employeeCount }, (_, employee) => ({ grade: employee % 3 })),
  }
}

/** The same jobs scored in this thread. */
function inThread(
  data: JobMatchData,
  jobs: number[],
  mask: Uint8Array,
  pair: PairFilterSpec | null,
  scoring: JobScoringParams = params,
) {
  const scorer = new JobCandidateScorer(data, mask, scoring, pair ? pairFilterOf(pair) : undefined)
  const table = jobMatchesTable(jobs.length, scoring.k, false)
  for (let slot = 0; slot < jobs.length; slot++) scorer.scoreInto(jobs[slot] as number, table, slot)
  return table
}

const plain = (table: JobMatchesTable) => ({
  count: [...table.count],
  candidate: [...table.candidate],
  score: [...table.score],
  overqualified: [...table.overqualified],
  criticalRatio: [...table.criticalRatio],
  above: [...table.above],
})

describe('the job matching worker pool', () => {
  const pool = new JobWorkerPool(SCRIPT, 2)
  afterAll(() => pool.close())

  it('scores in its threads what one thread scores, an index loaded once and reloaded for another', async () => {
    expect(existsSync(fileURLToPath(SCRIPT)), 'run `npm run build` first').toBe(true)
    const first = index(1, 3000, 400)
    const second = index(2, 2000, 300)
    const everyJob = (data: JobMatchData) => Array.from({ length: data.jobCount }, (_, job) => job)
    const mask = (data: JobMatchData) => {
      const out = new Uint8Array(new SharedArrayBuffer(data.employeeCount))
      for (let employee = 0; employee < data.employeeCount; employee++)
        out[employee] = employee % 5 === 0 ? 0 : 1
      return out
    }
    // The strong count (countAbove) as internal mobility asks for it.
    const strong: JobScoringParams = { ...params, countAbove: 0.5 }
    for (const [data, pair, scoring] of [
      [first, null, params],
      [first, sameGrade(first), params],
      [second, null, params],
      [first, null, params],
      [first, null, strong],
    ] as const) {
      const jobs = everyJob(data).reverse()
      const threads = await pool.score(data, jobs, mask(data), scoring, pair)
      expect(plain(threads)).toEqual(plain(inThread(data, jobs, mask(data), pair, scoring)))
    }
    const counted = await pool.score(first, everyJob(first), mask(first), strong, null)
    expect(Math.max(...counted.above)).toBeGreaterThan(params.k)
    expect(pool.healthy).toBe(true)
  })

  it('fails a request its threads cannot score, and answers the next one', async () => {
    const data = index(4, 1200, 120)
    const jobs = Array.from({ length: data.jobCount }, (_, job) => job)
    const mask = new Uint8Array(new SharedArrayBuffer(data.employeeCount)).fill(1)
    const broken = {
      ...sameGrade(data),
      rules: [{ rule: null as unknown as Record<string, unknown>, field: 'x' }],
    }
    await expect(pool.score(data, jobs, mask, params, broken)).rejects.toThrow()
    expect(pool.healthy).toBe(true)
    const table = await pool.score(data, jobs, mask, params, null)
    expect(plain(table)).toEqual(plain(inThread(data, jobs, mask, null)))
  })

  it('answers requests made at the same time one after the other', async () => {
    const data = index(3, 1500, 200)
    const jobs = Array.from({ length: data.jobCount }, (_, job) => job)
    const mask = new Uint8Array(new SharedArrayBuffer(data.employeeCount)).fill(1)
    const [a, b] = await Promise.all([
      pool.score(data, jobs, mask, params, null),
      pool.score(data, jobs.slice(0, 50), mask, { ...params, k: 3 }, null),
    ])
    expect(plain(a)).toEqual(plain(inThread(data, jobs, mask, null)))
    expect([...b.count]).toEqual([...a.count.subarray(0, 50)].map((count) => Math.min(3, count)))
  })
})
