import { EARTH_RADIUS_KM, haversineKm } from '../geo/haversine.js'
import type { Employee } from '../schemas/entities.js'
import { LIMITS } from '../schemas/limits.js'
import { heldProfiles, invert } from './job-index.js'
import type { JobMatchData } from './job-match-data.js'
import { type MatchingTenant, scoreJobs } from './match-jobs.js'
import { prepareVacancyMatching } from './match-vacancies.js'
import { forEachRow, sharedUint8 } from './profile-columns.js'
import type { JobScoringParams } from './score-job-candidates.js'
import { type VacancyIndex, vacancyIndex } from './vacancy-index.js'
import { employeeOrigin } from './vacancy-places.js'

/** One employee of a vacancy's candidates, with the score 4.11 gives them for it. */
export interface VacancyCandidate {
  employee_id: string
  score: number
}

/** What 4.11 says about one active vacancy, seen from the vacancy. */
export interface VacancyCandidates {
  vacancy_id: string
  title: string
  /** The best `best` candidates, score descending, ties by employee external_id. */
  best: VacancyCandidate[]
  /** Candidates whose score is above `strongScore`. */
  strong: number
}

export interface VacancyCandidatesOptions {
  external_vendor?: string | undefined
  /** How many of the best candidates to keep per vacancy (at least 1). */
  best: number
  /** The score above which a candidate counts as strong. */
  strongScore: number
}

/**
 * 4.11 turned around: for every active vacancy, the employees whose ranking of the default 4.11
 * request (no filters or weights: skills_match alone, the 50 km geo-distance filter, no minimum
 * score) holds it, with the score they get there. An employee is a candidate of a vacancy exactly
 * when `matchVacancies(employee, {})` lists the vacancy: a score above 0 (and at least min_score),
 * within 50 km when both places are known.
 *
 * With skills_match the only weight, a 4.11 score is the skill coverage S_skills of the employee
 * for the vacancy (scoring-model.ts), which is what job matching ranks employees by for a job. So
 * the vacancies are scored as job matching scores jobs (`scoreJobs`: `JobCandidateScorer`, in the
 * worker threads when there are many): the vacancy index's weighted skills stand for the jobs,
 * its employees' profiles are inverted into posting lists, upper bounds are summed by the posting
 * kernel, and only the employees whose bound reaches the bar are scored exactly, by the same sums
 * in the same order as 4.11 (the same numbers, to the last bit). The bar is the k-th best score
 * so far, but never above the strong score, so that every strong candidate is scored and counted.
 *
 * The geo rule is the scorer's mask: the vacancies are taken in groups that reach the same
 * employees (those within 50 km of the vacancy's place, and those whose own place is unknown; a
 * vacancy whose place is unknown reaches everyone), and for each group the mask holds them. An
 * employee out of reach is never scored, and never holds the bar down. The groups are scored one
 * after another, so the mask changes only between them.
 */
export async function vacancyCandidates(
  tenant: MatchingTenant,
  options: VacancyCandidatesOptions,
): Promise<VacancyCandidates[]> {
  const prepared = await prepareVacancyMatching(
    tenant,
    {},
    options.external_vendor ? { external_vendor: options.external_vendor } : {},
  )
  const index = await vacancyIndex(tenant.database, prepared.vendor, prepared.features, tenant.dataVersion)
  const employees = index.employees
  const reach = new Reach(
    employees.ids.length,
    await employeePlaces(tenant, index, employees.ids),
    LIMITS.vacancyMatching.defaultMaxGeoDistanceKm,
  )
  const data = vacancyMatchData(index)
  const params: JobScoringParams = {
    threshold: prepared.query.min_score,
    k: Math.max(1, options.best),
    proficiencyMatching: index.features.proficiencyMatching,
    useCriticalities: index.features.useCriticalities,
    minCriticalRatio: null,
    excludeOverqualified: false,
    countAbove: options.strongScore,
  }
  // Vacancies that reach the same employees are scored one after another, on one mask.
  const groups = new Map<string, { places: number[] | null; vacancies: number[] }>()
  for (let vacancy = 0; vacancy < index.ids.length; vacancy++) {
    const places = reach.near(index.lat[vacancy] as number, index.lng[vacancy] as number)
    const key = places === null ? 'everyone' : places.join(',')
    const group = groups.get(key)
    if (group) group.vacancies.push(vacancy)
    else groups.set(key, { places, vacancies: [vacancy] })
  }
  const results: VacancyCandidates[] = new Array(index.ids.length)
  for (const group of groups.values()) {
    reach.select(group.places)
    const table = await scoreJobs(data, group.vacancies, reach.mask, params, null)
    group.vacancies.forEach((vacancy, slot) => {
      const first = slot * table.k
      results[vacancy] = {
        vacancy_id: index.ids[vacancy] as string,
        title: index.titles[vacancy] as string,
        best: Array.from({ length: table.count[slot] as number }, (_, rank) => ({
          employee_id: employees.ids[table.candidate[first + rank] as number] as string,
          score: table.score[first + rank] as number,
        })),
        strong: table.above[slot] as number,
      }
    })
  }
  return results
}

