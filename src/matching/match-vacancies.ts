import { listValue } from '@duckdb/node-api'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import { haversineKm } from '../geo/haversine.js'
import { countryHasPostalCodes, lookupPostalCode, unknownPostalCodeMessage } from '../geo/postal-codes.js'
import {
  type Employee,
  ExternalId,
  type ExternalVendor,
  LIMITS,
  type LocationOrAddress,
  VacancyMatchingRequest,
  type VacancyMatchWeight,
  type VocabLanguage,
} from '../schemas/index.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import { compilePropertyRule, isCustomPropertyRule, type Props } from './custom-property-rules.js'
import { lastUpdatedTest, propertyDefinitions } from './match-filters.js'
import { explanation, type MatchingTenant } from './match-jobs.js'
import { ProblemList, parseOr422, type Ranges } from './request-issues.js'
import {
  distanceScore,
  earnedWeight,
  languageRequirementScore,
  languageWithinTolerance,
  roundFigure,
  roundScore,
  type ScoringFeatures,
  scoreCoverage,
  type WeightedTargetSkill,
} from './scoring-model.js'
import { type VacancyIndex, vacancyIndex } from './vacancy-index.js'
import {
  type VacancyMatchingQuery,
  VacancyMatchingQuery as VacancyMatchingQuerySchema,
  type VacancyMatchingResponse,
  type VacancyMatchRecord,
} from './vacancy-match-schema.js'

/** Ranges of section 8 and of the request schema, for 422 messages that name both ends. */
export const VACANCY_MATCHING_RANGES: Ranges = {
  min_score: [LIMITS.vacancyMatching.minScore.min, LIMITS.vacancyMatching.minScore.max],
  limit: [LIMITS.vacancyMatching.limit.min, LIMITS.vacancyMatching.limit.max],
  'filters[].max_overqualification': [0, 4],
  'filters[].max_underqualification': [0, 4],
  'weights[].max_overqualification': [0, 4],
  'weights[].max_underqualification': [0, 4],
  'weights[].value': [0, 100],
  'filters[].max_geo_distance': [0, 40_075],
  'filters[].multi_max_geo_distances[].max_geo_distance': [0, 40_075],
  'weights[].full_score_distance': [0, 40_075],
  'weights[].zero_score_distance': [0, 40_075],
}

/** One employee as vacancy matching reads them. */
export interface EmployeeForMatching {
  id: string
  record: Employee
  /** The employee's skills that some vacancy asks for, numbered like the vacancy index. */
  skills: { number: number; strength: number; level: number }[]
  lowData: boolean
  feedback: Map<string, { feedback: string; timestamp: string }>
}

/**
 * One employee for matching: the record and match feedback from the database (one round trip),
 * the profile from the index's memory; 404 when unknown.
 */
export async function loadEmployeeForMatching(
  database: TenantDatabase,
  index: VacancyIndex,
  employeeId: string,
): Promise<EmployeeForMatching> {
  const row = await database.one<{ doc: string; feedback: string | null }>(
    `SELECT e.doc::VARCHAR AS doc,
       (SELECT to_json(list(json_object('vacancy_id', vacancy_id, 'feedback', feedback,
                 'timestamp', strftime(timestamp, '%Y-%m-%d'))))::VARCHAR
          FROM match_feedback WHERE employee_id = $1) AS feedback
     FROM employees e WHERE e.external_id = $1`,
    [employeeId],
  )
  if (!row) throw errors.notFound('employee', employeeId)
  const feedback = (row.feedback ? JSON.parse(row.feedback) : []) as {
    vacancy_id: string
    feedback: string
    timestamp: string
  }[]
  const { employees } = index
  const position = employees.position.get(employeeId)
  const skills: EmployeeForMatching['skills'] = []
  if (position !== undefined) {
    const columns = employees.skills
    for (let at = columns.start[position] as number; at < (columns.start[position + 1] as number); at++) {
      skills.push({
        number: columns.skill[at] as number,
        strength: columns.strength[at] as number,
        level: columns.level[at] as number,
      })
    }
  }
  return {
    id: employeeId,
    record: JSON.parse(row.doc) as Employee,
    skills,
    lowData: position !== undefined && employees.lowData[position] === 1,
    feedback: new Map(
      feedback.map((entry) => [entry.vacancy_id, { feedback: entry.feedback, timestamp: entry.timestamp }]),
    ),
  }
}

