import type { PropertyType } from '../schemas/custom-properties.js'
import type { VacancyMatchingRequest } from '../schemas/matching.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { isCustomPropertyRule, type Props, type RuleContext } from './custom-property-rules.js'
import { propertyDefinitions } from './match-filters.js'
import { ProblemList } from './request-issues.js'
import type { EmployeeForMatching } from './vacancy-employee.js'
import type { VacancyIndex } from './vacancy-index.js'
import { employeeOrigin, type Origin, requestOrigin, VacancyDistances } from './vacancy-places.js'

/**
 * What compiling one filter or weight of a 4.11 request reads (the index, the employee, the
 * places of the request) and adds to (the problems of the request, the notes of explained).
 */
export interface VacancyRequestContext {
  database: TenantDatabase
  index: VacancyIndex
  employee: EmployeeForMatching
  employeeProps: Props
  /** The languages the employee speaks: language → the highest level (2 when not stated). */
  spoken: Map<string, number>
  /** Where the employee is, or why that is unknown. */
  home: { origin: Origin | null; note: string | null }
  /** max_geo_distance filters' locations by the filter's position (null when not found). */
  requestLocations: Map<number, Origin | null>
  /**
   * The origin of the geo_distance weight and of the location include: the first
   * max_geo_distance filter's location (`originField` names it), else the employee's (2.5).
   */
  origin: Origin | null
  originField: string | null
  distances: VacancyDistances
  /** What custom property rules are compiled against. */
  rules: RuleContext
  problems: ProblemList
  notes: string[]
}

/**
 * The context of one employee's request: the custom property definitions (read only when a custom
 * property rule needs them, a DuckDB call each), the employee's place and languages, and the
 * locations of the max_geo_distance filters (an unknown postal code is a problem).
 */
export async function vacancyRequestContext(
  database: TenantDatabase,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  body: VacancyMatchingRequest,
  shared?: SharedRequestParts,
): Promise<VacancyRequestContext> {
  const problems = new ProblemList()
  const custom = [...body.filters, ...body.weights].some((rule) => isCustomPropertyRule(rule))
  const definitions = custom
    ? await (shared ? shared.definitions() : customPropertyDefinitions(database))
    : null
  const rules: RuleContext = {
    sourceDefinitions: definitions?.employees ?? new Map(),
    candidateDefinitions: definitions?.vacancies ?? new Map(),
    sourceType: 'employees',
    candidateType: 'vacancies',
    problems,
  }
  const distances = shared?.distances ?? new VacancyDistances(index)
  const home = await employeeOrigin(database, index, employee, distances)
  const context: VacancyRequestContext = {
    database,
    index,
    employee,
    employeeProps: (employee.record.custom_properties ?? null) as Props,
    spoken: spokenLevels(employee),
    home,
    requestLocations: new Map(),
    origin: home.origin,
    originField: null,
    distances,
    rules,
    problems,
    notes: [],
  }
  await resolveFilterLocations(context, body)
  return context
}

/**
 * What the requests of a batch of employees share: the custom property definitions (read once),
 * the distances from places and the postal codes looked up.
 */
export interface SharedRequestParts {
  definitions: () => Promise<PropertyDefinitions>
  distances: VacancyDistances
}

type PropertyDefinitions = Record<'employees' | 'vacancies', Map<string, PropertyType>>

/** The custom property definitions of employees and vacancies. */
async function customPropertyDefinitions(database: TenantDatabase): Promise<PropertyDefinitions> {
  return {
    employees: await propertyDefinitions(database, 'employees'),
    vacancies: await propertyDefinitions(database, 'vacancies'),
  }
}

/** The parts of a batch's requests shared by every employee (see SharedRequestParts). */
export function sharedRequestParts(database: TenantDatabase, index: VacancyIndex): SharedRequestParts {
  let definitions: Promise<PropertyDefinitions> | undefined
  return {
    // Read when a rule first needs them.
    definitions: () => {
      definitions ??= customPropertyDefinitions(database)
      return definitions
    },
    distances: new VacancyDistances(index),
  }
}

/** The employee's languages: language → the highest level they speak it at (2 when not stated). */
function spokenLevels(employee: EmployeeForMatching): Map<string, number> {
  const spoken = new Map<string, number>()
  for (const language of employee.record.languages ?? []) {
    spoken.set(language.language, Math.max(spoken.get(language.language) ?? 0, language.level ?? 2))
  }
  return spoken
}

/**
 * Resolves the locations of the max_geo_distance filters, in the order of the filters; the first
 * becomes the request's origin (a max_geo_distance filter's location overrides the stored one, 2.5).
 */
async function resolveFilterLocations(
  context: VacancyRequestContext,
  body: VacancyMatchingRequest,
): Promise<void> {
  for (const [position, filter] of body.filters.entries()) {
    if (filter.filter === 'max_geo_distance' && filter.location) {
      const field = `filters[${position}].location`
      const resolved = await requestOrigin(
        context.database,
        context.index,
        filter.location,
        field,
        context.problems,
        context.distances,
      )
      context.requestLocations.set(position, resolved)
      if (context.originField === null) {
        context.originField = field
        context.origin = resolved
      }
    }
  }
}
