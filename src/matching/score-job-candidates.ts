import type { JobMatchData } from './job-index.js'
import { roundScore } from './scoring-model.js'

/** What a request asks of the scorer, beyond the index. */
export interface JobScoringParams {
  /** score_min_threshold. */
  threshold: number
  /** match_limit_per_entity. */
  k: number
  proficiencyMatching: boolean
  useCriticalities: boolean
  minCriticalRatio: number | null
  excludeOverqualified: boolean
}

/** The top matches of one job: parallel arrays, best first. */
export interface JobTopMatches {
  candidates: Int32Array
  scores: Float64Array
  /** 1 when the match is overqualified (proficiency matching). */
  overqualified: Uint8Array
  /** critical_skills_match_ratio (criticalities). */
  criticalRatio: Float64Array
}

/** A filter that depends on the job as well as the employee (from/to custom property rules). */
export type PairFilter = (job: number, candidate: number) => boolean

/** The most weight of a job's lightest skills that is looked up per candidate instead of walked. */
const SKIP_SHARE = 0.1

const EMPTY: JobTopMatches = {
  candidates: new Int32Array(0),
  scores: new Float64Array(0),
  overqualified: new Uint8Array(0),
  criticalRatio: new Float64Array(0),
}

/** f(required, level) of the model for levels 0–5 (0 = unknown), looked up instead of branched on. */
function factorTable(proficiency: boolean): Float64Array {
  const table = new Float64Array(36)
  for (let required = 0; required < 6; required++) {
    for (let level = 0; level < 6; level++) {
      table[required * 6 + level] =
        proficiency && required > 0 && level > 0 && level < required ? level / required : 1
    }
  }
  return table
}

/**
 * Top-k employees per job by the scoring model (scoring-model.ts, section 1), exactly, over the
 * inverted index (skill → employees).
 *
 * Per job, every posting of the job's skills adds w · h · f to its employee's sum, the skills in
 * canonical order (weight descending), so each sum is taken in the model's order and equals
 * `scoreCoverage` to the last bit. The walk is deliberately branch-free (a lookup table for f, no
 * test per posting): postings point at employees in no predictable order, and on this hardware a
 * mispredicted branch per posting costs more than adding to a sum that will not matter. What
 * prunes is the threshold (the bar, θ · Σw):
 * - an employee who holds none of the skills visited while the weight still to come was at least
 *   the bar cannot reach it, so only the postings of those first lists are scanned for candidates;
 * - the lightest skills (the commonest: low idf, long posting lists), up to a tenth of the job's
 *   weight, are not walked at all: only a candidate within that much of the bar can need them, and
 *   the few that do look them up in their own skill lists, completing the sum in the model's order;
 * - filters, the critical ratio and overqualification are applied to the candidates only, best
 *   first, until k are kept.
 * The bar is lowered by 1e-9 of the job's weight, so rounding never loses a tie.
 */
export class JobCandidateScorer {
  private readonly sums: Float64Array
  private readonly factors: Float64Array

  constructor(
    private readonly data: JobMatchData,
    /** 1 for employees the job-independent filters keep. */
    private readonly mask: Uint8Array,
    private readonly params: JobScoringParams,
    private readonly pairFilter?: PairFilter,
  ) {
    this.sums = new Float64Array(data.employeeCount)
    this.factors = factorTable(params.proficiencyMatching)
  }

  /** The top matches of job `job`. */
  score(job: number): JobTopMatches {
    const { jobs, postings } = this.data
    const from = jobs.start[job] as number
    const to = jobs.start[job + 1] as number
    const total = jobs.total[job] as number
    if (to === from || !(total > 0)) return EMPTY
    const sums = this.sums
    const factors = this.factors
    const postStart = postings.start
    const postCandidate = postings.candidate
    const postStrength = postings.strength
    const postLevel = postings.level
    const bar = this.params.threshold * total - total * 1e-9
    // The lists that can bring in a candidate: while the weight still to come reaches the bar.
    let admitting = to
    let still = total
    for (let row = from; row < to; row++) {
      if (!(still >= bar && still > 0)) {
        admitting = row
        break
      }
      still -= jobs.weight[row] as number
    }
    // The lightest skills (the commonest: idf is low, their posting lists long) are not walked
    // while they weigh at most a tenth of the job and less than half the bar: only employees
    // within that much of the bar need them, and those few look them up in their own lists.
    let walked = to
    let skipped = 0
    if (bar > 0) {
      while (walked > admitting) {
        const weight = jobs.weight[walked - 1] as number
        if (skipped + weight > SKIP_SHARE * total || skipped + weight > bar / 2) break
        skipped += weight
        walked--
      }
    }
    let touched = 0
    for (let row = from; row < walked; row++) {
      const skill = jobs.skill[row] as number
      const weight = jobs.weight[row] as number
      const table = (jobs.required[row] as number) * 6
      const end = postStart[skill + 1] as number
      touched += end - (postStart[skill] as number)
      for (let p = postStart[skill] as number; p < end; p++) {
        const employee = postCandidate[p] as number
        sums[employee] =
          (sums[employee] as number) +
          weight * (postStrength[p] as number) * (factors[table + (postLevel[p] as number)] as number)
      }
    }
    // Candidates: employees of the first lists who can still reach the bar (each taken once: its
    // sum is negated when taken, which no later test passes); their sums are completed with the
    // skipped skills, in the model's order.
    const floor = Math.max(bar - skipped, 0)
    const candidates: number[] = []
    const scores: number[] = []
    for (let row = from; row < admitting; row++) {
      const skill = jobs.skill[row] as number
      const end = postStart[skill + 1] as number
      for (let p = postStart[skill] as number; p < end; p++) {
        const employee = postCandidate[p] as number
        const sum = sums[employee] as number
        if (sum > floor) {
          candidates.push(employee)
          scores.push(walked < to ? this.complete(employee, sum, walked, to) : sum)
          sums[employee] = -sum
        }
      }
    }
    // Reset every sum this job touched: a sequential fill is cheaper than many scattered writes.
    if (touched > sums.length / 4) sums.fill(0)
    else {
      for (let row = from; row < walked; row++) {
        const skill = jobs.skill[row] as number
        const end = postStart[skill + 1] as number
        for (let p = postStart[skill] as number; p < end; p++) sums[postCandidate[p] as number] = 0
      }
    }
    return this.select(job, candidates, scores, total)
  }