/** The evidence of an employee's skills (event_types, relevant_experience): skill id → events. */
async function employeeEvidence(
  database: TenantDatabase,
  employeeId: string,
  vendor: ExternalVendor,
): Promise<Map<string, { external_id: string; event_type: string }[]>> {
  const rows = await database.all<{ skill_id: string; evidence: string }>(
    `SELECT skill_id, evidence::VARCHAR AS evidence FROM profile_skills
      WHERE entity_type = 'employee' AND entity_id = $1 AND external_vendor = $2`,
    [employeeId, vendor],
  )
  return new Map(
    rows.map((row) => [
      row.skill_id,
      JSON.parse(row.evidence) as { external_id: string; event_type: string }[],
    ]),
  )
}

interface Origin {
  lat: number
  lng: number
}

/** A request, checked and compiled against one employee and the vacancy index. */
interface VacancyPlan {
  filters: ((vacancy: number) => boolean)[]
  components: { weight: string; value: number; property_name?: string; score: (vacancy: number) => number }[]
  totalValue: number
  held: Float64Array
  heldLevel: Uint8Array
  heldMask: Uint8Array
  /** Distances from the employee (or the request's location); NaN when unknown. */
  distance: Float64Array | null
  notes: string[]
  allowedEventTypes: Set<string> | null
  /** Whether a distance filter restricted the vacancies, and why not when it did not. */
  geo: { applied: boolean; note?: string }
}

