import { describe, expect, it } from 'vitest'
import { haversineKm } from '../../src/geo/haversine.js'
import type { VacancyIndex } from '../../src/matching/vacancy-index.js'
import { VacancyDistances } from '../../src/matching/vacancy-places.js'
import { SeededRandom } from '../../src/util/seeded-random.js'

/** An index of vacancies at the given places (NaN: unknown), all the distances need of one. */
function placedVacancies(places: [number, number][]): VacancyIndex {
  return {
    ids: places.map((_, at) => `vac-${at}`),
    lat: Float64Array.from(places.map(([lat]) => lat)),
    lng: Float64Array.from(places.map(([, lng]) => lng)),
  } as unknown as VacancyIndex
}

describe('the vacancies within a distance of a place', () => {
  const random = new SeededRandom(7)
  const places: [number, number][] = Array.from({ length: 2_000 }, () =>
    random.chance(0.1) ? [Number.NaN, Number.NaN] : [48 + random.next() * 6, -3 + random.next() * 17],
  )
  const index = placedVacancies(places)
  const brussels = { lat: 50.8466, lng: 4.3528 }

  it('keeps exactly those measured within the distance, and those whose place is unknown', () => {
    const distances = new VacancyDistances(index)
    for (const km of [0, 50, 120.5, 40_075]) {
      const within = distances.within(brussels, km)
      const expected = places.map(
        ([lat, lng]) => Number.isNaN(lat) || haversineKm(brussels.lat, brussels.lng, lat, lng) <= km,
      )
      expect(places.map((_, vacancy) => within(vacancy))).toEqual(expected)
      expect([...within.reach.members]).toEqual(expected.flatMap((kept, vacancy) => (kept ? [vacancy] : [])))
    }
    // The comparison means something: some are in reach, some not, some unknown.
    const fifty = distances.within(brussels, 50).reach.members.length
    expect(fifty).toBeGreaterThan(places.filter(([lat]) => Number.isNaN(lat)).length)
    expect(fifty).toBeLessThan(places.length / 2)
  })

  it('finds the reach of a place and distance once, and apart from other distances', () => {
    const distances = new VacancyDistances(index)
    const first = distances.within(brussels, 50)
    expect(distances.within({ ...brussels }, 50).reach).toBe(first.reach)
    expect(distances.within(brussels, 60).reach).not.toBe(first.reach)
    expect(distances.within({ lat: 52.3731, lng: 4.8926 }, 50).reach.members).not.toEqual(first.reach.members)
  })
})
