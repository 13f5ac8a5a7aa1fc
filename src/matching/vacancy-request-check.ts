import type { VacancyMatchingRequest } from '../schemas/matching.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { EmployeeEvidence, EmployeeForMatching } from './vacancy-employee.js'
import { type GeoFiltering, type VacancyFilter, vacancyFilters } from './vacancy-filters.js'
import type { VacancyIndex } from './vacancy-index.js'
import { type SharedRequestParts, vacancyRequestContext } from './vacancy-request-context.js'
import { type HeldSkills, heldSkills, type VacancyComponent, vacancyComponents } from './vacancy-weights.js'

/** A 4.11 request, checked and compiled against one employee and the vacancy index. */
export interface VacancyPlan extends HeldSkills {
  filters: VacancyFilter[]
  components: VacancyComponent[]
  /** Σ v_k over the components, > 0. */
  totalValue: number
  /** Distances from the employee (or the request's location); NaN when unknown. */
  distance: Float64Array | null
  notes: string[]
  allowedEventTypes: Set<string> | null
  /** Whether a distance filter restricted the vacancies, and why not when it did not. */
  geo: GeoFiltering
}

/**
 * A checked request: its plan, or every problem found, in the order of the request (the places of
 * max_geo_distance filters first, then the filters, then the weights), for one 422.
 */
export type VacancyRequestCheck = { plan: VacancyPlan; problems: [] } | { plan: null; problems: string[] }

/**
 * Checks a 4.11 body against the tenant and the employee and compiles it into tests and
 * component scores over vacancy numbers; returns the plan, or the problems when there are any.
 */
export async function checkVacancyRequest(
  database: TenantDatabase,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  body: VacancyMatchingRequest,
  options: {
    needDistance: boolean
    evidence: EmployeeEvidence | undefined
    /** What a batch's requests share (see SharedRequestParts). */
    shared?: SharedRequestParts | undefined
  },
): Promise<VacancyRequestCheck> {
  const context = await vacancyRequestContext(database, index, employee, body, options.shared)
  const { filters, geo } = await vacancyFilters(context, body.filters)
  // Skills the employee holds, numbered like the vacancy index; event types may restrict them.
  const allowed = body.event_types && body.event_types.length > 0 ? new Set<string>(body.event_types) : null
  if (allowed) context.notes.push(`only evidence of the event types ${[...allowed].join(', ')} counts`)
  const skills = heldSkills(index, employee, allowed, options.evidence)
  const { components, distance } = vacancyComponents(context, body.weights, skills)
  const totalValue = components.reduce((sum, component) => sum + component.value, 0)
  if (!(totalValue > 0)) context.problems.add('weights: the values must not all be 0')
  if (!context.problems.empty) return { plan: null, problems: context.problems.messages }
  const from = context.origin
  const plan: VacancyPlan = {
    filters,
    components,
    totalValue,
    ...skills,
    distance: (options.needDistance || distance) && from ? context.distances.from(from) : null,
    notes: context.notes,
    allowedEventTypes: allowed,
    geo,
  }
  return { plan, problems: [] }
}
