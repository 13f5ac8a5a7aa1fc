import { PROFICIENCY } from './employee-profile.js'

/**
 * What derivation derives again for one vendor, and why: a computation over plain data read
 * from the tenant's database (the last run's state, change sequences, what this run derived
 * already). It speaks no SQL; derive.ts reads what a selection names.
 */

/** The low-data horizon in whole days (employee-profile.ts: years of 365.25 days; days are whole). */
export const RECENT_DAYS = Math.floor(PROFICIENCY.recentYears * 365.25)

/** What the last run recorded (`derive_state`). */
export interface LastRun {
  last_seq: number
  /** Null before the first run. */
  last_as_of: string | null
  /** The vocabulary signature of each vendor at the last run. */
  vocabularies: Record<string, string>
}

/** Why a vendor's profiles are derived: all of them (for one of three reasons), or those whose inputs changed. */
export type ScopeReason = 'full_requested' | 'first_run' | 'vocabulary_changed' | 'inputs_changed'

export interface VendorScope {
  /** Every profile is derived again. */
  full: boolean
  /** Records and events with a change sequence above this one changed since the last run (-1: all). */
  since: number
  reason: ScopeReason
}

/** All profiles when asked to, on the first run, or when the vendor's vocabulary changed; else the changed ones. */
export function vendorScope(
  lastRun: LastRun,
  vendor: string,
  vocabularySignature: string,
  fullRequested: boolean,
): VendorScope {
  const reason: ScopeReason = fullRequested
    ? 'full_requested'
    : lastRun.last_as_of === null
      ? 'first_run'
      : lastRun.vocabularies[vendor] !== vocabularySignature
        ? 'vocabulary_changed'
        : 'inputs_changed'
  const full = reason !== 'inputs_changed'
  return { full, since: full ? -1 : lastRun.last_seq, reason }
}

/** A record as its change sequence tells it. */
export interface ChangeStamp {
  external_id: string
  change_seq: number
}

/** The ids of the records that changed after `since`, in the order given. */
export function changedAfter(records: readonly ChangeStamp[], since: number): string[] {
  return records.filter((record) => record.change_seq > since).map((record) => record.external_id)
}

/** Jobs to derive again: those changed after `changedAfter`, and those of a family whose record changed. */
export interface JobSelection {
  changedAfter: number
  ofFamilies: readonly string[]
}

export function jobSelection(scope: VendorScope, changedFamilies: readonly string[]): JobSelection {
  return { changedAfter: scope.since, ofFamilies: changedFamilies }
}

/** A job this run derived: whether its own record changed, and its family. */
export interface DerivedJob {
  job_family_id: string | null
  changed: boolean
}

/**
 * Why a family is derived again: its record changed; one of its jobs was derived again; or some
 * job's record changed, which may have moved the job out of a family (nothing records that, so
 * every family is derived again: they are few, and an unchanged profile changes nothing).
 */
export type FamilyReason = 'record_changed' | 'job_derived' | 'a_job_record_changed'

/** The families to derive again, in the order of `familyIds` (every family of the tenant), each with its reason. */
export function familiesToDerive(
  familyIds: Iterable<string>,
  changedFamilies: readonly string[],
  derivedJobs: readonly DerivedJob[],
): Map<string, FamilyReason> {
  const changed = new Set(changedFamilies)
  const ofDerivedJobs = new Set<string>()
  let jobRecordChanged = false
  for (const job of derivedJobs) {
    if (job.job_family_id) ofDerivedJobs.add(job.job_family_id)
    if (job.changed) jobRecordChanged = true
  }
  const families = new Map<string, FamilyReason>()
  for (const id of familyIds) {
    if (changed.has(id)) families.set(id, 'record_changed')
    else if (ofDerivedJobs.has(id)) families.set(id, 'job_derived')
    else if (jobRecordChanged) families.set(id, 'a_job_record_changed')
  }
  return families
}

/** Vacancies to derive again: those changed after `changedAfter`, and those of a job derived again. */
export interface VacancySelection {
  changedAfter: number
  ofJobs: readonly string[]
}

export function vacancySelection(scope: VendorScope, derivedJobs: readonly string[]): VacancySelection {
  return { changedAfter: scope.since, ofJobs: derivedJobs }
}

/**
 * Employees to derive again. `all` in a full run; otherwise those whose record or events changed
 * after `changedAfter`; those with events dated in (`dueAfter`, `dueUpTo`] (they came due, or with
 * an earlier as-of date stopped counting); those whose last event crossed the low-data horizon
 * (`horizonDays`) between the two dates; and, when jobs or courses were derived again
 * (`references`), those whose events name one of them, or whose working histories name a job
 * title only (a title stands for the nearest Job, which may now be another one).
 */
export type EmployeeSelection =
  | { all: true }
  | {
      all: false
      changedAfter: number
      dueAfter: string
      dueUpTo: string
      horizonDays: number
      references: { jobs: readonly string[]; courses: readonly string[] } | null
    }

export function employeeSelection(
  scope: VendorScope,
  lastAsOf: string | null,
  asOf: string,
  derivedJobs: readonly string[],
  derivedCourses: readonly string[],
): EmployeeSelection {
  if (scope.full) return { all: true }
  const previous = lastAsOf ?? asOf
  // Calendar dates as YYYY-MM-DD order as their text does.
  const [dueAfter, dueUpTo] = previous <= asOf ? [previous, asOf] : [asOf, previous]
  return {
    all: false,
    changedAfter: scope.since,
    dueAfter,
    dueUpTo,
    horizonDays: RECENT_DAYS,
    // Reading every event's content for a job or course id is the costly part: only when one was derived.
    references:
      derivedJobs.length > 0 || derivedCourses.length > 0
        ? { jobs: derivedJobs, courses: derivedCourses }
        : null,
  }
}
