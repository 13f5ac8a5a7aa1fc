import { LEVEL_SLOTS } from './job-index.js'
import type { JobMatchData } from './job-match-data.js'
import { type PostingKernel, postingKernel, SCAN_CHUNK } from './kernel/posting-kernel.js'
import { proficiencyFactorTable, roundScore } from './scoring-model.js'

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
  /**
   * When given, the scorer also counts the matches (those the filters keep) scoring above it,
   * beyond the top k: the bar then never rises above it. Vacancy matching turned around asks
   * this (how many candidates are strong); job matching does not.
   */
  countAbove?: number
}

/** The top matches of one job: parallel arrays, best first. */
export interface JobTopMatches {
  candidates: Int32Array
  scores: Float64Array
  /** 1 when the match is overqualified (proficiency matching). */
  overqualified: Uint8Array
  /** critical_skills_match_ratio (criticalities). */
  criticalRatio: Float64Array
  /** The matches scoring above `countAbove` (0 without it). */
  above: number
}

/**
 * The top matches of many jobs, `k` slots per job: job slot `j` holds `count[j]` matches, best
 * first, at `j * k` onwards. On SharedArrayBuffers when worker threads fill it.
 */
export interface JobMatchesTable {
  k: number
  count: Int32Array
  candidate: Int32Array
  score: Float64Array
  overqualified: Uint8Array
  criticalRatio: Float64Array
  /** Per job slot: the matches scoring above `countAbove` (0 without it). */
  above: Int32Array
}

/** A filter that depends on the job as well as the employee (from/to custom property rules). */
export type PairFilter = (job: number, candidate: number) => boolean

/** Bars (in units of a job's weight) below which the bar is first raised by `prime`. */
const PRIMED_BELOW = 0.45

/** An empty table for `rows` jobs of `k` matches each, on plain or shared memory. */
export function jobMatchesTable(rows: number, k: number, shared: boolean): JobMatchesTable {
  const buffer = (bytes: number) =>
    shared ? new SharedArrayBuffer(Math.max(1, bytes)) : new ArrayBuffer(bytes)
  return {
    k,
    count: new Int32Array(buffer(rows * 4), 0, rows),
    candidate: new Int32Array(buffer(rows * k * 4), 0, rows * k),
    score: new Float64Array(buffer(rows * k * 8), 0, rows * k),
    overqualified: new Uint8Array(buffer(rows * k), 0, rows * k),
    criticalRatio: new Float64Array(buffer(rows * k * 8), 0, rows * k),
    above: new Int32Array(buffer(rows * 4), 0, rows),
  }
}

/**
 * Makes what this thread needs to score jobs of `data` (the posting kernel), so that the first
 * scorer does not; a scorer makes it itself otherwise.
 */
export function prepareJobScoring(data: JobMatchData): void {
  postingKernel(data.postings, data.employeeCount)
}

/**
 * Top-k employees per job by the scoring model (scoring-model.ts, section 1), exactly, over the
 * inverted index (skill → employees, job-index.ts).
 *
 * Per job, in three steps:
 * 1. Bounds. Every posting of the job's skills adds an upper bound of its term, w · h⁺ · f, to
 *    its employee's bound, in units of Σw: h⁺ is the strength rounded up to the index's step
 *    (a posting is one 32-bit word: employee, strength in steps), so the walk streams 4 bytes a
 *    posting, without a branch, in WebAssembly (kernel/posting-kernel.ts). A skill's postings are
 *    grouped by level, so f (which depends on the level) is one number for a group, and the
 *    groups whose f is 1 are walked together (`levelRuns`).
 * 2. Candidates. Only an employee in the posting lists of the heaviest skills, those while the
 *    weight still to come reaches the bar θ, can reach it. Those lists are walked last, and each
 *    bound is tested as it grows: an employee is taken once its bound reaches the bar (bounds
 *    only grow, so none is missed). Once k matches are kept, the bar rises to the k-th score. A
 *    bar below PRIMED_BELOW first walks every list, then scores the best bounds of the heaviest
 *    list (`prime`) so that the bar rises before the scan meets the many employees it lets in.
 * 3. Exact scores. A candidate's score is summed again from its own profile, the job's skills in
 *    the model's canonical order, so that it equals `scoreCoverage` to the last bit (and the
 *    scores of the scorer before this one, which summed the same terms in the same order); the
 *    critical ratio and overqualification come from the same pass. Filters apply before a match
 *    is kept, so the k kept are the k best of those the filters pass, ties by employee number.
 * The bar is lowered by 1e-9 (and by what single precision may cost the bounds), so rounding
 * never loses a tie. The bounds being within a step (1/4,095) of the scores, few candidates are
 * scored in vain (docs/benchmarks.md gives the counts on the benchmark's tenant).
 */
