import type { ExternalVendor } from '../schemas/vendors.js'
import type { ScoringFeatures } from './scoring-model.js'

/**
 * Skill → employees holding it (the inverted index). A skill's list is grouped by the level the
 * employees hold it at, in the order of LEVEL_SLOTS, each group by employee number, so that a job
 * row's factor (which depends on the level) is one number for a whole group. A posting is one
 * 32-bit word: the employee number, then the strength rounded *up* to a step of
 * `strengthMax / strengthSteps`. The scorer walks these words for upper bounds (4 bytes a
 * posting, so the postings of 3 M profile rows fit a 32 MB cache) and takes exact strengths from
 * the employees' own profiles.
 */
export interface Postings {
  /** Skill s's postings are [start[s], start[s + 1]). */
  start: Int32Array
  /** Level slot l of skill s (LEVEL_SLOTS) is [levelStart[s · 6 + l], levelStart[s · 6 + l + 1]). */
  levelStart: Int32Array
  entry: Uint32Array
  /** entry >>> shift is the employee number. */
  shift: number
  /** entry & strengthSteps is the strength in steps; also the number of steps of `strengthMax`. */
  strengthSteps: number
  /** The largest strength of any posting, at least 1. */
  strengthMax: number
}

/** Every job's weighted skills in canonical order (weight descending, then skill id). */
export interface WeightedJobs {
  start: Int32Array
  skill: Int32Array
  weight: Float64Array
  required: Uint8Array
  critical: Uint8Array
  /** Σ w per job. */
  total: Float64Array
  /** Per job: skills with a required level, and critical skills. */
  leveled: Int32Array
  criticalCount: Int32Array
}

/**
 * The employees' profile rows as the scorer reads them: per row the pair (skill · 8 + level,
 * strength), so that what scoring a candidate reads of its profile lies in a few neighbouring
 * cache lines rather than in three arrays; employee i's rows are [start[i], start[i + 1]).
 */
export interface HeldProfiles {
  count: number
  start: Int32Array
  held: Float64Array
}

/** What the job scorer reads: typed arrays only, shareable with worker threads. */
export interface JobMatchData {
  employeeCount: number
  jobCount: number
  skillCount: number
  employees: HeldProfiles
  postings: Postings
  jobs: WeightedJobs
}

/** The in-memory index of job matching for one tenant, vendor and feature set. */
export interface JobIndex {
  vendor: ExternalVendor
  features: ScoringFeatures
  employeeIds: string[]
  jobIds: string[]
  skillIds: string[]
  data: JobMatchData
  /** Per employee: 1 when the profile has low data availability. */
  lowData: Uint8Array
  /** What the index was built from; a different stamp means rebuild. */
  stamp: string
  /** Loaded on first use (the last_updated filter). */
  employeeUpdatedAt?: Float64Array
  /**
   * How it was made: read from DuckDB ('built'), or loaded from the file a process persisted it in
   * ('kept', as `index_source` reports it).
   */
  source: 'built' | 'kept'
  seconds: number
}
