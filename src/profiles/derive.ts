import { errors } from '../errors/skillhouse-error.js'
import { extractorFor, saveStems, vocabularySignature } from '../extraction/extractor-cache.js'
import { JobTitleIndex, type TitledJob } from '../extraction/job-titles.js'
import type { SkillExtractor } from '../extraction/skill-extractor.js'
import { IsoDate } from '../schemas/common.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { PhaseTimer } from '../util/phase-timer.js'
import {
  changedAfter,
  employeeSelection,
  familiesToDerive,
  jobSelection,
  type VendorScope,
  vacancySelection,
  vendorScope,
} from './change-set.js'
import {
  type DeriveThreads,
  deriveEmployees,
  type EmployeeContext,
  findEmployeesToDerive,
  ownJobSkills,
} from './derive-employees.js'
import { currentSeq, type DeriveState, readState, writeState } from './derive-state.js'
import type { WorkerReport } from './derive-worker-pool.js'
import type { ProfileSkill } from './employee-profile.js'
import {
  deriveCourseProfile,
  deriveJobFamilyProfile,
  deriveJobProfile,
  deriveVacancyProfile,
} from './entity-profiles.js'
import { ProfileWriter } from './persist-profiles.js'
import { StoredProfiles } from './stored-profiles.js'
import { listOf } from './varchar-list.js'

export type { DeriveState } from './derive-state.js'
export type { WorkerReport } from './derive-worker-pool.js'

export interface DeriveOptions {
  tenant: OpenTenant
  /** The date profiles are derived as of (default: today, UTC). */
  asOf?: string
  /** Recompute every profile, not only those whose inputs changed. */
  full?: boolean
  /**
   * Take the skills texts imply and the Jobs working-history titles stand for as evidence
   * (default). False derives employees from named skills and referenced Jobs and Courses only:
   * the mention finder's derivation, which the derivation benchmark measures beside it.
   */
  implied?: boolean
  /** How employees are derived on worker threads (see derive-employees.ts). */
  threads?: DeriveThreads
  onProgress?: (stage: string, done: number, total: number) => void
}

export interface DeriveResult {
  as_of: string
  vendors: {
    external_vendor: string
    full: boolean
    recomputed: Record<string, number>
    changed: Record<string, number>
    events: number
    seconds: number
    /** What each derivation worker thread did (none when employees were derived on the calling thread). */
    workers: WorkerReport[]
    /** Seconds per phase for this vendor (`phases` sums them over the vendors). */
    phases: Record<string, number>
  }[]
  /** Characters of event content read. */
  text_bytes: number
  seconds: number
  phases: Record<string, number>
}

/** `as_of` (`--as-of`, the library's asOf): a calendar date, else a 422 naming it (before anything runs). */
export function checkAsOf(value: string): void {
  if (!IsoDate.safeParse(value).success)
    throw errors.unprocessable(`\`as_of\` ${value}: must be a date YYYY-MM-DD that exists in the calendar`)
}

/** What every vendor's pass of one run shares. */
interface DerivationRun {
  tenant: OpenTenant
  asOf: string
  lastRun: DeriveState
  fullRequested: boolean
  implied: boolean
  threads: DeriveThreads
  /** The tenant's Jobs by title: working histories' job titles are read as the nearest Job. */
  titledJobs: TitledJob[]
  titles: JobTitleIndex
  /** The run's phases; each vendor's pass keeps its own record beside them. */
  timer: PhaseTimer
  onProgress: DeriveOptions['onProgress']
}

/**
 * Derives skill profiles: courses, jobs, job families, vacancies and employees, for each vendor
 * the tenant has activated. Only entities whose records or events changed since the last run are
 * recomputed (everything when the vocabulary changed, or with `full`), and employees with events
 * that were future-dated at the last run and count now (change-set.ts decides which). Changed
 * profiles are stored as new versions with their CloudEvents, in one transaction per vendor: a
 * run that is killed leaves the previous profiles, and the next run does the work again.
 */
