import { availableParallelism } from 'node:os'
import { errors } from '../errors/skillhouse-error.js'
import { ExternalId } from '../schemas/common.js'
import { LIMITS } from '../schemas/limits.js'
import { VacancyMatchingRequest } from '../schemas/matching.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import { workerScriptBeside } from '../util/module-source.js'
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
import { type VacancyAnswer, VacancyWorkerPool } from './vacancy-worker-pool.js'

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

/** What the answers of a batch share: the request's parts, and the finder of candidate vacancies. */
export interface VacancyBatch {
  shared: SharedRequestParts
  finder: VacancyCandidateFinder
}

/** The parts a batch's answers share, made once per batch (and thread). */
export function vacancyBatch(database: TenantDatabase, index: VacancyIndex): VacancyBatch {
  return { shared: sharedRequestParts(database, index), finder: new VacancyCandidateFinder(index) }
}

/** 4.11 for one employee: the response, or the problems of the request for this employee. */
export async function answerVacancyMatching(
  tenant: MatchingTenant,
  index: VacancyIndex,
  employee: EmployeeForMatching,
  prepared: PreparedVacancyMatching,
  batch?: VacancyBatch,
): Promise<VacancyAnswer> {
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
  const ranked = rank(
    index,
    plan,
    query.min_score,
    batch ? batch.finder.candidates(plan) : null,
    query.offset + query.limit,
  )
  const entries = ranked.best.slice(query.offset)
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
    total: ranked.total,
    geo_filter_applied: plan.geo.applied,
    ...(plan.geo.note ? { geo_filter_note: plan.geo.note } : {}),
  }
  return { response }
}

/** A vacancy ranked for an employee. */
interface RankedVacancy {
  vacancy: number
  score: number
}

/** Whether (score, vacancy) ranks before `other`: higher score, then lower number (external id order). */
function before(score: number, vacancy: number, other: RankedVacancy): boolean {
  return score > other.score || (score === other.score && vacancy < other.vacancy)
}

/**
 * Ranks every active vacancy that passes the filters: the `first` best [vacancy number, score],
 * best first, and how many pass. Only `candidates` are tested when given (the others are known to
 * fail a filter or score 0). Only the first places are kept in order, by insertion into a short
 * list: most vacancies rank below its last and cost one comparison (far offsets sort them all).
 */
function rank(
  index: VacancyIndex,
  plan: VacancyPlan,
  minScore: number,
  candidates: ArrayLike<number> | null,
  first: number,
): { best: RankedVacancy[]; total: number } {
  const best: RankedVacancy[] = []
  let total = 0
  const { filters } = plan
  const combined = weightedMean(plan.components, plan.totalValue)
  const count = candidates ? candidates.length : index.ids.length
  const sortAll = first > SHORT_LIST
  outer: for (let at = 0; at < count; at++) {
    const vacancy = candidates ? (candidates[at] as number) : at
    for (const filter of filters) if (!filter(vacancy)) continue outer
    const score = roundScore(combined(vacancy))
    if (!(score > 0 && score >= minScore)) continue
    total++
    if (sortAll) {
      best.push({ vacancy, score })
      continue
    }
    if (best.length === first) {
      if (!before(score, vacancy, best[first - 1] as RankedVacancy)) continue
      best.pop()
    }
    let place = best.length
    while (place > 0 && before(score, vacancy, best[place - 1] as RankedVacancy)) place--
    best.splice(place, 0, { vacancy, score })
  }
  if (sortAll) {
    best.sort((a, b) => b.score - a.score || a.vacancy - b.vacancy)
    best.length = Math.min(best.length, first)
  }
  return { best, total }
}

/** Beyond this many first places (a far offset), every vacancy ranked is kept and sorted. */
const SHORT_LIST = 256

/** How many employees' records a batch reads at a time. */
const EMPLOYEES_READ_AT_ONCE = 2_000

/** Employees of one message to a worker thread: small enough that the threads finish together. */
const EMPLOYEES_PER_MESSAGE = 250

/** How a batch of 4.11 answers runs on worker threads. */
export interface VacancyBatchThreads {
  /** The worker script (vacancy-match-worker.js); default: the compiled one beside this module. */
  script?: URL | undefined
  /**
   * How many threads (0: answer on this thread); default: SKILLHOUSE_MATCH_WORKERS, else one per
   * core up to 8, for batches of SKILLHOUSE_VACANCY_PARALLEL_MIN_EMPLOYEES employees (500) or more.
   */
  threads?: number | undefined
}

