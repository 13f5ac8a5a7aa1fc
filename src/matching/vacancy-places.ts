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
): Promise<Origin | null> {
  if ('lat' in location) return { lat: location.lat, lng: location.lng }
  const place = await placeOf(database, index, location.country, location.postal_code)
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
): Promise<{ origin: Origin | null; note: string | null }> {
  const location = employee.record.location as LocationOrAddress | undefined
  if (!location) return { origin: null, note: `employee ${employee.id} has no location` }
  if ('lat' in location) return { origin: { lat: location.lat, lng: location.lng }, note: null }
  const place = await placeOf(database, index, location.country, location.postal_code)
  if (place) return { origin: { lat: place.lat, lng: place.lng }, note: null }
  return {
    origin: null,
    note: `employee ${employee.id}'s address ${location.country} ${location.postal_code} is not in the postal-code table`,
  }
}

/** A postal code's place: from the index's table when it holds the country, else from the database. */
async function placeOf(database: TenantDatabase, index: VacancyIndex, country: string, code: string) {
  if (index.postal?.hasCountry(country)) return index.postal.lookup(country, code)
  return lookupPostalCode(database, country, code)
}

/** Distances from the places of a request to every vacancy, each place's computed once. */
export class VacancyDistances {
  private readonly known = new Map<string, Float64Array>()

  constructor(private readonly index: VacancyIndex) {}

  /** Per vacancy: its distance from `origin` in km; NaN when its place is unknown. */
  from(origin: Origin): Float64Array {
    const key = `${origin.lat},${origin.lng}`
    let known = this.known.get(key)
    if (!known) {
      known = distancesFrom(this.index, origin)
      this.known.set(key, known)
    }
    return known
  }

  /** A test of a vacancy: within `max` km of `origin`. */
  within(origin: Origin, max: number): (vacancy: number) => boolean {
    const array = this.from(origin)
    // A vacancy whose place is unknown cannot be shown to be too far: it stays (explained says so).
    return (vacancy: number) => {
      const distance = array[vacancy] as number
      return Number.isNaN(distance) || distance <= max
    }
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