export async function deriveProfiles(options: DeriveOptions): Promise<DeriveResult> {
  if (options.asOf !== undefined) checkAsOf(options.asOf)
  const started = performance.now()
  const { tenant } = options
  const database = tenant.database
  const asOf = options.asOf ?? new Date().toISOString().slice(0, 10)
  const lastRun = await readState(database)
  const seqNow = await currentSeq(database)
  const timer = new PhaseTimer()
  const result: DeriveResult = { as_of: asOf, vendors: [], text_bytes: 0, seconds: 0, phases: timer.phases }
  const vendors = await database.all<{ external_vendor: string }>(
    'SELECT DISTINCT external_vendor FROM skills WHERE list_contains($1, external_vendor) ORDER BY external_vendor',
    [listOf(tenant.settings.vendors)],
  )
  const titledJobs: TitledJob[] = await database.all<{ job_id: string; title: string }>(
    `SELECT external_id AS job_id, doc->>'$.title' AS title FROM jobs ORDER BY external_id`,
  )
  const run: DerivationRun = {
    tenant,
    asOf,
    lastRun,
    fullRequested: options.full === true,
    implied: options.implied !== false,
    threads: options.threads ?? {},
    titledJobs,
    titles: new JobTitleIndex(titledJobs),
    timer,
    onProgress: options.onProgress,
  }
  const vocabularies: Record<string, string> = {}
  for (const { external_vendor: vendor } of vendors) {
    const pass = await deriveVendor(run, vendor)
    vocabularies[vendor] = pass.vocabularySignature
    result.text_bytes += pass.textBytes
    result.vendors.push(pass.report)
  }
  await writeState(database, { last_seq: seqNow, last_as_of: asOf, vocabularies })
  result.seconds = (performance.now() - started) / 1000
  return result
}

/** One vendor's pass: its vocabulary, its writer, and what this run derives again. */
interface VendorPass {
  database: TenantDatabase
  extractor: SkillExtractor
  writer: ProfileWriter
  stored: StoredProfiles
  scope: VendorScope
}

/**
 * Derives one vendor's profiles, courses and jobs first (employees' events and vacancies refer to
 * them), and stores the changed ones in one transaction. Each phase is added to the run's timer
 * and to this vendor's own record.
 */
async function deriveVendor(
  run: DerivationRun,
  vendor: string,
): Promise<{ vocabularySignature: string; textBytes: number; report: DeriveResult['vendors'][number] }> {
  const vendorStarted = performance.now()
  const phases: Record<string, number> = {}
  const lap = (name: string, seconds?: number) => run.timer.lap(name, seconds, [phases])
  const database = run.tenant.database
  const extractor = await extractorFor(database, vendor)
  const signature = await vocabularySignature(database, vendor)
  const scope = vendorScope(run.lastRun, vendor, signature, run.fullRequested)
  lap('prepare')
  const writer = await ProfileWriter.open(database, vendor)
  const pass: VendorPass = {
    database,
    extractor,
    writer,
    stored: new StoredProfiles(database, vendor),
    scope,
  }
  const courseProfiles = await deriveCourses(pass)
  const jobs = await deriveJobsAndFamilies(pass)
  lap('courses_jobs_families')
  const vacancies = await deriveVacancies(pass, jobs.profiles)
  lap('vacancies')
  const employees = await findEmployeesToDerive(
    database,
    employeeSelection(
      scope,
      run.lastRun.last_as_of,
      run.asOf,
      [...jobs.profiles.keys()],
      [...courseProfiles.keys()],
    ),
  )
  lap('find_changed_employees')
  const derived = await deriveEmployees(
    database,
    employees,
    await employeeContext(run, pass, vendor, jobs.profiles, courseProfiles),
    writer,
    (done) => run.onProgress?.('employees', done, employees.length),
  )
  saveStems(database, vendor, extractor)
  lap('employees')
  const committed = await writer.commit(run.tenant.baseUrl, run.tenant.settings.name)
  lap('store')
  for (const [name, seconds] of Object.entries(committed.phases)) lap(`store_${name}`, seconds)
  const recomputed = {
    courses: courseProfiles.size,
    jobs: jobs.profiles.size,
    job_families: jobs.families,
    vacancies,
    employees: employees.length,
  }
  return {
    vocabularySignature: signature,
    textBytes: derived.bytes,
    report: {
      external_vendor: vendor,
      full: scope.full,
      recomputed,
      changed: committed.changed,
      events: committed.events,
      seconds: Math.round(performance.now() - vendorStarted) / 1000,
      workers: derived.workers,
      phases,
    },
  }
}

/** The courses that changed, derived; returns their skills by course id. */
async function deriveCourses({ database, extractor, writer, scope }: VendorPass) {
  const courses = await database.all<{ doc: string }>(
    `SELECT doc::VARCHAR AS doc FROM courses WHERE change_seq > $1 ORDER BY external_id`,
    [scope.since],
  )
  const courseProfiles = new Map<string, ProfileSkill[]>()
  for (const row of courses) {
    const profile = deriveCourseProfile(JSON.parse(row.doc), extractor)
    writer.add('course', profile)
    courseProfiles.set(profile.entity_id, profile.skills)
  }
  return courseProfiles
}

