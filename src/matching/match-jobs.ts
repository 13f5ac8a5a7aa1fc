import { availableParallelism } from 'node:os'
import { errors } from '../errors/skillhouse-error.js'
import { JobMatchingRequest, type JobMatchingResponse, ResponseFormat } from '../schemas/matching.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import { workerScriptBeside } from '../util/module-source.js'
import { compilePropertyRule, isCustomPropertyRule } from './custom-property-rules.js'
import { employeeUpdateTimes, jobCount, jobIndex, weightedTargetSkills } from './job-index.js'
import type { JobIndex, JobMatchData } from './job-match-data.js'
import { JobWorkerPool } from './job-match-worker.js'
import {
  customPropertiesOf,
  lastUpdatedTest,
  type PairFilterSpec,
  pairFilterOf,
  propertyDefinitions,
} from './match-filters.js'
import { sharedUint8 } from './profile-columns.js'
import { ProblemList, parseOr422, type Ranges } from './request-issues.js'
import {
  JobCandidateScorer,
  type JobMatchesTable,
  type JobScoringParams,
  jobMatchesTable,
} from './score-job-candidates.js'
import { type Coverage, roundFigure, type ScoringFeatures, scoreCoverage } from './scoring-model.js'

/** What job matching needs of a tenant (an `OpenTenant` fits, and so will the server's). */
export interface MatchingTenant {
  database: TenantDatabase
  settings: TenantSettings
  baseUrl: string
  /** The server's data version for reads (see `TaxonomyTenant.dataVersion`); absent in commands. */
  dataVersion?: string | undefined
}

/** Query parameters of 4.10, as strings the client sent (all optional). */
export interface JobMatchingQuery {
  response_format?: string | undefined
  external_vendor?: string | undefined
  vocab_language?: string | undefined
}

/** The ranges of section 8 (and skillhouse's own), for 422 messages that name both ends. */
export const JOB_MATCHING_RANGES: Ranges = {
  limit: [1, 50],
  match_limit_per_entity: [1, 100],
  score_min_threshold: [0, 1],
  min_critical_skills_match_ratio: [0, 1],
  'weights[].value': [0, 100],
}

/** How job scoring runs on worker threads. */
export interface JobScoringThreads {
  /** The worker script (job-match-worker.js); default: the compiled one beside this module. */
  script?: URL | undefined
  /**
   * How many threads (0: score on this thread); default: SKILLHOUSE_MATCH_WORKERS, else one per
   * core up to 8, for SKILLHOUSE_MATCH_PARALLEL_MIN_JOBS jobs (256) or more.
   */
  threads?: number | undefined
}

/** A checked 4.10 request: body, query and the tenant's features. */
interface PreparedJobRequest {
  body: JobMatchingRequest
  vendor: ExternalVendor
  language: VocabLanguage
  explained: boolean
  features: ScoringFeatures
  params: JobScoringParams
}

