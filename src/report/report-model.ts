import type { EventsDatedAfter } from '../entities/skill-event-store.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'

/**
 * What the report says, section by section, as plain data: gathered from the tenant by the
 * library functions the API answers with (gather-*.ts), then rendered as HTML (render-html.ts)
 * and as a workbook (render-workbook.ts). A section that has nothing to show carries a `notice`
 * saying why, in plain words, instead of its figures.
 */
export interface ReportData {
  tenant: string
  vendor: ExternalVendor
  language: VocabLanguage
  /** BCP 47 locale numbers and dates are written in. */
  locale: string
  /** The date the report speaks of (YYYY-MM-DD). */
  as_of: string
  generated_at: string
  overview: Overview
  organisation: Section<OrganisationHeatmap>
  supply: Section<SupplyDemand>
  mobility: Section<Mobility>
  bench: Section<BenchStrength>
  quality: DataQuality
}

/** A section's figures, or why there are none. */
export type Section<T> = { notice: string } | ({ notice?: undefined } & T)

export interface Overview {
  employees: number
  jobs: number
  vacancies: number
  open_vacancies: number
  /** Distinct skills held by at least one employee's profile. */
  skills_in_use: number
  /** From the organisational export (4.6): employees placed in a unit, and those of them with low data. */
  employees_in_units: number
  low_data_in_units: number
  /** Employees with a derived profile of the vendor. */
  employees_with_profile: number
  /**
   * Skills held by employees' profiles, per level (governed, else inferred): what the overview
   * charts when no employee sits in an organisational unit to count low data availability by.
   */
  skills_by_level: { level: number; held: number }[]
  /** Latest skill event date, and when data was last ingested; null when there is none. */
  latest_event: string | null
  last_ingest: string | null
  /** The as-of date of the last derivation and when it ran; null before the first. */
  derived_as_of: string | null
  derived_at: string | null
}

export interface HeatmapGroup {
  external_id: string
  name: string
  /** Employees of the whole organisation (roots' subtrees) holding the group at level 3 or more. */
  holders: number
}

export interface HeatmapUnit {
  external_id: string
  name: string
  /** 1 for a root unit. */
  depth: number
  /** total_nr_of_employees of the organisational export (4.6): the unit and every unit below it. */
  employees: number
  /** Per group of `groups` (same order): employees of the subtree holding it at level 3 or more. */
  holders: number[]
}

export interface OrganisationHeatmap {
  group_by: 'skill_cluster' | 'subdomain'
  /**
   * What the rows are: organisational units; or, for a tenant whose employees sit in no unit, all
   * employees (depth 1) and their jobs below (depth 2).
   */
  rows_by: 'units' | 'jobs'
  depth: number
  /** Every group some employee holds at level 3 or more, most held first. */
  groups: HeatmapGroup[]
  /** How many of `groups` the chart shows (the most held); the workbook has them all. */
  charted_groups: number
  units: HeatmapUnit[]
  /** Employees that belong to no unit (in no row). */
  employees_without_unit: number
}

export interface SupplyDemandSkill {
  skill_id: string
  skill_name: string
  /** Open vacancies whose profile asks for the skill. */
  open_vacancies: number
  /** Jobs whose profile asks for it: shown beside, not counted as demand (their roles are mostly filled). */
  jobs: number
  /** The open vacancies asking for it. */
  demand: number
  /** The median level the open vacancies ask (the lower one of an even count); null when no level is known. */
  asked_level: number | null
  /** Employees holding the skill at the asked level (the rule of the 4.5 gap). */
  holders: number
  /** demand − holders: positive when more open vacancies ask for it than employees hold it. */
  shortage: number
}

export interface SupplyDemand {
  skills: SupplyDemandSkill[]
}

export interface GapSkill {
  skill_id: string
  skill_name: string
}

export interface MobilityVacancy {
  vacancy_id: string
  title: string
  /** The best internal candidates by their 4.11 score, best first. */
  candidates: { employee_id: string; score: number }[]
  /** Candidates whose score, shown with two decimals, is `strong_score` or above. */
  strong_candidates: number
  /** The 4.5 gap of the best candidate; empty when there is none. */
  best_gap: GapSkill[]
}

export interface Mobility {
  strong_score: number
  /** Vacancies with no candidate first, then fewest strong candidates, then lowest best score. */
  vacancies: MobilityVacancy[]
}

export interface BenchJob {
  job_id: string
  title: string
  /** How many employees 4.10 returns for the job (at most `match_limit`). */
  matching: number
  /** The best of them; null when there is none. */
  best: { employee_id: string; score: number } | null
  critical_skills: number
  /** Critical skills of the job that fewer than two employees hold at the job's level. */
  thin_critical_skills: (GapSkill & { holders: number })[]
}

export interface BenchStrength {
  match_limit: number
  score_threshold: number
  /** Thinnest bench first (fewest matches, then most thin critical skills). */
  jobs: BenchJob[]
}

export interface DataQuality {
  /**
   * Per event type: stored events, and those whose text gave no skill to the employee's profile
   * (null for skill_profile_feedback, which carries no text: it validates or rejects a skill).
   */
  event_types: { event_type: string; events: number; without_skill: number | null }[]
  /** Whether profiles exist to judge `without_skill` by (no derivation: it is not known). */
  derived: boolean
  /** Skill events dated after the day profiles were derived as of: they count only from their dates on. */
  future_dated: EventsDatedAfter
  last_run: {
    run_id: string
    status: string
    finished_at: string | null
    rejected_rows: number
    files: { file: string; entity: string; rows_read: number; rows_rejected: number }[]
  } | null
}