/** The threads of a batch of `employees` answers (see VacancyBatchThreads), and their script. */
function batchThreads(
  employees: number,
  options: VacancyBatchThreads,
): { script: URL; threads: number } | null {
  const script = options.script ?? workerScriptBeside('vacancy-match-worker', import.meta.url)
  const configured = process.env.SKILLHOUSE_MATCH_WORKERS
  const minimum = Number(process.env.SKILLHOUSE_VACANCY_PARALLEL_MIN_EMPLOYEES ?? 500)
  const threads =
    options.threads ??
    (employees < minimum
      ? 0
      : configured !== undefined
        ? Number(configured)
        : Math.min(availableParallelism(), 8))
  if (!script || !(threads >= 1)) return null
  return { script, threads: Math.min(threads, Math.ceil(employees / EMPLOYEES_PER_MESSAGE)) }
}

/** What a batch reports. */
export interface VacancyBatchSummary {
  employees: number
  matches: number
  seconds: number
  failed: { employee_id: string; errors: string[] }[]
  /** Worker threads that answered (0: this thread did). */
  threads: number
}

/**
 * 4.11 for every employee, in external_id order (`match vacancies --all-employees`, the nightly
 * job), or for the employees named in `options.employees`: the request is checked once; each
 * employee's answer is handed to `onResult`. The answers are those of `matchVacancies`, byte for
 * byte, made as a batch: the employees' records are read a few thousand at a time, what the
 * requests share (places, distances, definitions) is found once, and when skills_match is the
 * only weight only the vacancies asking for a skill the employee holds are tested and scored
 * (found through posting lists of the vacancies' skills; the others score 0). A large batch is
 * answered on worker threads (`options.threads`), by the same code: the same answers, in the
 * same order.
 */
export async function matchAllEmployees(
  tenant: MatchingTenant,
  body: unknown,
  query: VacancyMatchingQuery,
  onResult: (result: VacancyMatchingResponse) => void | Promise<void>,
  options: { employees?: readonly string[]; threads?: VacancyBatchThreads } = {},
): Promise<VacancyBatchSummary> {
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
  const take = async (employee: string, answer: VacancyAnswer) => {
    if (answer.problems) {
      // A request can be fine for most employees and not for one (a max_geo_distance filter
      // without a location, for an employee whose own location is unknown): report it, go on.
      failed.push({ employee_id: employee, errors: answer.problems })
      return
    }
    matches += answer.response.records.length
    await onResult(answer.response)
  }
  const threads = batchThreads(ids.length, options.threads ?? {})
  const chunks = (async function* () {
    for (let from = 0; from < ids.length; from += EMPLOYEES_READ_AT_ONCE)
      yield await loadEmployeesForMatching(
        tenant.database,
        index,
        ids.slice(from, from + EMPLOYEES_READ_AT_ONCE),
      )
  })()
  if (threads) {
    const pool = new VacancyWorkerPool(threads.script, threads.threads, tenant, { body, query }, index)
    try {
      await answerOnThreads(pool, chunks, take)
    } finally {
      await pool.close()
    }
  } else {
    const batch = vacancyBatch(tenant.database, index)
    for await (const chunk of chunks) {
      for (const employee of chunk)
        await take(employee.id, await answerVacancyMatching(tenant, index, employee, prepared, batch))
    }
  }
  const seconds = (performance.now() - started) / 1000
  return { employees: ids.length, matches, seconds, failed, threads: threads?.threads ?? 0 }
}

/**
 * Sends the employees to the pool a message at a time, a few messages per thread ahead, and
 * takes the answers in the employees' order.
 */
async function answerOnThreads(
  pool: VacancyWorkerPool,
  chunks: AsyncIterable<EmployeeForMatching[]>,
  take: (employee: string, answer: VacancyAnswer) => Promise<void>,
): Promise<void> {
  const pending: { ids: string[]; answers: Promise<VacancyAnswer[]> }[] = []
  const takeFirst = async () => {
    const first = pending.shift()
    if (!first) return
    const answers = await first.answers
    for (const [at, answer] of answers.entries()) await take(first.ids[at] as string, answer)
  }
  try {
    for await (const chunk of chunks) {
      for (let from = 0; from < chunk.length; from += EMPLOYEES_PER_MESSAGE) {
        const employees = chunk.slice(from, from + EMPLOYEES_PER_MESSAGE)
        const answers = pool.answer(employees)
        // A failure is met when its turn comes; until then it must not count as unhandled.
        answers.catch(() => undefined)
        pending.push({ ids: employees.map((employee) => employee.id), answers })
        while (pending.length > pool.size * 3) await takeFirst()
      }
    }
    while (pending.length > 0) await takeFirst()
  } finally {
    pending.length = 0
  }
}
