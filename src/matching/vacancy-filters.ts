import { LIMITS } from '../schemas/limits.js'
import type { VacancyMatchFilter } from '../schemas/matching.js'
import { compilePropertyRule, isCustomPropertyRule } from './custom-property-rules.js'
import { lastUpdatedTest } from './match-filters.js'
import { languageWithinTolerance } from './scoring-model.js'
import type { VacancyIndex } from './vacancy-index.js'
import { requestOrigin, type VacancyReach } from './vacancy-places.js'
import type { VacancyRequestContext } from './vacancy-request-context.js'

/**
 * A filter of 4.11 as a test of a vacancy number: true keeps the vacancy. A distance filter
 * carries its reach: no vacancy outside it passes.
 */
export type VacancyFilter = ((vacancy: number) => boolean) & { reach?: VacancyReach }

/** Whether a distance filter restricted the vacancies, and why not when it did not. */
export interface GeoFiltering {
  applied: boolean
  note?: string
}

type FilterOf<Kind extends VacancyMatchFilter['filter']> = Extract<VacancyMatchFilter, { filter: Kind }>

/**
 * The filters of a request as tests of vacancy numbers, in the request's order, with the default
 * distance filter (2.5) when the request has none; problems and notes go to the context.
 */
export async function vacancyFilters(
  context: VacancyRequestContext,
  filters: readonly VacancyMatchFilter[],
): Promise<{ filters: VacancyFilter[]; geo: GeoFiltering }> {
  const tests: VacancyFilter[] = []
  let geoFiltered = false
  for (const [position, filter] of filters.entries()) {
    const field = `filters[${position}]`
    if (isCustomPropertyRule(filter)) {
      tests.push(propertyFilter(context, filter, field))
      continue
    }
    if (filter.filter === 'max_geo_distance' || filter.filter === 'multi_max_geo_distances')
      geoFiltered = true
    const test = await filterOf(context, filter, field, position)
    if (test) tests.push(test)
  }
  return { filters: tests, geo: defaultDistanceFilter(context, geoFiltered, tests) }
}

/** One filter (not a custom property rule) as a test; null when it keeps every vacancy. */
async function filterOf(
  context: VacancyRequestContext,
  filter: VacancyMatchFilter,
  field: string,
  position: number,
): Promise<VacancyFilter | null> {
  const { index, employee } = context
  switch (filter.filter) {
    case 'last_updated':
      return lastUpdatedFilter(index, filter)
    case 'external_id_is_in_list':
      return externalIdFilter(index, filter)
    case 'low_data_availability':
      return lowDataFilter(context, filter, field)
    case 'exclude_match_feedback':
      return (vacancy) => !employee.feedback.has(index.ids[vacancy] as string)
    case 'language':
      return languageFilter(index, context.spoken, filter)
    case 'max_geo_distance':
      return distanceFilter(context, filter, field, position)
    case 'multi_max_geo_distances':
      return areasFilter(context, filter, field)
    default:
      return null
  }
}

/** A custom property filter: the vacancy passes when the rule scores it above 0. */
function propertyFilter(
  context: VacancyRequestContext,
  filter: VacancyMatchFilter,
  field: string,
): VacancyFilter {
  const { index, employeeProps } = context
  const rule = compilePropertyRule(filter, field, context.rules)
  return (vacancy) => rule.score(employeeProps, index.customProperties[vacancy]) > 0
}

function lastUpdatedFilter(index: VacancyIndex, filter: FilterOf<'last_updated'>): VacancyFilter {
  const test = lastUpdatedTest(filter.value, filter.operator)
  return (vacancy) => test(index.updatedAt[vacancy] as number)
}

function externalIdFilter(index: VacancyIndex, filter: FilterOf<'external_id_is_in_list'>): VacancyFilter {
  const wanted = new Set(filter.external_ids)
  return (vacancy) => wanted.has(index.ids[vacancy] as string)
}

/** Low data availability is a property of employees (2.8): a low-data employee gets no matches. */
function lowDataFilter(
  context: VacancyRequestContext,
  filter: FilterOf<'low_data_availability'>,
  field: string,
): VacancyFilter | null {
  const { employee } = context
  if (!filter.exclude_low_data_availability || !employee.lowData) return null
  context.notes.push(`employee ${employee.id} has low data availability and ${field} excludes it`)
  return () => false
}

/** Every language the vacancy requires is spoken within the filter's tolerances. */
function languageFilter(
  index: VacancyIndex,
  spoken: Map<string, number>,
  filter: FilterOf<'language'>,
): VacancyFilter {
  const { max_overqualification: maxOver, max_underqualification: maxUnder } = filter
  return (vacancy: number) => {
    const to = index.langStart[vacancy + 1] as number
    for (let row = index.langStart[vacancy] as number; row < to; row++) {
      const held = spoken.get(index.langCode[row] as string) ?? 0
      if (!languageWithinTolerance(index.langLevel[row] as number, held, maxOver, maxUnder)) return false
    }
    return true
  }
}

/**
 * Within max_geo_distance of the filter's location, else of the employee's; without either, a
 * problem (the filter then keeps every vacancy).
 */
function distanceFilter(
  context: VacancyRequestContext,
  filter: FilterOf<'max_geo_distance'>,
  field: string,
  position: number,
): VacancyFilter | null {
  const { home } = context
  const from = filter.location ? (context.requestLocations.get(position) ?? null) : home.origin
  if (!filter.location && !from) {
    context.problems.add(`${field}: ${home.note}; give ${field}.location to measure from`)
  }
  return from ? context.distances.within(from, filter.max_geo_distance) : null
}

/** Within the distance of any of the areas (an area whose location is not found keeps none). */
async function areasFilter(
  context: VacancyRequestContext,
  filter: FilterOf<'multi_max_geo_distances'>,
  field: string,
): Promise<VacancyFilter> {
  const areas: VacancyFilter[] = []
  for (const [entry, area] of filter.multi_max_geo_distances.entries()) {
    const from = await requestOrigin(
      context.database,
      context.index,
      area.location,
      `${field}.multi_max_geo_distances[${entry}].location`,
      context.problems,
      context.distances,
    )
    if (from) areas.push(context.distances.within(from, area.max_geo_distance))
  }
  return (vacancy) => areas.some((inside) => inside(vacancy))
}

/**
 * Without a distance filter in the request, vacancies within the default distance of the
 * employee (2.5); when the employee's place is unknown, none is applied and a note says why.
 */
function defaultDistanceFilter(
  context: VacancyRequestContext,
  geoFiltered: boolean,
  tests: VacancyFilter[],
): GeoFiltering {
  if (geoFiltered) return { applied: true }
  const { home } = context
  const km = LIMITS.vacancyMatching.defaultMaxGeoDistanceKm
  if (home.origin) {
    tests.push(context.distances.within(home.origin, km))
    return { applied: true }
  }
  const note = `${home.note}: the default ${km} km distance filter was not applied`
  context.notes.push(note)
  return { applied: false, note }
}
