import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { heldProfiles, invert, weighJobs } from '../../src/matching/job-index.js'
import type { JobMatchData } from '../../src/matching/job-match-data.js'
import type { ProfileColumns } from '../../src/matching/profile-columns.js'
import { JobCandidateScorer, type JobScoringParams } from '../../src/matching/score-job-candidates.js'
import {
  roundScore,
  type ScoringFeatures,
  scoreCoverage,
  type WeightedTargetSkill,
} from '../../src/matching/scoring-model.js'
import { SeededRandom } from '../../src/util/seeded-random.js'

/** Profiles as CSR columns, from lists of [skill, strength, level, critical] per entity. */
function columns(entities: [number, number, number, boolean][][]): ProfileColumns {
  const start = new Int32Array(entities.length + 1)
  const rows = entities.flatMap((skills, entity) => {
    const sorted = [...new Map(skills.map((skill) => [skill[0], skill])).values()].sort((a, b) => a[0] - b[0])
    start[entity + 1] = (start[entity] as number) + sorted.length
    return sorted
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

function randomProfiles(
  random: SeededRandom,
  count: number,
  skills: number,
  size: [number, number],
  strengths: number[],
) {
  return Array.from({ length: count }, () =>
    Array.from(
      { length: random.between(size[0], size[1]) },
      () =>
        [random.int(skills), random.pick(strengths), random.int(6), random.chance(0.3)] as [
          number,
          number,
          number,
          boolean,
        ],
    ),
  )
}

/** The top matches the model defines, by brute force over every employee with scoreCoverage. */
function bruteForce(
  data: JobMatchData,
  employeeProfiles: ProfileColumns,
  job: number,
  params: JobScoringParams,
  features: ScoringFeatures,
  allowed: (employee: number) => boolean,
) {
  const skills: WeightedTargetSkill[] = []
  for (let row = data.jobs.start[job] as number; row < (data.jobs.start[job + 1] as number); row++) {
    skills.push({
      skill_id: String(data.jobs.skill[row]).padStart(6, '0'),
      weight: data.jobs.weight[row] as number,
      required: data.jobs.required[row] as number,
      critical: features.useCriticalities && data.jobs.critical[row] === 1,
    })
  }
  const out: { employee: number; score: number }[] = []
  for (let employee = 0; employee < employeeProfiles.count; employee++) {
    if (!allowed(employee)) continue
    const held = new Map<string, { strength: number; level: number }>()
    for (
      let row = employeeProfiles.start[employee] as number;
      row < (employeeProfiles.start[employee + 1] as number);
      row++
    ) {
      held.set(String(employeeProfiles.skill[row]).padStart(6, '0'), {
        strength: employeeProfiles.strength[row] as number,
        level: employeeProfiles.level[row] as number,
      })
    }
    const coverage = scoreCoverage(skills, (skill) => held.get(skill), features)
    const score = roundScore(coverage.score)
    if (!(score > 0) || score < params.threshold) continue
    if (params.minCriticalRatio !== null && coverage.criticalRatio < params.minCriticalRatio - 1e-12) continue
    if (params.excludeOverqualified && coverage.overqualified) continue
    out.push({ employee, score })
  }
  out.sort((a, b) => b.score - a.score || a.employee - b.employee)
  return out.slice(0, params.k)
}

describe('the job candidate scorer', () => {
  it('returns exactly the brute-force top k, whatever the pruning, filters and features', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          employees: fc.integer({ min: 1, max: 120 }),
          skills: fc.integer({ min: 2, max: 25 }),
          k: fc.integer({ min: 1, max: 12 }),
          threshold: fc.constantFrom(0, 0.1, 0.3, 0.5, 0.8),
          proficiency: fc.boolean(),
          criticalities: fc.boolean(),
          minRatio: fc.constantFrom(null, 0.5, 1),
          excludeOver: fc.boolean(),
          masked: fc.boolean(),
          pair: fc.boolean(),
        }),
        (input) => {
          const random = new SeededRandom(input.seed)
          // Few distinct strengths make exact ties frequent: the tie-break is exercised.
          const strengths = [1, 0.5, 0.75, 0.3]
          const employeeProfiles = columns(
            randomProfiles(random, input.employees, input.skills, [0, 8], strengths),
          )
          const jobProfiles = columns(randomProfiles(random, 6, input.skills, [0, 7], [1, 0.6]))
          const features = { proficiencyMatching: input.proficiency, useCriticalities: input.criticalities }
          const skillIds = Array.from({ length: input.skills }, (_, skill) => String(skill).padStart(6, '0'))
          const data: JobMatchData = {
            employeeCount: employeeProfiles.count,
            jobCount: jobProfiles.count,
            skillCount: input.skills,
            employees: heldProfiles(employeeProfiles),
            postings: invert(employeeProfiles, input.skills),
            jobs: weighJobs(jobProfiles, skillIds, features),
          }
          const params: JobScoringParams = {
            threshold: input.threshold,
            k: input.k,
            proficiencyMatching: input.proficiency,
            useCriticalities: input.criticalities,
            minCriticalRatio: input.criticalities ? input.minRatio : null,
            excludeOverqualified: input.proficiency && input.excludeOver,
          }
          const mask = new Uint8Array(input.employees).fill(1)
          if (input.masked)
            for (let employee = 0; employee < input.employees; employee += 3) mask[employee] = 0
          const pair = input.pair ? (job: number, employee: number) => (job + employee) % 4 !== 0 : undefined
          const scorer = new JobCandidateScorer(data, mask, params, pair)
          for (let job = 0; job < jobProfiles.count; job++) {
            const result = scorer.score(job)
            const expected = bruteForce(
              data,
              employeeProfiles,
              job,
              params,
              features,
              (employee) => mask[employee] === 1 && (!pair || pair(job, employee)),
            )
            expect([...result.candidates]).toEqual(expected.map((entry) => entry.employee))
            expect([...result.scores]).toEqual(expected.map((entry) => entry.score))
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('sums each score in the model order, so equal profiles tie exactly and rank by number', () => {
    const employees = columns([
      [
        [0, 0.7, 3, false],
        [1, 0.9, 2, false],
      ],
      [[2, 1, 1, false]],
      [
        [0, 0.7, 3, false],
        [1, 0.9, 2, false],
      ],
    ])
    const jobs = columns([
      [
        [0, 1, 4, true],
        [1, 0.8, 2, false],
        [2, 0.5, 1, false],
      ],
    ])
    const features = { proficiencyMatching: true, useCriticalities: true }
    const data: JobMatchData = {
      employeeCount: 3,
      jobCount: 1,
      skillCount: 3,
      employees: heldProfiles(employees),
      postings: invert(employees, 3),
      jobs: weighJobs(jobs, ['a', 'b', 'c'], features),
    }
    const scorer = new JobCandidateScorer(data, new Uint8Array(3).fill(1), {
      threshold: 0,
      k: 10,
      proficiencyMatching: true,
      useCriticalities: true,
      minCriticalRatio: null,
      excludeOverqualified: false,
    })
    const result = scorer.score(0)
    expect([...result.candidates]).toEqual([0, 2, 1])
    expect(result.scores[0]).toBe(result.scores[1])
    // One job profile: idf = ln 2 for every skill; w = (1·2, 0.8, 0.5)·ln 2; employee 0 holds
    // skill 0 at 3 of 4 (f = 0.75, critical ratio 0.75) and skill 1 above its level.
    const w = [2 * Math.LN2, 0.8 * Math.LN2, 0.5 * Math.LN2] as const
    expect(result.scores[0]).toBe(roundScore((w[0] * 0.7 * 0.75 + w[1] * 0.9) / (w[0] + w[1] + w[2])))
    expect(result.criticalRatio[0]).toBe(0.75)
    expect(result.overqualified[0]).toBe(0)
  })
})