/** Checks the query and body of 4.10; every problem is a 422 naming its field. */
async function prepare(
  tenant: MatchingTenant,
  input: unknown,
  query: JobMatchingQuery,
): Promise<PreparedJobRequest> {
  const format = ResponseFormat.safeParse(query.response_format ?? 'simple')
  if (!format.success) {
    throw errors.unprocessable(
      `response_format: must be one of simple, explained; got '${String(query.response_format)}'`,
    )
  }
  const vendor = requireVendor(tenant, query.external_vendor ?? 'vendor_default')
  const language = await resolveVocabLanguage(tenant, vendor, query.vocab_language)
  const body = parseOr422(JobMatchingRequest, input, JOB_MATCHING_RANGES, '', 'body')
  const features: ScoringFeatures = {
    proficiencyMatching: tenant.settings.features.proficiency_matching,
    useCriticalities: tenant.settings.features.use_criticalities,
  }
  const problems = new ProblemList()
  if (body.include_overqualified === false && !features.proficiencyMatching) {
    problems.add(
      `include_overqualified: works only when matching with skill properties (proficiency_matching) is enabled on tenant ${tenant.settings.name}; remove it or enable the feature`,
    )
  }
  const minRatio = body.min_critical_skills_match_ratio ?? null
  if (minRatio !== null && !features.useCriticalities) {
    problems.add(
      `min_critical_skills_match_ratio: works only when the use_criticalities feature is enabled on tenant ${tenant.settings.name}; remove it or enable the feature`,
    )
  }
  body.weights.forEach((weight, index) => {
    if (weight.value === 0)
      problems.add(`weights[${index}].value: the skills_match weight must be greater than 0; got 0`)
  })
  problems.throwIfAny()
  return {
    body,
    vendor,
    language,
    explained: format.data === 'explained',
    features,
    params: {
      threshold: body.score_min_threshold,
      k: body.match_limit_per_entity,
      proficiencyMatching: features.proficiencyMatching,
      useCriticalities: features.useCriticalities,
      minCriticalRatio: minRatio,
      excludeOverqualified: features.proficiencyMatching && body.include_overqualified === false,
    },
  }
}

/**
 * The filters of a 4.10 request as the scorer takes them. Filters apply to the employees (the
 * entities being matched): a mask for the job-independent ones, and for the from/to custom
 * property rules a test of (job, employee), *from* being the Job's property and *to* the
 * Employee's.
 */
async function compileFilters(
  tenant: MatchingTenant,
  index: JobIndex,
  body: JobMatchingRequest,
): Promise<{ mask: Uint8Array; pair: PairFilterSpec | null }> {
  const database = tenant.database
  const count = index.employeeIds.length
  const mask = sharedUint8(count).fill(1)
  const problems = new ProblemList()
  // The definitions are read only for a request with custom property rules: a page without them
  // (most pages) asks the database nothing once the index is warm.
  const custom = body.filters.some(isCustomPropertyRule)
  const context = {
    sourceDefinitions: custom ? await propertyDefinitions(database, 'job_architecture/jobs') : new Map(),
    candidateDefinitions: custom ? await propertyDefinitions(database, 'employees') : new Map(),
    sourceType: 'job_architecture/jobs',
    candidateType: 'employees',
    problems,
  }
  const pairRules: PairFilterSpec['rules'] = []
  const ownRules: ReturnType<typeof compilePropertyRule>[] = []
  const employeeProperties = new Set<string>()
  const jobProperties = new Set<string>()
  for (const [position, filter] of body.filters.entries()) {
    const field = `filters[${position}]`
    if (isCustomPropertyRule(filter)) {
      const rule = compilePropertyRule(filter, field, context)
      if (rule.candidateProperty) employeeProperties.add(rule.candidateProperty)
      if (rule.readsSource) {
        if (rule.sourceProperty) jobProperties.add(rule.sourceProperty)
        pairRules.push({ rule: filter, field })
      } else ownRules.push(rule)
      continue
    }
    await maskEmployees(tenant, index, mask, filter, field, problems)
  }
  problems.throwIfAny()
  const employeeProps =
    employeeProperties.size > 0
      ? await customPropertiesOf(database, 'employees', index.employeeIds, employeeProperties)
      : []
  for (const rule of ownRules) {
    for (let employee = 0; employee < count; employee++) {
      if (mask[employee] === 1 && rule.score(undefined, employeeProps[employee]) <= 0) mask[employee] = 0
    }
  }
  if (pairRules.length === 0) return { mask, pair: null }
  return {
    mask,
    pair: {
      rules: pairRules,
      sourceDefinitions: [...context.sourceDefinitions],
      candidateDefinitions: [...context.candidateDefinitions],
      sourceProps: await customPropertiesOf(database, 'jobs', index.jobIds, jobProperties),
      candidateProps: employeeProps,
    },
  }
}

