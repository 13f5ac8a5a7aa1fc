import { errors } from '../errors/skillhouse-error.js'
import { ExternalId } from '../schemas/common.js'
import { LIMITS } from '../schemas/limits.js'
import { VacancyMatchingRequest } from '../schemas/matching.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import type { MatchingTenant } from './match-jobs.js'
import { parseOr422, type Ranges } from './request-issues.js'
import { roundScore, type ScoringFeatures, weightedMean } from './scoring-model.js'
import {
  type EmployeeForMatching,
  employeeEvents,
  employeeEvidence,
  loadEmployeeForMatching,
  loadEmployeesForMatching,
} from './vacancy-employee.js'
import { type VacancyIndex, vacancyIndex } from './vacancy-index.js'
import {
  type VacancyMatchingQuery,
  VacancyMatchingQuery as VacancyMatchingQuerySchema,
  type VacancyMatchingResponse,
} from './vacancy-match-schema.js'
import { VacancyCandidateFinder } from './vacancy-postings.js'
import { type VacancyPage, vacancyEntities, vacancyRecord } from './vacancy-records.js'
import { checkVacancyRequest, type VacancyPlan } from './vacancy-request-check.js'
import { type SharedRequestParts, sharedRequestParts } from './vacancy-request-context.js'

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

/** 4.11 for one loaded employee and a prepared request; a 422 listing the request's problems. */
export async function matchVacanciesFor(
  tenant: MatchingTenant,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  prepared: PreparedVacancyMatching,
): Promise<VacancyMatchingResponse> {
  const answer = await answerVacancyMatching(tenant, index, employee, prepared)
  if (answer.problems) throw errors.unprocessable(answer.problems)
  return answer.response
}

/** 4.11 for one employee: the response, or the problems of the request for this employee. */
type VacancyMatchingAnswer =
  | { response: VacancyMatchingResponse; problems?: undefined }
  | { response?: undefined; problems: string[] }

/** What the answers of a batch share: the request's parts, and the finder of candidate vacancies. */
interface VacancyBatch {
  shared: SharedRequestParts
  finder: VacancyCandidateFinder
}

async function answerVacancyMatching(
  tenant: MatchingTenant,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  prepared: PreparedVacancyMatching,
  batch?: VacancyBatch,
): Promise<VacancyMatchingAnswer> {
  const { query } = prepared
  const includes = new Set<string>(query.include)
  const restricted = (prepared.body.event_types ?? []).length > 0
  const evidence =
    restricted || includes.has('relevant_experience')
      ? await employeeEvidence(tenant.database, employee.id, prepared.vendor)
      : undefined
  const checked = await checkVacancyRequest(tenant.database, index, employee, prepared.body, {
    needDistance: includes.has('location'),
    evidence,
    shared: batch?.shared,
  })
  if (!checked.plan) return { problems: checked.problems }
  const plan = checked.plan
  const ranked = rank(index, plan, query.min_score, batch ? batch.finder.candidates(plan) : null)
  const entries = ranked.slice(query.offset, query.offset + query.limit)
  const events = includes.has('relevant_experience')
    ? await employeeEvents(tenant.database, employee.id)
    : undefined
  const entities = includes.has('entity')
    ? await vacancyEntities(
        tenant.database,
        entries.map((entry) => index.ids[entry.vacancy] as string),
      )
    : undefined
  const page: VacancyPage = {
    index,
    plan,
    employee,
    query,
    includes,
    features: prepared.features,
    language: prepared.language,
    names: prepared.names,
    evidence,
    events,
    entities,
  }
  const response: VacancyMatchingResponse = {
    employee_id: employee.id,
    records: entries.map((entry, position) => vacancyRecord(page, entry, position)),
    offset: query.offset,
    limit: query.limit,
    total: ranked.length,
    geo_filter_applied: plan.geo.applied,
    ...(plan.geo.note ? { geo_filter_note: plan.geo.note } : {}),
  }
  return { response }
}

/**
 * Ranks every active vacancy that passes the filters: [vacancy number, score], best first. Only
 * `candidates` are tested when given (the others are known to score 0).
 */
function rank(
  index: VacancyIndex,
  plan: VacancyPlan,
  minScore: number,
  candidates: ArrayLike<number> | null,
): { vacancy: number; score: number }[] {
  const ranked: { vacancy: number; score: number }[] = []
  const { filters } = plan
  const combined = weightedMean(plan.components, plan.totalValue)
  const count = candidates ? candidates.length : index.ids.length
  outer: for (let at = 0; at < count; at++) {
    const vacancy = candidates ? (candidates[at] as number) : at
    for (const filter of filters) if (!filter(vacancy)) continue outer
    const score = roundScore(combined(vacancy))
    if (score > 0 && score >= minScore) ranked.push({ vacancy, score })
  }
  // Vacancy numbers follow external ids: the tie-break on number is the tie-break on id.
  ranked.sort((a, b) => b.score - a.score || a.vacancy - b.vacancy)
  return ranked
}

/** How many employees' records a batch reads at a time. */
const EMPLOYEES_READ_AT_ONCE = 2_000

/**
 * 4.11 for every employee, in external_id order (`match vacancies --all-employees`, the nightly
 * job), or for the employees named in `options.employees`: the request is checked once; each
 * employee's answer is handed to `onResult`. The answers are those of `matchVacancies`, byte for
 * byte, made as a batch: the employees' records are read a few thousand at a time, what the
 * requests share (places, distances, definitions) is found once, and when skills_match is the
 * only weight only the vacancies asking for a skill the employee holds are tested and scored
 * (found through posting lists of the vacancies' skills; the others score 0).
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
  const batch: VacancyBatch = {
    shared: sharedRequestParts(tenant.database, index),
    finder: new VacancyCandidateFinder(index),
  }
  for (let from = 0; from < ids.length; from += EMPLOYEES_READ_AT_ONCE) {
    const chunk = ids.slice(from, from + EMPLOYEES_READ_AT_ONCE)
    for (const employee of await loadEmployeesForMatching(tenant.database, index, chunk)) {
      const answer = await answerVacancyMatching(tenant, index, employee, prepared, batch)
      if (answer.problems) {
        // A request can be fine for most employees and not for one (a max_geo_distance filter
        // without a location, for an employee whose own location is unknown): report it, go on.
        failed.push({ employee_id: employee.id, errors: answer.problems })
        continue
      }
      matches += answer.response.records.length
      await onResult(answer.response)
    }
  }
  return { employees: ids.length, matches, seconds: (performance.now() - started) / 1000, failed }
}
