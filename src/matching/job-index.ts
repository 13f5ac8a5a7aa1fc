import type { ExternalVendor } from '../schemas/vendors.js'
import { StampedCache, stampedIndex } from '../store/stamped-cache.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { HeldProfiles, JobIndex, JobMatchData, Postings, WeightedJobs } from './job-match-data.js'
import { persistedIndexGeneration, persistedJobIndex, persistJobIndex } from './persisted-job-index.js'
import {
  entityIds,
  interleaved,
  lowDataFlags,
  type ProfileColumns,
  readProfileColumns,
  sharedFloat64,
  sharedInt32,
  sharedUint8,
  sharedUint32,
  updatedAt,
  withSkillNumbering,
} from './profile-columns.js'
import {
  canonicalOrder,
  featuresKey,
  type ScoringFeatures,
  specificity,
  targetSkillWeight,
  type WeightedTargetSkill,
} from './scoring-model.js'

const cache = new StampedCache<JobIndex>()

/**
 * The job matching index of a tenant: built on first use (employees' and jobs' profiles into
 * typed arrays, the inverted index, the job skills' weights), or loaded from the file a process
 * persisted it in when the data has not changed since (persisted-job-index.ts), and cached in
 * memory while the database is open and its data unchanged, so that paging through 4.10 does not
 * rebuild it per page. A caller that knows a version of the data which moves whenever anything may have written (the server's
 * reads, `dataVersion`) is answered without asking the database for its stamp while it holds.
 */
export async function jobIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  features: ScoringFeatures,
  dataVersion?: string,
): Promise<JobIndex> {
  const key = featuresKey(vendor, features)
  return stampedIndex(cache, database, key, dataVersion, ['employees', 'jobs', 'profiles'], async (stamp) => {
    const persisted = persistedJobIndex(database.path, key, stamp)
    if (persisted) return persisted
    const generation = persistedIndexGeneration(database.path)
    const built = await buildJobIndex(database, vendor, features, stamp)
    if (persistedIndexGeneration(database.path) === generation) persistJobIndex(database.path, key, built)
    return built
  })
}

async function buildJobIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  features: ScoringFeatures,
  stamp: string,
): Promise<JobIndex> {
  const started = performance.now()
  const employeeIds = await entityIds(database, 'employees')
  const jobIds = await entityIds(database, 'jobs')
  // Only the skills some job asks for are numbered: an employee's other skills cannot count (and
  // are not read).
  const { skillIds, employees, postings, jobProfiles, lowData } = await withSkillNumbering(
    database,
    vendor,
    ['jobs'],
    async (numbering) => {
      const employees = await readProfileColumns(database, 'employees', vendor, employeeIds, numbering, {
        held: true,
      })
      // The inverted index is made here while DuckDB reads the jobs' profiles and the flags.
      const rest = (async () => ({
        jobProfiles: await readProfileColumns(database, 'jobs', vendor, jobIds, numbering),
        lowData: await lowDataFlags(database, 'employees', vendor, employeeIds),
      }))()
      rest.catch(() => undefined)
      const postings = invert(employees, numbering.ids.length)
      return { skillIds: numbering.ids, employees, postings, ...(await rest) }
    },
  )
  const data: JobMatchData = {
    employeeCount: employeeIds.length,
    jobCount: jobIds.length,
    skillCount: skillIds.length,
    employees: heldProfiles(employees),
    postings,
    jobs: weighJobs(jobProfiles, skillIds, features),
  }
  const index: JobIndex = {
    vendor,
    features,
    employeeIds,
    jobIds,
    skillIds,
    data,
    lowData,
    stamp,
    source: 'built',
    seconds: (performance.now() - started) / 1000,
  }
  return index
}

/** The scorer's rows of profiles read as columns (those read with `held` are not laid out again). */
export function heldProfiles(columns: ProfileColumns): HeldProfiles {
  return { count: columns.count, start: columns.start, held: columns.held ?? interleaved(columns) }
}

/** How many jobs the tenant has (a job index numbers them all). */
export async function jobCount(database: TenantDatabase): Promise<number> {
  const row = await database.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM jobs')
  return row?.n ?? 0
}

/** The employees' last update times (epoch ms), loaded once per index. */
export async function employeeUpdateTimes(database: TenantDatabase, index: JobIndex): Promise<Float64Array> {
  index.employeeUpdatedAt ??= await updatedAt(database, 'employees', index.employeeIds)
  return index.employeeUpdatedAt
}

/** Employees a posting word can number (the rest of the word holds the strength). */
const MAX_EMPLOYEE_BITS = 28

/**
 * The groups of a skill's postings by level: levels 1–5, then 0 (unknown, or a level outside the
 * model). A job row's factor is 1 at its required level and above and at an unknown level, so
 * those groups are next to each other and walked in one call.
 */
export const LEVEL_SLOTS = 6

/** The level slot of a level code. */
export const levelSlot = (level: number) => (level >= 1 && level <= 5 ? level - 1 : 5)

/**
 * Builds skill → candidates from candidate → skills (a counting sort; lists come out by
 * candidate), each posting packed into one word (see Postings).
 */
