import { describe, expect, it } from 'vitest'
import { heldProfiles, invert, weighJobs } from '../../src/matching/job-index.js'
import type { JobMatchData } from '../../src/matching/job-match-data.js'
import type { ProfileColumns } from '../../src/matching/profile-columns.js'
import { JobCandidateScorer, type JobScoringParams } from '../../src/matching/score-job-candidates.js'
import { roundScore, scoreCoverage, type WeightedTargetSkill } from '../../src/matching/scoring-model.js'
import { SeededRandom } from '../../src/util/seeded-random.js'

/** CSR columns from [skill, strength, level, critical] lists; runs keep the order given. */
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

const features = { proficiencyMatching: true, useCriticalities: true }

/** A tenant of `count` employees over 6 skills (long posting lists) and 8 jobs. */
function tenant(
  seed: number,
  count: number,
  maxStrength: number,
): JobMatchData & { columns: ProfileColumns } {
  const random = new SeededRandom(seed)
  const skills = 6
  const profile = (size: number, strengths: () => number) =>
    Array.from(
      { length: size },
      () =>
        [random.int(skills), strengths(), random.int(6), random.chance(0.3)] as [
          number,
          number,
          number,
          boolean,
        ],
    )
  // Few distinct strengths: many exact ties, so the tie-break by employee number is exercised.
  const strengths = [0.25, 0.5, 0.75, 1, maxStrength]
  const employees = columns(
    Array.from({ length: count }, () => profile(random.between(1, 5), () => random.pick(strengths))),
  )
  const jobs = columns(
    Array.from({ length: 8 }, () => profile(random.between(1, 5), () => random.pick([1, 0.6, 0.9]))),
  )
  const skillIds = Array.from({ length: skills }, (_, skill) => `skill-${skill}`)
  return {
    employeeCount: count,
    jobCount: 8,
    skillCount: skills,
    employees: heldProfiles(employees),
    columns: employees,
    postings: invert(employees, skills),
    jobs: weighJobs(jobs, skillIds, features),
  }
}

/** The top k the model defines, by brute force over every employee. */
function bruteForce(data: JobMatchData & { columns: ProfileColumns }, job: number, params: JobScoringParams) {
  const skills: WeightedTargetSkill[] = []
  for (let row = data.jobs.start[job] as number; row < (data.jobs.start[job + 1] as number); row++) {
    skills.push({
      skill_id: `skill-${data.jobs.skill[row]}`,
      weight: data.jobs.weight[row] as number,
      required: data.jobs.required[row] as number,
      critical: data.jobs.critical[row] === 1,
    })
  }
  const out: { employee: number; score: number }[] = []
  const employees = data.columns
  for (let employee = 0; employee < data.employeeCount; employee++) {
    const held = new Map<string, { strength: number; level: number }>()
    for (
      let row = employees.start[employee] as number;
      row < (employees.start[employee + 1] as number);
      row++
    ) {
      held.set(`skill-${employees.skill[row]}`, {
        strength: employees.strength[row] as number,
        level: employees.level[row] as number,
      })
    }
    const score = roundScore(scoreCoverage(skills, (skill) => held.get(skill), features).score)
    if (score > 0 && score >= params.threshold) out.push({ employee, score })
  }
  out.sort((a, b) => b.score - a.score || a.employee - b.employee)
  return out.slice(0, params.k)
}

const params = (threshold: number, k: number): JobScoringParams => ({
  threshold,
  k,
  proficiencyMatching: true,
  useCriticalities: true,
  minCriticalRatio: null,
  excludeOverqualified: false,
})

describe('the job candidate scorer on long posting lists', () => {
  it('returns the brute-force top k at every threshold, strengths above 1 included', () => {
    for (const [seed, maxStrength] of [
      [3, 1],
      [5, 1.7],
    ] as const) {
      const data = tenant(seed, 2600, maxStrength)
      for (const [threshold, k] of [
        [0, 5],
        [0.3, 40],
        [0.6, 100],
        [1, 3],
      ] as const) {
        const scorer = new JobCandidateScorer(
          data,
          new Uint8Array(data.employeeCount).fill(1),
          params(threshold, k),
        )
        for (let job = 0; job < data.jobCount; job++) {
          const expected = bruteForce(data, job, params(threshold, k))
          const result = scorer.score(job)
          expect([...result.candidates]).toEqual(expected.map((entry) => entry.employee))
          expect([...result.scores]).toEqual(expected.map((entry) => entry.score))
        }
      }
    }
  })

  it('leaves no bound behind between jobs, even when a filter throws halfway through one', () => {
    const data = tenant(9, 2600, 1)
    const mask = new Uint8Array(data.employeeCount).fill(1)
    let calls = 0
    const failing = () => {
      calls++
      if (calls === 3) throw new Error('filter failed')
      return true
    }
    const fresh = new JobCandidateScorer(data, mask, params(0.2, 10), () => true)
    const expected = Array.from({ length: data.jobCount }, (_, job) => [...fresh.score(job).candidates])
    const scorer = new JobCandidateScorer(data, mask, params(0.2, 10), failing)
    expect(() => {
      for (let job = 0; job < data.jobCount; job++) scorer.score(job)
    }).toThrow('filter failed')
    for (let job = 0; job < data.jobCount; job++) {
      expect([...scorer.score(job).candidates]).toEqual(expected[job])
    }
  })
})