export class JobCandidateScorer {
  /** The posting loops (bounds, candidates) of this thread for the index. */
  private readonly kernel: PostingKernel
  /** The employees' profile rows, interleaved (see `HeldProfiles`). */
  private readonly held: Float64Array
  private readonly factors: Float64Array
  /** Per skill: its row in the job being scored (relative to the job's first row), or −1. */
  private readonly rowOfSkill: Int32Array
  /** Per job row: the candidate's profile row holding its skill, or −1. */
  private readonly heldAt: Int32Array
  private readonly topEmployee: Int32Array
  private readonly topScore: Float64Array
  private readonly topOver: Uint8Array
  private readonly topRatio: Float64Array
  /** The heap of `prime`: 2k bounds and their employees. */
  private readonly primeBound: Float64Array
  private readonly primeEmployee: Int32Array
  /** The runs of one row's postings (levelRuns): first, end, factor. */
  private readonly runs = new Float64Array(3 * LEVEL_SLOTS)
  private count = 0
  /** The matches above `countAbove` of the job being scored. */
  private above = 0
  /** `countAbove`, +∞ when not asked. */
  private readonly countAbove: number
  private ratio = 1
  private over = 0

  constructor(
    private readonly data: JobMatchData,
    /** 1 for employees the job-independent filters keep. */
    private readonly mask: Uint8Array,
    private readonly params: JobScoringParams,
    private readonly pairFilter?: PairFilter,
  ) {
    const { jobs } = data
    let widest = 0
    for (let job = 0; job < data.jobCount; job++) {
      widest = Math.max(widest, (jobs.start[job + 1] as number) - (jobs.start[job] as number))
    }
    this.kernel = postingKernel(data.postings, data.employeeCount)
    this.held = data.employees.held
    this.factors = proficiencyFactorTable(params.proficiencyMatching)
    this.rowOfSkill = new Int32Array(data.skillCount).fill(-1)
    this.heldAt = new Int32Array(widest).fill(-1)
    const k = Math.max(1, params.k)
    this.topEmployee = new Int32Array(k)
    this.topScore = new Float64Array(k)
    this.topOver = new Uint8Array(k)
    this.topRatio = new Float64Array(k)
    this.primeBound = new Float64Array(2 * k)
    this.primeEmployee = new Int32Array(2 * k)
    this.countAbove = params.countAbove ?? Number.POSITIVE_INFINITY
  }

  /** The top matches of job `job`. */
  score(job: number): JobTopMatches {
    const count = this.rank(job)
    return {
      candidates: this.topEmployee.slice(0, count),
      scores: this.topScore.slice(0, count),
      overqualified: this.topOver.slice(0, count),
      criticalRatio: this.topRatio.slice(0, count),
      above: this.above,
    }
  }

  /** Scores job `job` into slot `slot` of `table`. */
  scoreInto(job: number, table: JobMatchesTable, slot: number): void {
    const count = this.rank(job)
    const at = slot * table.k
    table.count[slot] = count
    table.above[slot] = this.above
    for (let rank = 0; rank < count; rank++) {
      table.candidate[at + rank] = this.topEmployee[rank] as number
      table.score[at + rank] = this.topScore[rank] as number
      table.overqualified[at + rank] = this.topOver[rank] as number
      table.criticalRatio[at + rank] = this.topRatio[rank] as number
    }
  }