export function invert(candidates: ProfileColumns, skillCount: number): Postings {
  const rows = candidates.skill.length
  const employeeBits = Math.max(1, 32 - Math.clz32(Math.max(1, candidates.count - 1)))
  if (employeeBits > MAX_EMPLOYEE_BITS) {
    throw new Error(
      `job matching indexes at most 2^${MAX_EMPLOYEE_BITS} employees; this tenant has ${candidates.count}`,
    )
  }
  const strengthBits = Math.min(12, 32 - employeeBits)
  const strengthSteps = 2 ** strengthBits - 1
  let strengthMax = 1
  for (let row = 0; row < rows; row++) {
    const strength = candidates.strength[row] as number
    if (strength > strengthMax && Number.isFinite(strength)) strengthMax = strength
  }
  // A counting sort by (skill, level slot); employees in order within each group.
  const groups = skillCount * LEVEL_SLOTS
  const levelStart = sharedInt32(groups + 1)
  for (let row = 0; row < rows; row++) {
    const group = (candidates.skill[row] as number) * LEVEL_SLOTS + levelSlot(candidates.level[row] as number)
    levelStart[group + 1] = (levelStart[group + 1] as number) + 1
  }
  for (let group = 0; group < groups; group++)
    levelStart[group + 1] = (levelStart[group + 1] as number) + (levelStart[group] as number)
  const start = sharedInt32(skillCount + 1)
  for (let skill = 0; skill <= skillCount; skill++) start[skill] = levelStart[skill * LEVEL_SLOTS] as number
  const fill = new Int32Array(groups)
  const entry = sharedUint32(rows)
  const shift = strengthBits
  for (let entity = 0; entity < candidates.count; entity++) {
    const to = candidates.start[entity + 1] as number
    for (let row = candidates.start[entity] as number; row < to; row++) {
      const group =
        (candidates.skill[row] as number) * LEVEL_SLOTS + levelSlot(candidates.level[row] as number)
      const position = (levelStart[group] as number) + (fill[group] as number)
      fill[group] = (fill[group] as number) + 1
      // Rounded up, so that steps · strengthMax / strengthSteps ≥ the strength; a strength that
      // is not a number bounds as the largest.
      const steps = Math.ceil(((candidates.strength[row] as number) / strengthMax) * strengthSteps)
      const strength = steps >= 0 ? Math.min(steps, strengthSteps) : Number.isNaN(steps) ? strengthSteps : 0
      entry[position] = ((entity << shift) | strength) >>> 0
    }
  }
  return { start, levelStart, entry, shift, strengthSteps, strengthMax }
}

/** idf of every skill: over the targets given, else over the targets that have a profile. */
function skillSpecificities(
  targets: ProfileColumns,
  skillCount: number,
  specificityOver?: { documentFrequency: Int32Array; targets: number },
): Float64Array {
  const rows = targets.skill.length
  let documentFrequency = specificityOver?.documentFrequency
  let profiles = specificityOver?.targets ?? 0
  if (!documentFrequency) {
    documentFrequency = new Int32Array(skillCount)
    for (let row = 0; row < rows; row++) {
      const skill = targets.skill[row] as number
      documentFrequency[skill] = (documentFrequency[skill] as number) + 1
    }
    for (let target = 0; target < targets.count; target++) {
      if ((targets.start[target + 1] as number) > (targets.start[target] as number)) profiles++
    }
  }
  const idf = new Float64Array(skillCount)
  for (let skill = 0; skill < skillCount; skill++) {
    idf[skill] = specificity(documentFrequency[skill] as number, profiles)
  }
  return idf
}

/**
 * Weighs every target's skills (w = e × idf × c, idf over the targets that have a profile) and
 * puts each target's run in canonical order.
 */
export function weighJobs(
  targets: ProfileColumns,
  skillIds: readonly string[],
  features: ScoringFeatures,
  specificityOver?: { documentFrequency: Int32Array; targets: number },
): WeightedJobs {
  const rows = targets.skill.length
  const idf = skillSpecificities(targets, skillIds.length, specificityOver)
  const out: WeightedJobs = {
    start: targets.start,
    skill: sharedInt32(rows),
    weight: sharedFloat64(rows),
    required: sharedUint8(rows),
    critical: sharedUint8(rows),
    total: sharedFloat64(targets.count),
    leveled: sharedInt32(targets.count),
    criticalCount: sharedInt32(targets.count),
  }
  const weights = new Float64Array(rows)
  let longest = 0
  for (let row = 0; row < rows; row++) {
    const skill = targets.skill[row] as number
    weights[row] = targetSkillWeight(
      targets.strength[row] as number,
      idf[skill] as number,
      targets.critical[row] === 1,
      features,
    )
  }
  for (let target = 0; target < targets.count; target++) {
    longest = Math.max(longest, (targets.start[target + 1] as number) - (targets.start[target] as number))
  }
  const order = new Int32Array(longest)
  for (let target = 0; target < targets.count; target++) {
    const from = targets.start[target] as number
    const to = targets.start[target + 1] as number
    canonicalOrder(order, from, to, weights, targets.skill)
    let total = 0
    let leveled = 0
    let critical = 0
    for (let offset = 0; offset < to - from; offset++) {
      const row = order[offset] as number
      const position = from + offset
      out.skill[position] = targets.skill[row] as number
      out.weight[position] = weights[row] as number
      out.required[position] = targets.level[row] as number
      out.critical[position] = targets.critical[row] as number
      total += weights[row] as number
      if ((targets.level[row] as number) > 0) leveled++
      if (targets.critical[row] === 1) critical++
    }
    out.total[target] = total
    out.leveled[target] = leveled
    out.criticalCount[target] = critical
  }
  return out
}

/** One target's weighted skills in canonical order (the reference computation's input). */
export function weightedTargetSkills(
  targets: WeightedJobs,
  skillIds: readonly string[],
  features: ScoringFeatures,
  target: number,
): WeightedTargetSkill[] {
  const skills: WeightedTargetSkill[] = []
  for (let row = targets.start[target] as number; row < (targets.start[target + 1] as number); row++) {
    skills.push({
      skill_id: skillIds[targets.skill[row] as number] as string,
      weight: targets.weight[row] as number,
      required: targets.required[row] as number,
      critical: features.useCriticalities && targets.critical[row] === 1,
    })
  }
  return skills
}
