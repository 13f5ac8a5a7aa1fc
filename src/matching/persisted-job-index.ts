import { readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { writeFileAtomic } from '../util/atomic-file.js'
import { codeStamp } from '../util/module-source.js'
import { type PackedArray, packArrays, readPackedArrays } from '../util/packed-arrays.js'
import type { JobIndex, JobMatchData } from './job-match-data.js'

/**
 * The job matching index persisted to a file beside the database for the next process, as the
 * compiled vocabulary is: a later `match jobs`, the nightly job's export or a restarted server whose data
 * has not changed since the index was built loads it (a read of typed arrays) instead of reading
 * every profile out of DuckDB again (many times slower; docs/benchmarks.md). It is a cache:
 * - used only when built from the same data (the stamp the in-memory index is kept by), for the
 *   same vendor and scoring features, by the same code (a hash of the modules that build and
 *   read it): anything else, or a file cut short, is built again and written over;
 * - safe to delete at any time;
 * - deleted, with every persisted index of the database, when an employee is deleted: it holds the
 *   employees' ids and skill profiles.
 */

/** The file of one index key (vendor and features) of a database. */
function persistedFile(databasePath: string, key: string): string {
  return `${databasePath}.${encodeURIComponent(key)}${SUFFIX}`
}

const SUFFIX = '.job-index'

/** The arrays of an index, in the order the file holds them. */
type IndexArrays = [
  employeeStart: Int32Array,
  held: Float64Array,
  postingStart: Int32Array,
  levelStart: Int32Array,
  entry: Uint32Array,
  jobStart: Int32Array,
  jobSkill: Int32Array,
  weight: Float64Array,
  required: Uint8Array,
  jobCritical: Uint8Array,
  total: Float64Array,
  leveled: Int32Array,
  criticalCount: Int32Array,
  lowData: Uint8Array,
]

/** Writes `index` for later processes; a failure only costs building it again next time. */
export function persistJobIndex(databasePath: string, key: string, index: JobIndex): boolean {
  const { employees, postings, jobs } = index.data
  const header = headerOf(index, key)
  const arrays: IndexArrays = [
    employees.start,
    employees.held,
    postings.start,
    postings.levelStart,
    postings.entry,
    jobs.start,
    jobs.skill,
    jobs.weight,
    jobs.required,
    jobs.critical,
    jobs.total,
    jobs.leveled,
    jobs.criticalCount,
    index.lowData,
  ]
  try {
    writeFileAtomic(persistedFile(databasePath, key), packArrays(header, arrays))
    return true
  } catch {
    return false
  }
}

/** The index persisted for `key` when it was built from data of `stamp` by this code; else undefined. */
export function persistedJobIndex(databasePath: string, key: string, stamp: string): JobIndex | undefined {
  const started = performance.now()
  const file = readPackedArrays(persistedFile(databasePath, key))
  if (!file) return undefined
  const header = file.header as Partial<IndexHeader>
  if (header.code !== indexCodeStamp() || header.key !== key || header.stamp !== stamp) return undefined
  if (!isWhole(header, file.arrays)) return undefined
  const arrays = file.arrays as IndexArrays
  return {
    vendor: header.vendor as JobIndex['vendor'],
    features: header.features as JobIndex['features'],
    employeeIds: header.employeeIds as string[],
    jobIds: header.jobIds as string[],
    skillIds: header.skillIds as string[],
    data: matchDataOf(header, arrays),
    lowData: arrays[13],
    stamp,
    source: 'kept',
    seconds: (performance.now() - started) / 1000,
  }
}

/** Whether the header's counts agree with each other and with the arrays' lengths. */
function isWhole(header: Partial<IndexHeader>, arrays: readonly PackedArray[]): boolean {
  const employeeStart = arrays[0] as Int32Array
  const held = arrays[1] as Float64Array
  const jobStart = arrays[5] as Int32Array
  const [employeeCount, jobCount, skillCount, profileCount] = header.counts ?? []
  return !(
    arrays.length !== 14 ||
    !Array.isArray(header.employeeIds) ||
    !Array.isArray(header.jobIds) ||
    !Array.isArray(header.skillIds) ||
    header.employeeIds.length !== employeeCount ||
    header.jobIds.length !== jobCount ||
    header.skillIds.length !== skillCount ||
    employeeStart.length !== (profileCount as number) + 1 ||
    held.length !== 2 * (employeeStart[profileCount as number] ?? 0) ||
    jobStart.length !== (jobCount as number) + 1 ||
    (arrays[3] as Int32Array).length !== (skillCount as number) * 6 + 1
  )
}

/** The scorer's arrays of a whole file (see `isWhole`). */
function matchDataOf(header: Partial<IndexHeader>, arrays: IndexArrays): JobMatchData {
  const [employeeStart, held, postingStart, levelStart, entry, jobStart, jobSkill] = arrays
  const [weight, required, jobCritical, total, leveled, criticalCount] = arrays.slice(7, 13) as [
    Float64Array,
    Uint8Array,
    Uint8Array,
    Float64Array,
    Int32Array,
    Int32Array,
  ]
  const [employeeCount, jobCount, skillCount, profileCount] = header.counts as number[]
  const [shift, strengthSteps, strengthMax] = header.postings as number[]
  return {
    employeeCount: employeeCount as number,
    jobCount: jobCount as number,
    skillCount: skillCount as number,
    employees: { count: profileCount as number, start: employeeStart, held },
    postings: {
      start: postingStart,
      levelStart,
      entry,
      shift: shift as number,
      strengthSteps: strengthSteps as number,
      strengthMax: strengthMax as number,
    },
    jobs: {
      start: jobStart,
      skill: jobSkill,
      weight,
      required,
      critical: jobCritical,
      total,
      leveled,
      criticalCount,
    },
  }
}

type IndexHeader = ReturnType<typeof headerOf>

/** What identifies a persisted index, and what its arrays hold. */
function headerOf(index: JobIndex, key: string) {
  const { data } = index
  return {
    code: indexCodeStamp(),
    key,
    stamp: index.stamp,
    vendor: index.vendor,
    features: index.features,
    employeeIds: index.employeeIds,
    jobIds: index.jobIds,
    skillIds: index.skillIds,
    counts: [data.employeeCount, data.jobCount, data.skillCount, data.employees.count],
    postings: [data.postings.shift, data.postings.strengthSteps, data.postings.strengthMax],
  }
}

/** Per database: how many times its persisted indexes were deleted (see `persistedIndexGeneration`). */
const deleted = new Map<string, number>()

/**
 * A number that moves whenever the persisted indexes of a database are deleted: a build that
 * began before (and read an employee deleted since) does not persist its index when the number
 * moved.
 */
export const persistedIndexGeneration = (databasePath: string) => deleted.get(databasePath) ?? 0

/** Deletes every job index persisted beside a database (its employees' ids and profiles go with them). */
export function deletePersistedJobIndexes(databasePath: string): void {
  deleted.set(databasePath, persistedIndexGeneration(databasePath) + 1)
  const prefix = `${basename(databasePath)}.`
  let files: string[]
  try {
    files = readdirSync(dirname(databasePath))
  } catch {
    return
  }
  for (const file of files) {
    if (file.startsWith(prefix) && file.endsWith(SUFFIX))
      rmSync(join(dirname(databasePath), file), { force: true })
  }
}

/** What a persisted index depends on besides the data: the code that builds, weighs and reads it, and all it imports. */
const indexCodeStamp = () =>
  codeStamp(['job-index', 'job-match-data', 'persisted-job-index'], import.meta.url)