/** Clears in `mask` the employees a filter of 4.10 that is no custom property rule leaves out. */
async function maskEmployees(
  tenant: MatchingTenant,
  index: JobIndex,
  mask: Uint8Array,
  filter: JobMatchingRequest['filters'][number],
  field: string,
  problems: ProblemList,
): Promise<void> {
  const count = index.employeeIds.length
  switch (filter.filter) {
    case 'external_id_is_in_list': {
      const wanted = new Set(filter.external_ids)
      let selected = 0
      for (let employee = 0; employee < count; employee++) {
        if (!wanted.has(index.employeeIds[employee] as string)) mask[employee] = 0
        else selected++
      }
      // A list that names no employee cannot select the candidates: most likely it means jobs.
      if (selected === 0) problems.add(noEmployeeListed(field, filter.external_ids, index, tenant))
      break
    }
    case 'low_data_availability':
      if (filter.exclude_low_data_availability) {
        for (let employee = 0; employee < count; employee++)
          if (index.lowData[employee] === 1) mask[employee] = 0
      }
      break
    case 'last_updated': {
      const test = lastUpdatedTest(filter.value, filter.operator)
      const times = await employeeUpdateTimes(tenant.database, index)
      for (let employee = 0; employee < count; employee++)
        if (!test(times[employee] as number)) mask[employee] = 0
      break
    }
  }
}

/** The 422 of an `external_id_is_in_list` filter of 4.10 that names no employee. */
function noEmployeeListed(
  field: string,
  ids: readonly string[],
  index: JobIndex,
  tenant: MatchingTenant,
): string {
  const jobs = new Set(index.jobIds)
  const named = ids.filter((id) => jobs.has(id))
  const shown = (list: readonly string[]) =>
    `${list.slice(0, 5).join(', ')}${list.length > 5 ? ` and ${list.length - 5} more` : ''}`
  return `${field}.external_ids: names no employee of tenant ${tenant.settings.name} (${shown(ids)}); the filters of 4.10 select the employees that are matched, not the jobs${named.length > 0 ? `, and ${shown(named)} ${named.length === 1 ? 'is a job' : 'are jobs'}` : ''}; list employee external_ids, or page through the jobs with starting_after and limit`
}

/** The threads that score `jobs` jobs (see JobScoringThreads) and their script; null for none. */
function workerCount(jobs: number, options: JobScoringThreads): { script: URL; threads: number } | null {
  const script = options.script ?? workerScriptBeside('job-match-worker', import.meta.url)
  const configured = process.env.SKILLHOUSE_MATCH_WORKERS
  const minimum = Number(process.env.SKILLHOUSE_MATCH_PARALLEL_MIN_JOBS ?? 256)
  const threads =
    options.threads ??
    (jobs < minimum ? 0 : configured !== undefined ? Number(configured) : Math.min(availableParallelism(), 8))
  if (!script || !(threads >= 2)) return null
  return { script, threads: Math.min(threads, Math.ceil(jobs / 16)) }
}

let pool: { pool: JobWorkerPool; script: string } | undefined

/**
 * The process's job matching threads, `threads` of them on `script`, started on first use and
 * kept (idle threads do not keep the process alive); a pool that failed is replaced.
 */
function workerPool(script: URL, threads: number): JobWorkerPool {
  if (!pool?.pool.healthy || pool.pool.size !== threads || pool.script !== script.href) {
    const previous = pool
    void previous?.pool.close()
    pool = { pool: new JobWorkerPool(script, threads), script: script.href }
  }
  return pool.pool
}

/**
 * Scores `jobs` (job numbers of the index) into a table with a slot per job: in the worker
 * threads when the work is large and there is a worker script (see JobScoringThreads), in this
 * thread otherwise. Both give the same answers: the scorer is one class and reads the same
 * arrays (shared memory, no copy).
 */