  /** Adds the job's rows [from, to) to an employee's sum, looking each skill up in the employee's list. */
  private complete(employee: number, sum: number, from: number, to: number): number {
    const { jobs, employees } = this.data
    const first = employees.start[employee] as number
    const last = (employees.start[employee + 1] as number) - 1
    let total = sum
    for (let row = from; row < to; row++) {
      const own = findSkill(employees.skill, first, last, jobs.skill[row] as number)
      if (own < 0) continue
      total +=
        (jobs.weight[row] as number) *
        (employees.strength[own] as number) *
        (this.factors[(jobs.required[row] as number) * 6 + (employees.level[own] as number)] as number)
    }
    return total
  }

  /**
   * The k best candidates: score ≥ threshold and > 0, by score then number; the filters, the
   * critical ratio and overqualification are applied in that order until k are kept.
   */
  private select(job: number, candidates: number[], sums: number[], total: number): JobTopMatches {
    const params = this.params
    const order: { employee: number; score: number }[] = []
    for (let index = 0; index < candidates.length; index++) {
      const score = roundScore((sums[index] as number) / total)
      if (score < params.threshold || score <= 0) continue
      order.push({ employee: candidates[index] as number, score })
    }
    order.sort((a, b) => b.score - a.score || a.employee - b.employee)
    const chosen: { employee: number; score: number; over: number; ratio: number }[] = []
    for (const entry of order) {
      if (chosen.length === params.k) break
      if (this.mask[entry.employee] === 0) continue
      if (this.pairFilter !== undefined && !this.pairFilter(job, entry.employee)) continue
      const { ratio, over } = this.properties(job, entry.employee)
      if (params.minCriticalRatio !== null && ratio < params.minCriticalRatio - 1e-12) continue
      if (params.excludeOverqualified && over === 1) continue
      chosen.push({ ...entry, over, ratio })
    }
    return {
      candidates: Int32Array.from(chosen, (entry) => entry.employee),
      scores: Float64Array.from(chosen, (entry) => entry.score),
      overqualified: Uint8Array.from(chosen, (entry) => entry.over),
      criticalRatio: Float64Array.from(chosen, (entry) => entry.ratio),
    }
  }

  /** critical_skills_match_ratio and overqualification of one match (scoring-model.ts, section 1). */
  private properties(job: number, employee: number): { ratio: number; over: number } {
    const { jobs, employees } = this.data
    const params = this.params
    const first = employees.start[employee] as number
    const last = (employees.start[employee + 1] as number) - 1
    let critical = 0
    let criticalHeld = 0
    let leveled = 0
    let over = 0
    for (let row = jobs.start[job] as number; row < (jobs.start[job + 1] as number); row++) {
      const isCritical = params.useCriticalities && jobs.critical[row] === 1
      const required = jobs.required[row] as number
      if (!isCritical && !(params.proficiencyMatching && required > 0)) continue
      const own = findSkill(employees.skill, first, last, jobs.skill[row] as number)
      const level = own < 0 ? 0 : (employees.level[own] as number)
      if (isCritical) {
        critical++
        if (own >= 0) criticalHeld += this.factors[required * 6 + level] as number
      }
      if (params.proficiencyMatching && required > 0) {
        leveled++
        if (own >= 0 && level > required) over++
      }
    }
    return {
      ratio: critical > 0 ? criticalHeld / critical : 1,
      over: params.proficiencyMatching && leveled > 0 && over === leveled ? 1 : 0,
    }
  }
}

/** The row of `skill` in a sorted run [lo, hi] of skill numbers, or −1. */
function findSkill(skills: Int32Array, lo: number, hi: number, skill: number): number {
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const at = skills[mid] as number
    if (at < skill) lo = mid + 1
    else if (at > skill) hi = mid - 1
    else return mid
  }
  return -1
}
