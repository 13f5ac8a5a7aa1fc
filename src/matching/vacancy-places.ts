import { haversineKm } from '../geo/haversine.js'
import { countryHasPostalCodes, lookupPostalCode, unknownPostalCodeMessage } from '../geo/postal-codes.js'
import type { LocationOrAddress } from '../schemas/common.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { ProblemList } from './request-issues.js'
import type { EmployeeForMatching } from './vacancy-employee.js'
import type { VacancyIndex } from './vacancy-index.js'

/** A point on the earth, in degrees. */
export interface Origin {
  lat: number
  lng: number
}

/** Resolves a location of the request (a Location or an Address); an unknown postal code is a problem. */
export async function requestOrigin(
  database: TenantDatabase,
  index: VacancyIndex,
  location: { lat: number; lng: number } | { country: string; postal_code: string },
  field: string,
  problems: ProblemList,
  distances?: VacancyDistances,
): Promise<Origin | null> {
  if ('lat' in location) return { lat: location.lat, lng: location.lng }
  const place = await placeOf(database, index, location.country, location.postal_code, distances)
  if (place) return { lat: place.lat, lng: place.lng }
  problems.add(
    unknownPostalCodeMessage(
      `${field}.postal_code`,
      location.country,
      location.postal_code,
      await countryHasPostalCodes(database, location.country),
    ),
  )
  return null
}

/** Where the employee is (their stored location), or why that is unknown. */
export async function employeeOrigin(
  database: TenantDatabase,
  index: VacancyIndex,
  employee: Pick<EmployeeForMatching, 'id' | 'record'>,
  distances?: VacancyDistances,
): Promise<{ origin: Origin | null; note: string | null }> {
  const location = employee.record.location as LocationOrAddress | undefined
  if (!location) return { origin: null, note: `employee ${employee.id} has no location` }
  if ('lat' in location) return { origin: { lat: location.lat, lng: location.lng }, note: null }
  const place = await placeOf(database, index, location.country, location.postal_code, distances)
  if (place) return { origin: { lat: place.lat, lng: place.lng }, note: null }
  return {
    origin: null,
    note: `employee ${employee.id}'s address ${location.country} ${location.postal_code} is not in the postal-code table`,
  }
}

/**
 * A postal code's place: from the index's table when it holds the country, else from the
 * database (once per code when `distances` is given: a batch asks for the same places often).
 */
async function placeOf(
  database: TenantDatabase,
  index: VacancyIndex,
  country: string,
  code: string,
  distances?: VacancyDistances,
) {
  if (index.postal?.hasCountry(country)) return index.postal.lookup(country, code)
  return distances ? distances.lookup(database, country, code) : lookupPostalCode(database, country, code)
}

/** How many origins' distance arrays (and reaches) are kept (a batch of employees meets many places). */
const KEPT_ORIGINS = 256

/**
 * The vacancies within a distance of a place, and those whose place is unknown (they cannot be
 * shown to be too far): `mask[v]` is 1 for them, `members` lists them in vacancy order.
 */
export interface VacancyReach {
  mask: Uint8Array
  members: Int32Array
}

/** A test of a vacancy by a reach, with the reach, so that a batch can start from its members. */
export type ReachTest = ((vacancy: number) => boolean) & { reach: VacancyReach }

/**
 * Distances from the places of a request to every vacancy, each place's computed once, and the
 * postal codes looked up for them. One serves every employee of a batch.
 */
export class VacancyDistances {
  private readonly known = new Map<string, Float64Array>()
  private readonly reaches = new Map<string, VacancyReach>()
  private readonly places = new Map<string, ReturnType<typeof lookupPostalCode>>()

  constructor(private readonly index: VacancyIndex) {}

  /** Per vacancy: its distance from `origin` in km; NaN when its place is unknown. */
  from(origin: Origin): Float64Array {
    const key = `${origin.lat},${origin.lng}`
    let known = this.known.get(key)
    if (!known) {
      if (this.known.size >= KEPT_ORIGINS) this.known.clear()
      known = distancesFrom(this.index, origin)
      this.known.set(key, known)
    }
    return known
  }

  /**
   * A test of a vacancy: within `max` km of `origin` (by `from`'s distances). Employees share few
   * places: the vacancies in reach of each (place, distance) are found once, and the test is a
   * look-up in their mask.
   */
  within(origin: Origin, max: number): ReachTest {
    const reach = this.reach(origin, max)
    const { mask } = reach
    return Object.assign((vacancy: number) => mask[vacancy] === 1, { reach })
  }

  private reach(origin: Origin, max: number): VacancyReach {
    const key = `${origin.lat},${origin.lng},${max}`
    let reach = this.reaches.get(key)
    if (!reach) {
      if (this.reaches.size >= KEPT_ORIGINS) this.reaches.clear()
      reach = reachWithin(this.from(origin), max)
      this.reaches.set(key, reach)
    }
    return reach
  }

  /** A postal code's place from the database, looked up once. */
  lookup(database: TenantDatabase, country: string, code: string): ReturnType<typeof lookupPostalCode> {
    const key = `${country}\u0000${code}`
    let place = this.places.get(key)
    if (!place) {
      place = lookupPostalCode(database, country, code)
      this.places.set(key, place)
    }
    return place
  }
}

function distancesFrom(index: VacancyIndex, origin: Origin): Float64Array {
  const out = new Float64Array(index.ids.length)
  for (let vacancy = 0; vacancy < out.length; vacancy++) {
    const lat = index.lat[vacancy] as number
    out[vacancy] = Number.isNaN(lat)
      ? Number.NaN
      : haversineKm(origin.lat, origin.lng, lat, index.lng[vacancy] as number)
  }
  return out
}

/** The vacancies whose distance is at most `max`, or unknown (NaN). */
function reachWithin(distance: Float64Array, max: number): VacancyReach {
  const mask = new Uint8Array(distance.length)
  let count = 0
  for (let vacancy = 0; vacancy < distance.length; vacancy++) {
    const km = distance[vacancy] as number
    // A vacancy whose place is unknown cannot be shown to be too far: it stays (explained says so).
    if (Number.isNaN(km) || km <= max) {
      mask[vacancy] = 1
      count++
    }
  }
  const members = new Int32Array(count)
  let at = 0
  for (let vacancy = 0; vacancy < mask.length; vacancy++) if (mask[vacancy] === 1) members[at++] = vacancy
  return { mask, members }
}