const matchData = new WeakMap<VacancyIndex, JobMatchData>()

/**
 * The vacancy index in the shape job matching scores (job-index.ts): the vacancies' weighted
 * skills as the targets, the employees' profiles (numbered like the vacancies' skills) and their
 * inverted index. Made once per index.
 */
export function vacancyMatchData(index: VacancyIndex): JobMatchData {
  let data = matchData.get(index)
  if (!data) {
    const profiles = index.employees.skills
    data = {
      employeeCount: profiles.count,
      jobCount: index.ids.length,
      skillCount: index.skillIds.length,
      employees: heldProfiles(profiles),
      postings: invert(profiles, index.skillIds.length),
      jobs: index.targets,
    }
    matchData.set(index, data)
  }
  return data
}

/** A place employees are at, and the employees (by number) who are. */
interface EmployeePlace {
  lat: number
  lng: number
  members: number[]
}

/**
 * The employees the default 4.11 geo filter lets a vacancy reach, as a mask over employee numbers
 * (1 = reached): from a vacancy's place, those within `maxKm` by `haversineKm` (measured as 4.11
 * measures it, from the employee) and those whose own place is unknown; from an unknown place,
 * everyone. The employees' places are sorted by latitude, and only those in the band of
 * latitudes `maxKm` can span are measured.
 */
class Reach {
  readonly mask: Uint8Array
  /** The mask with no place reached: the employees whose place is unknown. */
  private readonly unplaced: Uint8Array
  private readonly places: EmployeePlace[]
  /** Degrees of latitude beyond which no point is within `maxKm` (with a margin). */
  private readonly band: number
  /** The places whose members the mask holds now; null when it holds everyone. */
  private reached: readonly number[] | null = []

  constructor(
    employees: number,
    places: readonly EmployeePlace[],
    private readonly maxKm: number,
  ) {
    this.places = [...places].sort((a, b) => a.lat - b.lat)
    this.unplaced = new Uint8Array(employees).fill(1)
    for (const place of places) for (const member of place.members) this.unplaced[member] = 0
    this.mask = sharedUint8(employees)
    this.mask.set(this.unplaced)
    // A great-circle distance is at least the earth's radius times the difference of latitude.
    this.band = (maxKm / EARTH_RADIUS_KM) * (180 / Math.PI) * 1.001 + 1e-9
  }

  /** The employees' places (positions) within reach of (lat, lng); null from an unknown place. */
  near(lat: number, lng: number): number[] | null {
    if (Number.isNaN(lat)) return null
    const places = this.places
    let low = 0
    let high = places.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((places[middle] as EmployeePlace).lat < lat - this.band) low = middle + 1
      else high = middle
    }
    const near: number[] = []
    for (let position = low; position < places.length; position++) {
      const place = places[position] as EmployeePlace
      if (place.lat > lat + this.band) break
      if (haversineKm(place.lat, place.lng, lat, lng) <= this.maxKm) near.push(position)
    }
    return near
  }

  /** Makes the mask hold the members of `places` (as `near` gives them; null: everyone). */
  select(places: readonly number[] | null): void {
    if (this.reached === null) this.mask.set(this.unplaced)
    else for (const position of this.reached) this.mark(position, 0)
    if (places === null) this.mask.fill(1)
    else for (const position of places) this.mark(position, 1)
    this.reached = places
  }

  private mark(position: number, value: number): void {
    for (const member of (this.places[position] as EmployeePlace).members) this.mask[member] = value
  }
}

/**
 * Every employee's place as 4.11 finds it (`employeeOrigin`: the stored location, an address by
 * the postal-code table), grouped by place; employees whose place is unknown are in none.
 * Employees share few distinct stored locations: each is looked up once.
 */
async function employeePlaces(
  tenant: MatchingTenant,
  index: VacancyIndex,
  ids: readonly string[],
): Promise<EmployeePlace[]> {
  const position = new Map(ids.map((id, at) => [id, at]))
  const byLocation = new Map<string, number[]>()
  await forEachRow(
    tenant.database,
    `SELECT external_id, (doc->'location')::VARCHAR FROM employees WHERE (doc->'location') IS NOT NULL`,
    [],
    2,
    (values) => {
      const at = position.get(values[0] as string)
      const location = values[1] as string | null
      if (at === undefined || location === null || location === 'null') return
      const list = byLocation.get(location)
      if (list) list.push(at)
      else byLocation.set(location, [at])
    },
  )
  const places: EmployeePlace[] = []
  for (const [location, members] of byLocation) {
    const record = { location: JSON.parse(location) } as Employee
    const { origin } = await employeeOrigin(tenant.database, index, {
      id: ids[members[0] as number] as string,
      record,
    })
    if (origin) places.push({ lat: origin.lat, lng: origin.lng, members })
  }
  return places
}