  /** Ranks job `job`'s matches into the top arrays; returns how many there are. */
  private rank(job: number): number {
    const { jobs, postings } = this.data
    const from = jobs.start[job] as number
    const to = jobs.start[job + 1] as number
    const total = jobs.total[job] as number
    this.count = 0
    this.above = 0
    if (to === from || !(total > 0)) return 0
    const kernel = this.kernel
    // Bounds are in units of the job's weight, summed in single precision. The bar is lowered by
    // 1e-9 (rounding never loses a tie) and by what single precision may cost a bound: half an
    // ulp for each row's sum, the rounding of the factors and of their products (2^-24 of the
    // bound each), doubled.
    const slack = 1e-9 + (to - from + 2) * 2 ** -23 * postings.strengthMax
    let bar = this.params.threshold - slack
    const admitting = this.admittingEnd(from, to, total, bar)
    const rowOfSkill = this.rowOfSkill
    for (let row = from; row < to; row++) rowOfSkill[jobs.skill[row] as number] = row - from
    // Until the walk has returned, the whole of the bounds is cleared afterwards.
    let walked = Number.POSITIVE_INFINITY
    try {
      const start = postings.start
      const found = kernel.found
      const mask = this.mask
      const k = this.params.k
      const take = (taken: number) => {
        for (let index = 0; index < taken; index++) {
          const employee = found[index] as number
          if (mask[employee] === 1 && this.consider(job, from, to, employee, total)) {
            const kth = Math.min(this.topScore[k - 1] as number, this.countAbove) - slack
            if (kth > bar) bar = kth
          }
        }
      }
      if (bar < PRIMED_BELOW) {
        // A low bar: every bound first, then the best of the heaviest list, then the scan of the
        // rows that can still bring in a candidate. The bar rises as the top k fills: the scan
        // ends at the first row whose weight from it on no longer reaches it.
        walked = this.walk(from, to, total)
        if (admitting > from) bar = this.prime(job, from, to, total, bar, slack)
        let remaining = postings.strengthMax
        for (let row = from; row < admitting && remaining >= bar; row++) {
          const skill = jobs.skill[row] as number
          const end = start[skill + 1] as number
          for (let p = start[skill] as number; p < end; p += SCAN_CHUNK) {
            take(kernel.scan(p, Math.min(end, p + SCAN_CHUNK), bar))
          }
          remaining -= ((jobs.weight[row] as number) / total) * postings.strengthMax
        }
      } else {
        // The rows that cannot bring in a candidate first; then the others, walked and scanned in
        // one pass (a bound that reaches the bar on the way is taken then).
        let count = this.walk(admitting, to, total)
        const unit = postings.strengthMax / postings.strengthSteps / total
        const runs = this.runs
        for (let row = from; row < admitting; row++) {
          const skill = jobs.skill[row] as number
          count += (start[skill + 1] as number) - (start[skill] as number)
          const runCount = this.levelRuns(row, unit)
          for (let run = 0; run < runCount; run++) {
            const end = runs[3 * run + 1] as number
            const factor = runs[3 * run + 2] as number
            for (let p = runs[3 * run] as number; p < end; p += SCAN_CHUNK) {
              take(kernel.walkScan(p, Math.min(end, p + SCAN_CHUNK), factor, bar))
            }
          }
        }
        walked = count
      }
    } finally {
      this.clearJob(from, to, walked)
    }
    return this.count
  }

  /**
   * The end of the rows that can bring in a candidate: rows [from, end) are those from which on
   * the job's weight still reaches the bar.
   */
  private admittingEnd(from: number, to: number, total: number, bar: number): number {
    const { jobs, postings } = this.data
    let still = postings.strengthMax
    let admitting = from
    while (admitting < to && still >= bar) {
      still -= ((jobs.weight[admitting] as number) / total) * postings.strengthMax
      admitting++
    }
    return admitting
  }

