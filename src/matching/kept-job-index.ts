import { createHash } from 'node:crypto'
import { readdirSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { writeFileAtomic } from '../util/atomic-file.js'
import { type KeptArray, packArrays, readKeptArrays } from '../util/kept-arrays.js'
import { moduleSource } from '../util/module-source.js'
import type { JobIndex, JobMatchData } from './job-index.js'

/**
 * The job matching index kept beside the database for the next process, as the compiled
 * vocabulary is: a later `match jobs`, the nightly job's export or a restarted server whose data
 * has not changed since the index was built loads it (a read of typed arrays) instead of reading
 * every profile out of DuckDB again (many times slower; docs/benchmarks.md). It is a cache:
 * - used only when built from the same data (the stamp the in-memory index is kept by), for the
 *   same vendor and scoring features, by the same code (a hash of the modules that build and
 *   read it): anything else, or a file cut short, is built again and written over;
 * - safe to delete at any time;
 * - deleted, with every kept index of the database, when an employee is deleted: it holds the
 *   employees' ids and skill profiles.
 */

/** The file of one index key (vendor and features) of a database. */
function keptFile(databasePath: string, key: string): string {
  return `${databasePath}.${encodeURIComponent(key)}${SUFFIX}`
}

const SUFFIX = '.job-index'

/** Writes `index` for later processes; a failure only costs building it again next time. */
export function keepJobIndex(databasePath: string, key: string, index: JobIndex): boolean {
  const { employees, postings, jobs } = index.data
  const header = headerOf(index, key)
  const arrays: KeptArray[] = [
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
    writeFileAtomic(keptFile(databasePath, key), packArrays(header, arrays))
    return true
  } catch {
    return false
  }
}

/** The index kept for `key` when it was built from data of `stamp` by this code; else undefined. */
export function keptJobIndex(databasePath: string, key: string, stamp: string): JobIndex | undefined {
  const started = performance.now()
  const kept = readKeptArrays(keptFile(databasePath, key))
  if (!kept) return undefined
  const header = kept.header as Partial<ReturnType<typeof headerOf>>
  if (header.code !== codeStamp() || header.key !== key || header.stamp !== stamp) return undefined
  const [
    employeeStart,
    held,
    postingStart,
    levelStart,
    entry,
    jobStart,
    jobSkill,
    weight,
    required,
    jobCritical,
    total,
    leveled,
    criticalCount,
    lowData,
  ] = kept.arrays as [
    Int32Array,
    Float64Array,
    Int32Array,
    Int32Array,
    Uint32Array,
    Int32Array,
    Int32Array,
    Float64Array,
    Uint8Array,
    Uint8Array,
    Float64Array,
    Int32Array,
    Int32Array,
    Uint8Array,
  ]
  const [employeeCount, jobCount, skillCount, profileCount] = header.counts ?? []
  const [shift, strengthSteps, strengthMax] = header.postings ?? []
  if (
    kept.arrays.length !== 14 ||
    !Array.isArray(header.employeeIds) ||
    !Array.isArray(header.jobIds) ||
    !Array.isArray(header.skillIds) ||
    header.employeeIds.length !== employeeCount ||
    header.jobIds.length !== jobCount ||
    header.skillIds.length !== skillCount ||
    employeeStart.length !== (profileCount as number) + 1 ||
    held.length !== 2 * (employeeStart[profileCount as number] ?? 0) ||
    jobStart.length !== (jobCount as number) + 1 ||
    levelStart.length !== (skillCount as number) * 6 + 1
  )
    return undefined
  const data: JobMatchData = {
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
  return {
    vendor: header.vendor as JobIndex['vendor'],
    features: header.features as JobIndex['features'],
    employeeIds: header.employeeIds,
    jobIds: header.jobIds,
    skillIds: header.skillIds,
    data,
    lowData,
    stamp,
    source: 'kept',
    seconds: (performance.now() - started) / 1000,
  }
}

/** What identifies a kept index, and what its arrays hold. */
function headerOf(index: JobIndex, key: string) {
  const { data } = index
  return {
    code: codeStamp(),
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

/** Per database: how many times its kept indexes were forgotten (see `keptIndexGeneration`). */
const forgotten = new Map<string, number>()

/**
 * A number that moves whenever the kept indexes of a database are forgotten: a build that began
 * before (and read an employee deleted since) does not keep its index when the number moved.
 */
export const keptIndexGeneration = (databasePath: string) => forgotten.get(databasePath) ?? 0

/** Deletes every job index kept beside a database (its employees' ids and profiles go with them). */
export function forgetKeptJobIndexes(databasePath: string): void {
  forgotten.set(databasePath, keptIndexGeneration(databasePath) + 1)
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

let stamp: string | undefined

/** What a kept index depends on besides the data: the code that builds, weighs and reads it. */
function codeStamp(): string {
  if (stamp === undefined) {
    const hash = createHash('sha1')
    for (const module of ['job-index', 'profile-columns', 'scoring-model', 'kept-job-index']) {
      hash.update(moduleSource(module, import.meta.url))
    }
    stamp = hash.digest('base64url')
  }
  return stamp
}