/**
 * The jobs the change set names, derived, then the families it names with all their jobs (in id
 * order). Returns the jobs' skills by job id and the number of families derived.
 */
async function deriveJobsAndFamilies(pass: VendorPass) {
  const { database, extractor, writer, stored, scope } = pass
  const familyRows = await database.all<{ external_id: string; doc: string; change_seq: number }>(
    'SELECT external_id, doc::VARCHAR AS doc, change_seq FROM job_families',
  )
  const families = new Map(familyRows.map((row) => [row.external_id, JSON.parse(row.doc)]))
  const selection = jobSelection(scope, changedAfter(familyRows, scope.since))
  const jobs = await database.all<{
    external_id: string
    doc: string
    job_family_id: string | null
    changed: boolean
  }>(
    `SELECT external_id, doc::VARCHAR AS doc, job_family_id, change_seq > $1 AS changed FROM jobs
     WHERE change_seq > $1 OR list_contains($2, job_family_id) ORDER BY external_id`,
    [selection.changedAfter, listOf(selection.ofFamilies)],
  )
  const profiles = new Map<string, ProfileSkill[]>()
  for (const job of jobs) {
    const family = job.job_family_id ? families.get(job.job_family_id) : undefined
    const profile = deriveJobProfile(JSON.parse(job.doc), family, extractor)
    writer.add('job', profile)
    profiles.set(job.external_id, profile.skills)
  }
  const toDerive = familiesToDerive(families.keys(), selection.ofFamilies, jobs)
  const members = await database.all<{ external_id: string; job_family_id: string }>(
    'SELECT external_id, job_family_id FROM jobs WHERE list_contains($1, job_family_id) ORDER BY external_id',
    [listOf([...toDerive.keys()])],
  )
  await stored.load(
    'job',
    members.map((member) => member.external_id).filter((id) => !profiles.has(id)),
  )
  for (const familyId of toDerive.keys()) {
    writer.add(
      'job_family',
      deriveJobFamilyProfile(
        families.get(familyId),
        members
          .filter((job) => job.job_family_id === familyId)
          .map((job) => ({ job_id: job.external_id, skills: jobSkillsOf(pass, profiles, job.external_id) })),
        extractor,
      ),
    )
  }
  return { profiles, families: toDerive.size }
}

/** A job's skills: this run's profile, else the stored one (loaded before). */
function jobSkillsOf(pass: VendorPass, fresh: ReadonlyMap<string, ProfileSkill[]>, id: string) {
  return fresh.get(id) ?? pass.stored.skillsOf('job', id)
}

/** The vacancies the change set names, derived (with their job's skills); returns how many. */
async function deriveVacancies(pass: VendorPass, jobProfiles: ReadonlyMap<string, ProfileSkill[]>) {
  const { database, extractor, writer, stored, scope } = pass
  const selection = vacancySelection(scope, [...jobProfiles.keys()])
  const vacancies = await database.all<{ doc: string; job_id: string | null }>(
    `SELECT doc::VARCHAR AS doc, job_id FROM vacancies
     WHERE change_seq > $1 OR list_contains($2, job_id) ORDER BY external_id`,
    [selection.changedAfter, listOf(selection.ofJobs)],
  )
  await stored.load(
    'job',
    vacancies.flatMap((vacancy) =>
      vacancy.job_id && !jobProfiles.has(vacancy.job_id) ? [vacancy.job_id] : [],
    ),
  )
  for (const vacancy of vacancies) {
    writer.add(
      'vacancy',
      deriveVacancyProfile(
        JSON.parse(vacancy.doc),
        vacancy.job_id ? jobSkillsOf(pass, jobProfiles, vacancy.job_id) : [],
        extractor,
      ),
    )
  }
  return vacancies.length
}

/** What deriving employees needs: this run's job and course profiles, and the Jobs as roles with implied skills. */
async function employeeContext(
  run: DerivationRun,
  pass: VendorPass,
  vendor: string,
  jobProfiles: ReadonlyMap<string, ProfileSkill[]>,
  courseProfiles: ReadonlyMap<string, ProfileSkill[]>,
): Promise<EmployeeContext> {
  return {
    extractor: pass.extractor,
    knownSkills: new Set(pass.extractor.skillIds),
    asOf: run.asOf,
    stored: pass.stored,
    jobProfiles,
    courseProfiles,
    roles: run.implied
      ? {
          titledJobs: run.titledJobs,
          value: { titles: run.titles, skills: await ownJobSkills(pass.database, vendor, jobProfiles) },
        }
      : undefined,
    implied: run.implied,
    threads: run.threads,
  }
}