/** Resolves a location of the request (a Location or an Address); an unknown postal code is a problem. */
async function requestOrigin(
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

/**
 * Checks a 4.11 body against the tenant and the employee and compiles it into tests and
 * component scores over vacancy numbers. Every problem is collected and answered as one 422.
 */
async function plan(
  tenant: MatchingTenant,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  body: VacancyMatchingRequest,
  options: {
    needDistance: boolean
    evidence: Map<string, { external_id: string; event_type: string }[]> | undefined
  },
): Promise<VacancyPlan> {
  const database = tenant.database
  const problems = new ProblemList()
  const filters: VacancyPlan['filters'] = []
  const notes: string[] = []
  // Definitions are read only when a custom property rule needs them (a DuckDB call each).
  const custom = [...body.filters, ...body.weights].some((rule) => isCustomPropertyRule(rule))
  const context = {
    sourceDefinitions: custom ? await propertyDefinitions(database, 'employees') : new Map(),
    candidateDefinitions: custom ? await propertyDefinitions(database, 'vacancies') : new Map(),
    sourceType: 'employees',
    candidateType: 'vacancies',
    problems,
  }
  const employeeProps = (employee.record.custom_properties ?? null) as Props
  const home = await employeeOrigin(database, index, employee)
  const spoken = new Map<string, number>()
  for (const language of employee.record.languages ?? []) {
    spoken.set(language.language, Math.max(spoken.get(language.language) ?? 0, language.level ?? 2))
  }
  const languageTest = (maxOver: number, maxUnder: number) => (vacancy: number) => {
    const to = index.langStart[vacancy + 1] as number
    for (let row = index.langStart[vacancy] as number; row < to; row++) {
      const held = spoken.get(index.langCode[row] as string) ?? 0
      if (!languageWithinTolerance(index.langLevel[row] as number, held, maxOver, maxUnder)) return false
    }
    return true
  }
  // The geo origin of the weight and the location include: a max_geo_distance filter's location
  // overrides the stored one (2.5).
  const requestLocations = new Map<number, Origin | null>()
  let origin = home.origin
  let originField: string | null = null
  let geoFiltered = false
  for (const [position, filter] of body.filters.entries()) {
    if (filter.filter === 'max_geo_distance' && filter.location) {
      const field = `filters[${position}].location`
      const resolved = await requestOrigin(database, index, filter.location, field, problems)
      requestLocations.set(position, resolved)
      if (originField === null) {
        originField = field
        origin = resolved
      }
    }
  }
  const distanceCache = new Map<string, Float64Array>()
  const distances = (from: Origin) => {
    const key = `${from.lat},${from.lng}`
    let known = distanceCache.get(key)
    if (!known) {
      known = distancesFrom(index, from)
      distanceCache.set(key, known)
    }
    return known
  }
  const withinFrom = (from: Origin, max: number) => {
    const array = distances(from)
    // A vacancy whose place is unknown cannot be shown to be too far: it stays (explained says so).
    return (vacancy: number) => {
      const distance = array[vacancy] as number
      return Number.isNaN(distance) || distance <= max
    }
  }
  for (const [position, filter] of body.filters.entries()) {
    const field = `filters[${position}]`
    if (isCustomPropertyRule(filter)) {
      const rule = compilePropertyRule(filter, field, context)
      filters.push((vacancy) => rule.score(employeeProps, index.customProperties[vacancy]) > 0)
      continue
    }
    switch (filter.filter) {
      case 'last_updated': {
        const test = lastUpdatedTest(filter.value, filter.operator)
        filters.push((vacancy) => test(index.updatedAt[vacancy] as number))
        break
      }
      case 'external_id_is_in_list': {
        const wanted = new Set(filter.external_ids)
        filters.push((vacancy) => wanted.has(index.ids[vacancy] as string))
        break
      }
      case 'low_data_availability':
        // Low data availability is a property of employees (2.8): a low-data employee gets no matches.
        if (filter.exclude_low_data_availability && employee.lowData) {
          notes.push(`employee ${employee.id} has low data availability and ${field} excludes it`)
          filters.push(() => false)
        }
        break
      case 'exclude_match_feedback':
        filters.push((vacancy) => !employee.feedback.has(index.ids[vacancy] as string))
        break
      case 'language':
        filters.push(languageTest(filter.max_overqualification, filter.max_underqualification))
        break
      case 'max_geo_distance': {
        geoFiltered = true
        const from = filter.location ? (requestLocations.get(position) ?? null) : home.origin
        if (!filter.location && !from) {
          problems.add(`${field}: ${home.note}; give ${field}.location to measure from`)
        }
        if (from) filters.push(withinFrom(from, filter.max_geo_distance))
        break
      }
      case 'multi_max_geo_distances': {
        geoFiltered = true
        const areas: ((vacancy: number) => boolean)[] = []
        for (const [entry, area] of filter.multi_max_geo_distances.entries()) {
          const from = await requestOrigin(
            database,
            index,
            area.location,
            `${field}.multi_max_geo_distances[${entry}].location`,
            problems,
          )
          if (from) areas.push(withinFrom(from, area.max_geo_distance))
        }
        filters.push((vacancy) => areas.some((inside) => inside(vacancy)))
        break
      }
    }
  }
  let geo: VacancyPlan['geo'] = { applied: true }
  if (!geoFiltered) {
    if (home.origin) filters.push(withinFrom(home.origin, LIMITS.vacancyMatching.defaultMaxGeoDistanceKm))
    else {
      const note = `${home.note}: the default ${LIMITS.vacancyMatching.defaultMaxGeoDistanceKm} km distance filter was not applied`
      notes.push(note)
      geo = { applied: false, note }
    }
  }
  // Skills the employee holds, numbered like the vacancy index; event types may restrict them.
  const allowed = body.event_types && body.event_types.length > 0 ? new Set<string>(body.event_types) : null
  if (allowed) notes.push(`only evidence of the event types ${[...allowed].join(', ')} counts`)
  const held = new Float64Array(index.skillIds.length)
  const heldLevel = new Uint8Array(index.skillIds.length)
  const heldMask = new Uint8Array(index.skillIds.length)
  for (const skill of employee.skills) {
    const number = skill.number
    if (allowed) {
      const evidence = options.evidence?.get(index.skillIds[number] as string) ?? []
      if (!evidence.some((item) => allowed.has(item.event_type))) continue
    }
    held[number] = skill.strength
    heldLevel[number] = skill.level
    heldMask[number] = 1
  }
  const { targets } = index
  const proficiency = index.features.proficiencyMatching
  const skillsScore = (vacancy: number) => {
    const total = targets.total[vacancy] as number
    if (!(total > 0)) return 0
    let sum = 0
    const to = targets.start[vacancy + 1] as number
    for (let row = targets.start[vacancy] as number; row < to; row++) {
      const skill = targets.skill[row] as number
      if (heldMask[skill] === 0) continue
      sum += earnedWeight(
        targets.weight[row] as number,
        held[skill] as number,
        targets.required[row] as number,
        heldLevel[skill] as number,
        proficiency,
      )
    }
    return sum / total
  }
  // Weights: skills_match is always a component (1.0 unless given).
  const weights: VacancyMatchWeight[] = body.weights.some((weight) => weight.weight === 'skills_match')
    ? body.weights
    : [{ weight: 'skills_match', value: 1 }, ...body.weights]
  const offsetOfGiven = weights === body.weights ? 0 : 1
  const components: VacancyPlan['components'] = []
  let needDistance = options.needDistance
  for (const [position, weight] of weights.entries()) {
    const field = `weights[${position - offsetOfGiven}]`
    if (isCustomPropertyRule(weight)) {
      const rule = compilePropertyRule(weight, field, context)
      components.push({
        weight: weight.weight,
        value: weight.value,
        property_name:
          'property_name' in weight
            ? weight.property_name
            : `${(weight as { from_entity_property: string }).from_entity_property}/${(weight as { to_entity_property: string }).to_entity_property}`,
        score: (vacancy) => rule.score(employeeProps, index.customProperties[vacancy]),
      })
      continue
    }
    switch (weight.weight) {
      case 'skills_match':
        components.push({ weight: weight.weight, value: weight.value, score: skillsScore })
        break
      case 'desired_functions': {
        const desired = new Set(employee.record.desired_functions ?? [])
        components.push({
          weight: weight.weight,
          value: weight.value,
          score: (vacancy) => {
            const job = index.jobId[vacancy]
            const family = index.familyId[vacancy]
            return (job && desired.has(job)) || (family && desired.has(family)) ? 1 : 0
          },
        })
        break
      }
      case 'geo_distance': {
        if (weight.zero_score_distance <= weight.full_score_distance) {
          problems.add(
            `${field}.zero_score_distance: must be greater than full_score_distance (${weight.full_score_distance}); got ${weight.zero_score_distance}`,
          )
        }
        needDistance = true
        const from = origin
        if (!from && originField === null) notes.push(`${home.note}: geo_distance scored 0`)
        const array = from ? distances(from) : null
        components.push({
          weight: weight.weight,
          value: weight.value,
          score: (vacancy) =>
            array
              ? distanceScore(
                  Number.isNaN(array[vacancy] as number) ? null : (array[vacancy] as number),
                  weight.full_score_distance,
                  weight.zero_score_distance,
                )
              : 0,
        })
        break
      }
      case 'language': {
        const { max_overqualification: maxOver, max_underqualification: maxUnder } = weight
        components.push({
          weight: weight.weight,
          value: weight.value,
          score: (vacancy) => {
            const from = index.langStart[vacancy] as number
            const to = index.langStart[vacancy + 1] as number
            if (to === from) return 1
            let sum = 0
            for (let row = from; row < to; row++) {
              const heldLevelOf = spoken.get(index.langCode[row] as string) ?? 0
              sum += languageRequirementScore(index.langLevel[row] as number, heldLevelOf, maxOver, maxUnder)
            }
            return sum / (to - from)
          },
        })
        break
      }
    }
  }
  const totalValue = components.reduce((sum, component) => sum + component.value, 0)
  if (!(totalValue > 0)) problems.add('weights: the values must not all be 0')
  problems.throwIfAny()
  const from = origin
  return {
    filters,
    components,
    totalValue,
    held,
    heldLevel,
    heldMask,
    distance: needDistance && from ? distances(from) : null,
    notes,
    allowedEventTypes: allowed,
    geo,
  }
}

/** Ranks every active vacancy that passes the filters: [vacancy number, score], best first. */
function rank(
  index: VacancyIndex,
  plan: VacancyPlan,
  minScore: number,
): { vacancy: number; score: number }[] {
  const ranked: { vacancy: number; score: number }[] = []
  const { filters, components, totalValue } = plan
  const single = components.length === 1 ? components[0] : undefined
  outer: for (let vacancy = 0; vacancy < index.ids.length; vacancy++) {
    for (const filter of filters) if (!filter(vacancy)) continue outer
    let score: number
    if (single) score = single.score(vacancy)
    else {
      let sum = 0
      for (const component of components)
        if (component.value > 0) sum += component.value * component.score(vacancy)
      score = sum / totalValue
    }
    score = roundScore(score)
    if (score > 0 && score >= minScore) ranked.push({ vacancy, score })
  }
  // Vacancy numbers follow external ids: the tie-break on number is the tie-break on id.
  ranked.sort((a, b) => b.score - a.score || a.vacancy - b.vacancy)
  return ranked
}

/** The one employee's evidence events, by external id (relevant_experience). */
async function employeeEvents(
  database: TenantDatabase,
  employeeId: string,
): Promise<Map<string, { event_type: string; timestamp: string; summary: string | null }>> {
  const rows = await database.all<{
    external_id: string
    event_type: string
    timestamp: string
    content: string
  }>(
    `SELECT external_id, event_type, strftime(timestamp, '%Y-%m-%d') AS timestamp, content::VARCHAR AS content
       FROM skill_events WHERE employee_id = $1`,
    [employeeId],
  )
  return new Map(
    rows.map((row) => [
      row.external_id,
      { event_type: row.event_type, timestamp: row.timestamp, summary: summaryOf(JSON.parse(row.content)) },
    ]),
  )
}

/** A one-line summary of an event's content: its title and where it happened. */
function summaryOf(content: Record<string, unknown>): string | null {
  const title = ['job_title', 'title', 'name', 'degree', 'file_name', 'job_id', 'course_id', 'skill_id']
    .map((key) => content[key])
    .find((value) => typeof value === 'string')
  const where = ['company', 'institution', 'issuer', 'provider', 'repository', 'system']
    .map((key) => content[key])
    .find((value) => typeof value === 'string')
  if (typeof title !== 'string') return null
  return typeof where === 'string' ? `${title} (${where})` : title
}

function weightedSkills(index: VacancyIndex, vacancy: number): WeightedTargetSkill[] {
  const { targets } = index
  const skills: WeightedTargetSkill[] = []
  for (let row = targets.start[vacancy] as number; row < (targets.start[vacancy + 1] as number); row++) {
    skills.push({
      skill_id: index.skillIds[targets.skill[row] as number] as string,
      weight: targets.weight[row] as number,
      required: targets.required[row] as number,
      critical: index.features.useCriticalities && targets.critical[row] === 1,
    })
  }
  return skills
}

/**
 * 4.11, top matching Vacancies for an Employee: every active vacancy that passes the filters
 * (geo-distance 50 km by default), scored by the weights (scoring-model.ts, section 2), ranked,
 * from `offset` on, `limit` of them, with the requested includes.
 */
export async function matchVacancies(
  tenant: MatchingTenant,
  employeeId: string,
  body: unknown,
  query: VacancyMatchingQuery = {},
): Promise<VacancyMatchingResponse> {
  const prepared = await prepareVacancyMatching(tenant, body, query)
  const id = ExternalId.safeParse(employeeId)
  if (!id.success) {
    throw errors.unprocessable(`employee_external_id: ${id.error.issues[0]?.message}; got '${employeeId}'`)
  }
  const index = await vacancyIndex(tenant.database, prepared.vendor, prepared.features, tenant.dataVersion)
  const employee = await loadEmployeeForMatching(tenant.database, index, employeeId)
  return matchVacanciesFor(tenant, index, employee, prepared)
}

/** A checked 4.11 request, reusable for many employees (the `--all-employees` batch). */
export interface PreparedVacancyMatching {
  body: VacancyMatchingRequest
  query: ReturnType<typeof VacancyMatchingQuerySchema.parse>
  vendor: ExternalVendor
  language: VocabLanguage
  features: ScoringFeatures
  names?: SkillNames
}

/** Checks the query and body of 4.11 (422s naming the field). */
export async function prepareVacancyMatching(
  tenant: MatchingTenant,
  body: unknown,
  query: VacancyMatchingQuery,
): Promise<PreparedVacancyMatching> {
  const parsedQuery = parseOr422(VacancyMatchingQuerySchema, query, VACANCY_MATCHING_RANGES)
  const vendor = requireVendor(tenant, parsedQuery.external_vendor ?? 'vendor_default')
  const language = await resolveVocabLanguage(tenant, vendor, parsedQuery.vocab_language)
  const parsedBody = parseOr422(VacancyMatchingRequest, body ?? {}, VACANCY_MATCHING_RANGES, '', 'body')
  const prepared: PreparedVacancyMatching = {
    body: parsedBody,
    query: parsedQuery,
    vendor,
    language,
    features: {
      proficiencyMatching: tenant.settings.features.proficiency_matching,
      useCriticalities: tenant.settings.features.use_criticalities,
    },
  }
  if (parsedQuery.response_format === 'explained')
    prepared.names = await SkillNames.load(tenant.database, vendor)
  return prepared
}

/** 4.11 for one loaded employee and a prepared request. */
export async function matchVacanciesFor(
  tenant: MatchingTenant,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  prepared: PreparedVacancyMatching,
): Promise<VacancyMatchingResponse> {
  const { query } = prepared
  const includes = new Set(query.include)
  const restricted = (prepared.body.event_types ?? []).length > 0
  const evidence =
    restricted || includes.has('relevant_experience')
      ? await employeeEvidence(tenant.database, employee.id, prepared.vendor)
      : undefined
  const compiled = await plan(tenant, index, employee, prepared.body, {
    needDistance: includes.has('location'),
    evidence,
  })
  const ranked = rank(index, compiled, query.min_score)
  const page = ranked.slice(query.offset, query.offset + query.limit)
  const events = includes.has('relevant_experience')
    ? await employeeEvents(tenant.database, employee.id)
    : undefined
  const entities = includes.has('entity')
    ? await vacancyEntities(
        tenant.database,
        page.map((entry) => index.ids[entry.vacancy] as string),
      )
    : undefined
  const records = page.map((entry, position) => {
    const vacancy = entry.vacancy
    const vacancyId = index.ids[vacancy] as string
    const record: VacancyMatchRecord = {
      vacancy_id: vacancyId,
      score: entry.score,
      rank: query.offset + position + 1,
    }
    const needCoverage = includes.has('relevant_experience') || query.response_format === 'explained'
    const coverage = needCoverage
      ? scoreCoverage(
          weightedSkills(index, vacancy),
          (skill) => {
            const number = index.skillIndex.get(skill) as number
            return compiled.heldMask[number] === 1
              ? { strength: compiled.held[number] as number, level: compiled.heldLevel[number] as number }
              : undefined
          },
          prepared.features,
        )
      : undefined
    if (includes.has('custom_properties')) record.custom_properties = index.customProperties[vacancy] ?? {}
    if (entities)
      record.entity = entities.get(vacancyId) ?? { title: index.titles[vacancy] as string, description: null }
    if (includes.has('location')) {
      const known = !Number.isNaN(index.lat[vacancy] as number)
      const distance = compiled.distance?.[vacancy]
      record.location = {
        location: index.location[vacancy] ?? null,
        lat: known ? (index.lat[vacancy] as number) : null,
        lng: known ? (index.lng[vacancy] as number) : null,
        known,
        distance_km:
          distance !== undefined && !Number.isNaN(distance) ? Math.round(distance * 10) / 10 : null,
        ...(index.locationNote[vacancy] ? { note: index.locationNote[vacancy] as string } : {}),
      }
    }
    if (events && coverage) {
      const byEvent = new Map<string, string[]>()
      for (const skill of coverage.matched) {
        for (const item of evidence?.get(skill.skill_id) ?? []) {
          if (compiled.allowedEventTypes && !compiled.allowedEventTypes.has(item.event_type)) continue
          const list = byEvent.get(item.external_id) ?? []
          list.push(skill.skill_id)
          byEvent.set(item.external_id, list)
        }
      }
      record.relevant_experience = [...byEvent.entries()]
        .flatMap(([external_id, skill_ids]) => {
          const event = events.get(external_id)
          return event
            ? [
                {
                  external_id,
                  event_type: event.event_type as never,
                  timestamp: event.timestamp,
                  summary: event.summary,
                  skill_ids,
                },
              ]
            : []
        })
        .sort((a, b) =>
          a.timestamp > b.timestamp
            ? -1
            : a.timestamp < b.timestamp
              ? 1
              : a.external_id < b.external_id
                ? -1
                : 1,
        )
    }
    if (includes.has('score_breakdown')) {
      record.score_breakdown = compiled.components.map((component) => {
        const score = component.score(vacancy)
        return {
          weight: component.weight,
          value: component.value,
          score: roundFigure(score),
          contribution: roundFigure((component.value * score) / compiled.totalValue),
          ...(component.property_name ? { property_name: component.property_name } : {}),
        }
      })
    }
    if (includes.has('match_feedback')) {
      const feedback = employee.feedback.get(vacancyId)
      record.match_feedback = feedback
        ? { feedback: feedback.feedback as never, timestamp: feedback.timestamp }
        : null
    }
    if (coverage && prepared.names && query.response_format === 'explained') {
      const notes = [...compiled.notes]
      const note = index.locationNote[vacancy]
      if (note)
        notes.push(
          `location unknown: ${note}; geo-distance filters did not exclude it and geo_distance scored 0`,
        )
      record.explanation = {
        ...(explanation(coverage, prepared.names, prepared.language, prepared.features) as Pick<
          NonNullable<VacancyMatchRecord['explanation']>,
          'matched_skills' | 'missing_skills'
        >),
        notes,
      }
    }
    return record
  })
  return {
    employee_id: employee.id,
    records,
    offset: query.offset,
    limit: query.limit,
    total: ranked.length,
    geo_filter_applied: compiled.geo.applied,
    ...(compiled.geo.note ? { geo_filter_note: compiled.geo.note } : {}),
  }
}

/** Titles and descriptions of some vacancies (include=entity), fetched for the page only. */
async function vacancyEntities(
  database: TenantDatabase,
  ids: string[],
): Promise<Map<string, { title: string; description: string | null }>> {
  if (ids.length === 0) return new Map()
  const rows = await database.all<{ external_id: string; title: string; description: string | null }>(
    `SELECT external_id, doc->>'title' AS title, doc->>'description' AS description FROM vacancies WHERE list_contains($1, external_id)`,
    [listValue(ids)],
  )
  return new Map(rows.map((row) => [row.external_id, { title: row.title, description: row.description }]))
}

/**
 * 4.11 for every employee, in external_id order (`match vacancies --all-employees`, the nightly
 * job), or for the employees named in `options.employees`: the request is checked once; each
 * employee's answer is handed to `onResult`.
 */
export async function matchAllEmployees(
  tenant: MatchingTenant,
  body: unknown,
  query: VacancyMatchingQuery,
  onResult: (result: VacancyMatchingResponse) => void | Promise<void>,
  options: { employees?: readonly string[] } = {},
): Promise<{
  employees: number
  matches: number
  seconds: number
  failed: { employee_id: string; errors: string[] }[]
}> {
  const started = performance.now()
  const prepared = await prepareVacancyMatching(tenant, body, query)
  const ids =
    options.employees ??
    (
      await tenant.database.all<{ external_id: string }>(
        'SELECT external_id FROM employees ORDER BY external_id',
      )
    ).map((row) => row.external_id)
  let matches = 0
  const failed: { employee_id: string; errors: string[] }[] = []
  // The batch reads; nothing writes meanwhile: one index serves every employee.
  const index = await vacancyIndex(tenant.database, prepared.vendor, prepared.features, tenant.dataVersion)
  for (const id of ids) {
    const employee = await loadEmployeeForMatching(tenant.database, index, id)
    let result: VacancyMatchingResponse
    try {
      result = await matchVacanciesFor(tenant, index, employee, prepared)
    } catch (error) {
      // A request can be fine for most employees and not for one (a max_geo_distance filter
      // without a location, for an employee whose own location is unknown): report it, go on.
      if (isSkillhouseError(error) && error.status === 422) {
        failed.push({ employee_id: id, errors: error.descriptions })
        continue
      }
      throw error
    }
    matches += result.records.length
    await onResult(result)
  }
  return { employees: ids.length, matches, seconds: (performance.now() - started) / 1000, failed }
}