export async function scoreJobs(
  data: JobMatchData,
  jobs: readonly number[],
  mask: Uint8Array,
  params: JobScoringParams,
  pair: PairFilterSpec | null,
  options: JobScoringThreads = {},
): Promise<JobMatchesTable> {
  const threads = workerCount(jobs.length, options)
  if (threads) return workerPool(threads.script, threads.threads).score(data, jobs, mask, params, pair)
  const scorer = new JobCandidateScorer(data, mask, params, pair ? pairFilterOf(pair) : undefined)
  const table = jobMatchesTable(jobs.length, params.k, false)
  for (let slot = 0; slot < jobs.length; slot++) scorer.scoreInto(jobs[slot] as number, table, slot)
  return table
}

/** The jobs of one page: numbers after the cursor (an id, present or not), `limit` of them. */
function pageOf(jobIds: readonly string[], startingAfter: string | null | undefined, limit: number) {
  let first = 0
  if (startingAfter) {
    let lo = 0
    let hi = jobIds.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((jobIds[mid] as string) <= startingAfter) lo = mid + 1
      else hi = mid
    }
    first = lo
  }
  return { first, end: Math.min(jobIds.length, first + limit) }
}

/** Builds the records of 4.10 from the scorer's answers. */
async function records(
  tenant: MatchingTenant,
  index: JobIndex,
  prepared: PreparedJobRequest,
  jobs: readonly number[],
  table: JobMatchesTable,
): Promise<JobMatchingResponse['records']> {
  const names = prepared.explained ? await SkillNames.load(tenant.database, prepared.vendor) : undefined
  const { features } = prepared
  return jobs.map((job, slot) => {
    const matches: JobMatchingResponse['records'][number]['matches'] = []
    const first = slot * table.k
    for (let at = first; at < first + (table.count[slot] as number); at++) {
      const employee = table.candidate[at] as number
      const match: Record<string, unknown> = {
        employee_id: index.employeeIds[employee] as string,
        score: table.score[at] as number,
      }
      if (features.proficiencyMatching) match.overqualified = table.overqualified[at] === 1
      if (features.useCriticalities)
        match.critical_skills_match_ratio = roundFigure(table.criticalRatio[at] as number)
      if (names) {
        match.explanation = explanation(explainPair(index, job, employee), names, prepared.language, features)
      }
      matches.push(match as { employee_id: string; score: number })
    }
    return { job_id: index.jobIds[job] as string, matches }
  })
}

/** The model's reference computation for one job and one employee (explanations, tests). */
export function explainPair(index: JobIndex, job: number, employee: number): Coverage {
  const { jobs, employees } = index.data
  const skills = weightedTargetSkills(jobs, index.skillIds, index.features, job)
  const held = new Map<string, { strength: number; level: number }>()
  for (
    let row = employees.start[employee] as number;
    row < (employees.start[employee + 1] as number);
    row++
  ) {
    const skillLevel = employees.held[2 * row] as number
    held.set(index.skillIds[skillLevel >> 3] as string, {
      strength: employees.held[2 * row + 1] as number,
      level: skillLevel & 7,
    })
  }
  return scoreCoverage(skills, (skill) => held.get(skill), index.features)
}

/** The explanation of a match: matched and missing skills, named in the requested language. */
export function explanation(
  coverage: Coverage,
  names: SkillNames,
  language: VocabLanguage,
  features: ScoringFeatures,
): Record<string, unknown> {
  const describe = (skill: Coverage['matched'][number], matched: boolean) => {
    const entry: Record<string, unknown> = {
      skill_id: skill.skill_id,
      skill_name: names.name(skill.skill_id, language) ?? skill.skill_id,
      weight: skill.weight,
    }
    if (matched) entry.contribution = skill.contribution
    if (features.proficiencyMatching) {
      entry.required_level = skill.required_level
      if (matched) entry.level = skill.level
    }
    if (features.useCriticalities) entry.critical = skill.critical
    return entry
  }
  return {
    matched_skills: coverage.matched.map((skill) => describe(skill, true)),
    missing_skills: coverage.missing.map((skill) => describe(skill, false)),
  }
}