  /** Leaves the per-job state as it was before job rows [from, to) were ranked. */
  private clearJob(from: number, to: number, walked: number): void {
    const { jobs } = this.data
    const kernel = this.kernel
    for (let row = from; row < to; row++) this.rowOfSkill[jobs.skill[row] as number] = -1
    // A sequential fill when that is cheaper than clearing the walked postings one by one.
    if (walked > kernel.bounds.length >>> 3) kernel.bounds.fill(0)
    else for (let row = from; row < to; row++) kernel.clear(jobs.skill[row] as number)
  }

  /**
   * Raises a low bar early: the employees with the highest bounds in the heaviest skill's list
   * (at most 2k of them) are scored first, so that the top k fills with good matches and its k-th
   * score becomes the bar before the scan meets the many employees a low bar lets through. They
   * are taken like any candidate (the scan skips them); returns the bar after them.
   */
  private prime(job: number, from: number, to: number, total: number, bar: number, slack: number): number {
    const { jobs, postings } = this.data
    const bounds = this.kernel.bounds
    const entry = postings.entry
    const shift = postings.shift
    const skill = jobs.skill[from] as number
    const heapBound = this.primeBound
    const heapEmployee = this.primeEmployee
    const size = heapBound.length
    let count = 0
    // A min-heap of the highest bounds so far.
    for (let p = postings.start[skill] as number; p < (postings.start[skill + 1] as number); p++) {
      const employee = (entry[p] as number) >>> shift
      const bound = bounds[employee] as number
      if (!(bound >= bar) || this.mask[employee] === 0) continue
      let at: number
      if (count < size) {
        at = count++
        while (at > 0) {
          const parent = (at - 1) >>> 1
          if ((heapBound[parent] as number) <= bound) break
          heapBound[at] = heapBound[parent] as number
          heapEmployee[at] = heapEmployee[parent] as number
          at = parent
        }
      } else {
        if (bound <= (heapBound[0] as number)) continue
        at = 0
        for (;;) {
          let child = 2 * at + 1
          if (child >= size) break
          if (child + 1 < size && (heapBound[child + 1] as number) < (heapBound[child] as number)) child++
          if ((heapBound[child] as number) >= bound) break
          heapBound[at] = heapBound[child] as number
          heapEmployee[at] = heapEmployee[child] as number
          at = child
        }
      }
      heapBound[at] = bound
      heapEmployee[at] = employee
    }
    const k = this.params.k
    let raised = bar
    for (let index = 0; index < count; index++) {
      const employee = heapEmployee[index] as number
      bounds[employee] = Number.NEGATIVE_INFINITY
      if (this.consider(job, from, to, employee, total)) {
        const kth = Math.min(this.topScore[k - 1] as number, this.countAbove) - slack
        if (kth > raised) raised = kth
      }
    }
    return raised
  }

  /**
   * Adds the upper bounds of rows [from, to) to their employees' bounds, in units of `total`;
   * returns the postings walked.
   */
  private walk(from: number, to: number, total: number): number {
    const { jobs, postings } = this.data
    const unit = postings.strengthMax / postings.strengthSteps / total
    const runs = this.runs
    let walked = 0
    for (let row = from; row < to; row++) {
      const skill = jobs.skill[row] as number
      walked += (postings.start[skill + 1] as number) - (postings.start[skill] as number)
      const runCount = this.levelRuns(row, unit)
      for (let run = 0; run < runCount; run++) {
        this.kernel.walk(runs[3 * run] as number, runs[3 * run + 1] as number, runs[3 * run + 2] as number)
      }
    }
    return walked
  }

  /**
   * The postings of job row `row`'s skill as runs of one factor (w · f⁺(level) · `unit`): groups
   * of neighbouring levels whose factor is the same are one run. Left in `runs` as (first, end,
   * factor) triples; returns how many, empty groups left out.
   */
  private levelRuns(row: number, unit: number): number {
    const { jobs, postings } = this.data
    const factors = this.factors
    const runs = this.runs
    const weight = (jobs.weight[row] as number) * unit
    const required = jobs.required[row] as number
    const base = (jobs.skill[row] as number) * LEVEL_SLOTS
    let count = 0
    let first = postings.levelStart[base] as number
    let runFactor = Number.NaN
    for (let slot = 0; slot < LEVEL_SLOTS; slot++) {
      const level = slot < 5 ? slot + 1 : 0
      // Levels outside the model's table bound with f = 1.
      const factor = weight * (required < 6 ? (factors[required * 6 + level] as number) : 1)
      const end = postings.levelStart[base + slot + 1] as number
      if (count > 0 && factor === runFactor) {
        runs[3 * count - 2] = end
      } else if (end > first) {
        runs[3 * count] = first
        runs[3 * count + 1] = end
        runs[3 * count + 2] = factor
        runFactor = factor
        count++
      }
      first = end
    }
    return count
  }

