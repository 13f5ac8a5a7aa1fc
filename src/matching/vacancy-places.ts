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

/** How many origins' distance arrays are kept (a batch of employees meets many places). */
const KEPT_ORIGINS = 256

/**
 * Distances from the places of a request to every vacancy, each place's computed once, and the
 * postal codes looked up for them. One serves every employee of a batch.
 */
export class VacancyDistances {
  private readonly known = new Map<string, Float64Array>()
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
   * A test of a vacancy: within `max` km of `origin`. Each vacancy asked is measured alone (the
   * same haversineKm as `from`), so that a test asked only of a few candidates costs a few.
   */
  within(origin: Origin, max: number): (vacancy: number) => boolean {
    const { index } = this
    // A vacancy whose place is unknown cannot be shown to be too far: it stays (explained says so).
    return (vacancy: number) => {
      const lat = index.lat[vacancy] as number
      return (
        Number.isNaN(lat) || haversineKm(origin.lat, origin.lng, lat, index.lng[vacancy] as number) <= max
      )
    }
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