/**
 * 4.10, top matching Employees for Jobs: one page of `limit` jobs in external_id order after
 * `starting_after`, each with its best `match_limit_per_entity` employees scoring at least
 * `score_min_threshold` (scoring-model.ts). Pages concatenated equal the whole export.
 */
export async function matchJobs(
  tenant: MatchingTenant,
  request: unknown,
  query: JobMatchingQuery = {},
): Promise<JobMatchingResponse> {
  const prepared = await prepare(tenant, request, query)
  const index = await jobIndex(tenant.database, prepared.vendor, prepared.features, tenant.dataVersion)
  const { mask, pair } = await compileFilters(tenant, index, prepared.body)
  const page = pageOf(index.jobIds, prepared.body.starting_after, prepared.body.limit)
  const jobs = Array.from({ length: page.end - page.first }, (_, offset) => page.first + offset)
  const table = await scoreJobs(index.data, jobs, mask, prepared.params, pair)
  const hasNext = page.end < index.jobIds.length
  return {
    records: await records(tenant, index, prepared, jobs, table),
    has_next: hasNext,
    next_starting_after: hasNext && page.end > page.first ? (index.jobIds[page.end - 1] as string) : null,
  }
}

/** Figures of a whole export, for logs and manifests. */
export interface JobExportStats {
  jobs: number
  matches: number
  employees: number
  seconds: number
  /** Time spent getting the index (near 0 when an earlier call on the open database built it). */
  index_seconds: number
  /** How the index was made: read from DuckDB, or loaded from the file an earlier process kept. */
  index_source: 'built' | 'kept'
}

export interface ExportAllJobsOptions {
  /** Called with each page, in order, as `matchJobs` would have answered it. */
  onPage?: (page: JobMatchingResponse) => void | Promise<void>
  threads?: JobScoringThreads
}

/**
 * Every page of 4.10 from `starting_after` on (`--all-pages`, the nightly job), scored in one pass
 * over both cores: the records equal the concatenated pages, and `onPage` sees each page.
 */
export async function exportAllJobs(
  tenant: MatchingTenant,
  request: unknown,
  query: JobMatchingQuery = {},
  options: ExportAllJobsOptions = {},
): Promise<{ response: JobMatchingResponse; stats: JobExportStats }> {
  const started = performance.now()
  const prepared = await prepare(tenant, request, query)
  // The threads start while the index is read (a cold export reads it from DuckDB first).
  const threads = workerCount(await jobCount(tenant.database), options.threads ?? {})
  if (threads) workerPool(threads.script, threads.threads)
  const indexStarted = performance.now()
  const index = await jobIndex(tenant.database, prepared.vendor, prepared.features, tenant.dataVersion)
  const indexSeconds = (performance.now() - indexStarted) / 1000
  const { mask, pair } = await compileFilters(tenant, index, prepared.body)
  const first = pageOf(index.jobIds, prepared.body.starting_after, 0).first
  const numbers = Array.from({ length: index.jobIds.length - first }, (_, offset) => first + offset)
  const table = await scoreJobs(index.data, numbers, mask, prepared.params, pair, options.threads)
  const all = await records(tenant, index, prepared, numbers, table)
  const limit = prepared.body.limit
  if (options.onPage) {
    for (let from = 0; from < all.length; from += limit) {
      const end = Math.min(all.length, from + limit)
      const hasNext = end < all.length
      await options.onPage({
        records: all.slice(from, end),
        has_next: hasNext,
        next_starting_after: hasNext ? (all[end - 1]?.job_id ?? null) : null,
      })
    }
  }
  return {
    response: { records: all, has_next: false, next_starting_after: null },
    stats: {
      jobs: all.length,
      matches: all.reduce((sum, record) => sum + record.matches.length, 0),
      employees: index.employeeIds.length,
      seconds: (performance.now() - started) / 1000,
      index_seconds: indexSeconds,
      index_source: index.source,
    },
  }
}