  /**
   * Scores one candidate exactly and keeps it when it belongs in the top k (score ≥ threshold and
   * > 0, the pair filter, the critical ratio, overqualification), counting it when it scores
   * above `countAbove` and the filters keep it; true when the top k is full.
   */
  private consider(job: number, from: number, to: number, employee: number, total: number): boolean {
    const params = this.params
    const k = params.k
    const score = roundScore(this.exactSum(from, to, employee) / total)
    if (score < params.threshold || score <= 0) return false
    const topScore = this.topScore
    const topEmployee = this.topEmployee
    let count = this.count
    const counted = score > this.countAbove
    let outside = false
    if (count === k) {
      const last = topScore[k - 1] as number
      outside = score < last || (score === last && employee > (topEmployee[k - 1] as number))
      if (outside && !counted) return true
    }
    if (this.pairFilter !== undefined && !this.pairFilter(job, employee)) return count === k
    if (params.minCriticalRatio !== null && this.ratio < params.minCriticalRatio - 1e-12) return count === k
    if (params.excludeOverqualified && this.over === 1) return count === k
    if (counted) this.above++
    if (outside) return true
    let at = count < k ? count++ : k - 1
    while (at > 0) {
      const before = topScore[at - 1] as number
      if (before > score || (before === score && (topEmployee[at - 1] as number) < employee)) break
      topScore[at] = before
      topEmployee[at] = topEmployee[at - 1] as number
      this.topOver[at] = this.topOver[at - 1] as number
      this.topRatio[at] = this.topRatio[at - 1] as number
      at--
    }
    topScore[at] = score
    topEmployee[at] = employee
    this.topOver[at] = this.over
    this.topRatio[at] = this.ratio
    this.count = count
    return count === k
  }

  /**
   * S_skills · Σw of one employee for the job's rows [from, to), summed in the canonical order
   * (the rows' order), with the critical ratio and overqualification of the pair (scoring-model.ts,
   * section 1) left in `ratio` and `over`.
   */
  private exactSum(from: number, to: number, employee: number): number {
    const { jobs, employees } = this.data
    const params = this.params
    const rowOfSkill = this.rowOfSkill
    const heldAt = this.heldAt
    const factors = this.factors
    const held = this.held
    const first = employees.start[employee] as number
    const last = employees.start[employee + 1] as number
    for (let own = first; own < last; own++) {
      const row = rowOfSkill[(held[2 * own] as number) >> 3] as number
      if (row >= 0) heldAt[row] = own
    }
    let sum = 0
    let critical = 0
    let criticalHeld = 0
    let leveled = 0
    let over = 0
    for (let row = from; row < to; row++) {
      const own = heldAt[row - from] as number
      const required = jobs.required[row] as number
      const isCritical = params.useCriticalities && jobs.critical[row] === 1
      const isLeveled = params.proficiencyMatching && required > 0
      if (isCritical) critical++
      if (isLeveled) leveled++
      if (own < 0) continue
      heldAt[row - from] = -1
      const level = (held[2 * own] as number) & 7
      const factor = factors[required * 6 + level] as number
      sum += (jobs.weight[row] as number) * (held[2 * own + 1] as number) * factor
      if (isCritical) criticalHeld += factor
      if (isLeveled && level > required) over++
    }
    this.ratio = critical > 0 ? criticalHeld / critical : 1
    this.over = leveled > 0 && over === leveled ? 1 : 0
    return sum
  }
}
