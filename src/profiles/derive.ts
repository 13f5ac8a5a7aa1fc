import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { listValue } from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import { extractorFor, keepStems, vocabularySignature } from '../extraction/extractor-cache.js'
import { JobTitleIndex, type TitledJob } from '../extraction/job-titles.js'
import type { SkillExtractor } from '../extraction/skill-extractor.js'
import type { StemPairs } from '../extraction/text-tokens.js'
import { IsoDate } from '../schemas/index.js'
import type { SqlParams, TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import type {
  DeriveWorkerBatch,
  DeriveWorkerResult,
  DeriveWorkerSetup,
  DeriveWorkerStats,
} from './derive-worker.js'
import { deriveEmployeeProfile, PROFICIENCY, type ProfileSkill } from './employee-profile.js'
import {
  deriveCourseProfile,
  deriveJobFamilyProfile,
  deriveJobProfile,
  deriveVacancyProfile,
} from './entity-profiles.js'
import { type EventInput, eventsOfRecords, type JobRoles } from './evidence.js'
import { ProfileWriter } from './persist-profiles.js'
import type { ProfileRows } from './profile-rows.js'

/** The low-data horizon in whole days (employee-profile.ts: years of 365.25 days; days are whole). */
const RECENT_DAYS = Math.floor(PROFICIENCY.recentYears * 365.25)

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

/** What derivation records between runs (`derive_state`). */
export interface DeriveState {
  last_seq: number
  last_as_of: string | null
  vocabularies: Record<string, string>
}

const ENTITY_TABLES = ['employees', 'jobs', 'job_families', 'courses', 'vacancies', 'skill_events'] as const

/** `--as-of` (or the library's asOf): a calendar date, else a 422 naming it (before anything runs). */
export function checkAsOf(value: string): void {
  if (!IsoDate.safeParse(value).success)
    throw errors.unprocessable(`--as-of ${value}: must be a date YYYY-MM-DD that exists in the calendar`)
}

/**
 * Derives skill profiles: courses, jobs, job families, vacancies and employees, for each vendor
 * the tenant has activated. Only entities whose records or events changed since the last run are
 * recomputed (everything when the vocabulary changed, or with `full`), and employees with events
 * that were future-dated at the last run and count now. Changed profiles are stored as new
 * versions with their CloudEvents, in one transaction per vendor: a run that is killed leaves
 * the previous profiles, and the next run does the work again.
 */
export async function deriveProfiles(options: DeriveOptions): Promise<DeriveResult> {
  if (options.asOf !== undefined) checkAsOf(options.asOf)
  const started = performance.now()
  const { tenant } = options
  const database = tenant.database
  const asOf = options.asOf ?? new Date().toISOString().slice(0, 10)
  const state = await readState(database)
  const seqNow = await currentSeq(database)
  const phases: Record<string, number> = {}
  let mark = performance.now()
  let vendorPhases: Record<string, number> = {}
  /** Seconds since the last mark, added to the run's phase and to the current vendor's. */
  const phase = (name: string, seconds = Math.round(performance.now() - mark) / 1000) => {
    for (const record of [phases, vendorPhases])
      record[name] = Math.round(((record[name] ?? 0) + seconds) * 1000) / 1000
    mark = performance.now()
  }
  const result: DeriveResult = { as_of: asOf, vendors: [], text_bytes: 0, seconds: 0, phases }
  const vendors = await database.all<{ external_vendor: string }>(
    'SELECT DISTINCT external_vendor FROM skills WHERE list_contains($1, external_vendor) ORDER BY external_vendor',
    [listOf(tenant.settings.vendors)],
  )
  const vocabularies: Record<string, string> = {}
  // Working histories' job titles are read as the nearest Job (its profile is evidence).
  const titledJobs: TitledJob[] = await database.all<{ job_id: string; title: string }>(
    `SELECT external_id AS job_id, doc->>'$.title' AS title FROM jobs ORDER BY external_id`,
  )
  const implied = options.implied !== false
  const titles = new JobTitleIndex(titledJobs)
  for (const { external_vendor: vendor } of vendors) {
    const vendorStarted = performance.now()
    vendorPhases = {}
    const extractor = await extractorFor(database, vendor)
    const signature = await vocabularySignature(database, vendor)
    vocabularies[vendor] = signature
    const full =
      options.full === true || state.vocabularies[vendor] !== signature || state.last_as_of === null
    const since = full ? -1 : state.last_seq
    phase('prepare')
    const writer = await ProfileWriter.open(database, vendor)
    const recomputed: Record<string, number> = {}
    const knownSkills = new Set(extractor.skillIds)
    const stored = new StoredProfiles(database, vendor)

    // Courses and jobs first: employees' events and vacancies refer to them.
    const courses = await database.all<{ doc: string }>(
      `SELECT doc::VARCHAR AS doc FROM courses WHERE change_seq > $1 ORDER BY external_id`,
      [since],
    )
    const courseProfiles = new Map<string, ProfileSkill[]>()
    for (const row of courses) {
      const profile = deriveCourseProfile(JSON.parse(row.doc), extractor)
      writer.add('course', profile)
      courseProfiles.set(profile.entity_id, profile.skills)
    }
    recomputed.courses = courses.length

    const families = new Map(
      (
        await database.all<{ external_id: string; doc: string; change_seq: number }>(
          'SELECT external_id, doc::VARCHAR AS doc, change_seq FROM job_families',
        )
      ).map((row) => [row.external_id, { record: JSON.parse(row.doc), changed: row.change_seq > since }]),
    )
    const changedFamilies = [...families].filter(([, family]) => family.changed).map(([id]) => id)
    // The jobs to recompute: changed ones and those of a changed family.
    const jobs = await database.all<{
      external_id: string
      doc: string
      job_family_id: string | null
      changed: boolean
    }>(
      `SELECT external_id, doc::VARCHAR AS doc, job_family_id, change_seq > $1 AS changed FROM jobs
       WHERE change_seq > $1 OR list_contains($2, job_family_id) ORDER BY external_id`,
      [since, listOf(changedFamilies)],
    )
    const jobProfiles = new Map<string, ProfileSkill[]>()
    for (const job of jobs) {
      const family = job.job_family_id ? families.get(job.job_family_id) : undefined
      const profile = deriveJobProfile(JSON.parse(job.doc), family?.record, extractor)
      writer.add('job', profile)
      jobProfiles.set(job.external_id, profile.skills)
    }
    recomputed.jobs = jobs.length

    // Families whose record or one of whose jobs changed, with all their jobs (in id order). A job
    // that changed may have left a family, which is not recorded anywhere: when a job record
    // changed, every family is derived again (they are few; a family whose profile is the same
    // changes nothing).
    const familiesToDerive = new Set(changedFamilies)
    const jobRecordsChanged = jobs.some((job) => job.changed)
    for (const job of jobs)
      if (job.job_family_id && families.has(job.job_family_id)) familiesToDerive.add(job.job_family_id)
    if (jobRecordsChanged) for (const familyId of families.keys()) familiesToDerive.add(familyId)
    const members = await database.all<{ external_id: string; job_family_id: string }>(
      'SELECT external_id, job_family_id FROM jobs WHERE list_contains($1, job_family_id) ORDER BY external_id',
      [listOf([...familiesToDerive])],
    )
    await stored.load(
      'job',
      members.map((member) => member.external_id).filter((id) => !jobProfiles.has(id)),
    )
    const jobSkillsOf = (id: string) => jobProfiles.get(id) ?? stored.skillsOf('job', id)
    let familyCount = 0
    for (const [familyId, family] of families) {
      if (!familiesToDerive.has(familyId)) continue
      writer.add(
        'job_family',
        deriveJobFamilyProfile(
          family.record,
          members
            .filter((job) => job.job_family_id === familyId)
            .map((job) => ({ job_id: job.external_id, skills: jobSkillsOf(job.external_id) })),
          extractor,
        ),
      )
      familyCount++
    }
    recomputed.job_families = familyCount
    phase('courses_jobs_families')

    const vacancies = await database.all<{ doc: string; job_id: string | null }>(
      `SELECT doc::VARCHAR AS doc, job_id FROM vacancies
       WHERE change_seq > $1 OR list_contains($2, job_id) ORDER BY external_id`,
      [since, listOf([...jobProfiles.keys()])],
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
          vacancy.job_id ? jobSkillsOf(vacancy.job_id) : [],
          extractor,
        ),
      )
    }
    recomputed.vacancies = vacancies.length
    phase('vacancies')

    const employees = await dirtyEmployees(
      database,
      since,
      full,
      state.last_as_of,
      asOf,
      [...jobProfiles.keys()],
      [...courseProfiles.keys()],
    )
    phase('find_changed_employees')
    const derived = await deriveEmployees(
      database,
      employees,
      {
        extractor,
        knownSkills,
        asOf,
        stored,
        jobProfiles,
        courseProfiles,
        roles: implied
          ? { titledJobs, value: { titles, skills: await ownJobSkills(database, vendor, jobProfiles) } }
          : undefined,
        implied,
      },
      writer,
      (done) => options.onProgress?.('employees', done, employees.length),
    )
    result.text_bytes += derived.bytes
    recomputed.employees = employees.length
    keepStems(database, vendor, extractor)
    phase('employees')
    const committed = await writer.commit(tenant.baseUrl, tenant.settings.name)
    phase('store')
    for (const [name, seconds] of Object.entries(committed.phases)) phase(`store_${name}`, seconds)
    result.vendors.push({
      external_vendor: vendor,
      full,
      recomputed,
      changed: committed.changed,
      events: committed.events,
      seconds: Math.round(performance.now() - vendorStarted) / 1000,
      workers: derived.workers,
      phases: vendorPhases,
    })
  }
  await writeState(database, { last_seq: seqNow, last_as_of: asOf, vocabularies })
  result.seconds = (performance.now() - started) / 1000
  return result
}

/** Employees to recompute: changed records or events, referenced jobs or courses that changed, events that came due. */
async function dirtyEmployees(
  database: TenantDatabase,
  since: number,
  full: boolean,
  lastAsOf: string | null,
  asOf: string,
  dirtyJobs: readonly string[],
  dirtyCourses: readonly string[],
): Promise<string[]> {
  if (full)
    return (
      await database.all<{ external_id: string }>('SELECT external_id FROM employees ORDER BY external_id')
    ).map((row) => row.external_id)
  // Reading every event's content for a job or course id is the costly part: only when one changed.
  const referencing =
    dirtyJobs.length > 0 || dirtyCourses.length > 0
      ? `UNION SELECT employee_id FROM skill_events
         WHERE list_contains($4, content->>'$.job_id') OR list_contains($5, content->>'$.course_id')
         -- A working history's title stands for the nearest Job: when Jobs change, it may stand
         -- for another one, or the same one with other skills.
            OR (len($4) > 0 AND event_type = 'working_history'
                AND (content->>'$.job_id') IS NULL AND (content->>'$.job_title') IS NOT NULL)`
      : ''
  const rows = await database.all<{ employee_id: string }>(
    `SELECT external_id AS employee_id FROM employees WHERE change_seq > $1
     UNION SELECT employee_id FROM skill_events WHERE change_seq > $1
     -- Events that came due (or, with an earlier --as-of, stopped counting) between the two dates.
     UNION SELECT employee_id FROM skill_events
      WHERE timestamp > least($2::DATE, $3::DATE) AND timestamp <= greatest($2::DATE, $3::DATE)
     -- Employees whose last event crossed the low-data horizon between them: recent as of a date
     -- d when d − last ≤ ${RECENT_DAYS} days (the model's ${PROFICIENCY.recentYears} years of 365.25 days).
     UNION SELECT employee_id FROM skill_events GROUP BY employee_id
     HAVING max(timestamp) >= least($2::DATE, $3::DATE) - INTERVAL ${RECENT_DAYS} DAY
        AND max(timestamp) < greatest($2::DATE, $3::DATE) - INTERVAL ${RECENT_DAYS} DAY
     ${referencing}
     ORDER BY employee_id`,
    referencing
      ? [since, lastAsOf ?? asOf, asOf, listOf(dirtyJobs), listOf(dirtyCourses)]
      : [since, lastAsOf ?? asOf, asOf],
  )
  return rows.map((row) => row.employee_id)
}

interface EmployeeContext {
  extractor: SkillExtractor
  knownSkills: ReadonlySet<string>
  asOf: string
  stored: StoredProfiles
  /** Job and course profiles derived in this run (they take the place of the stored ones). */
  jobProfiles: ReadonlyMap<string, readonly ProfileSkill[]>
  courseProfiles: ReadonlyMap<string, readonly ProfileSkill[]>
  /** The tenant's Jobs as roles, for working histories' job titles (none without implied skills). */
  roles: { titledJobs: readonly TitledJob[]; value: JobRoles } | undefined
  /** Implied skills as evidence (see `DeriveOptions.implied`). */
  implied: boolean
}

/** Work of one derivation worker thread, as `DeriveResult.workers` reports it. */
export type WorkerReport = DeriveWorkerStats

/**
 * Streams the employees' events in employee order and derives each profile: on worker threads
 * (one per core, a compiled vocabulary shared with them) for many employees, else on this thread,
 * giving way to other work every few milliseconds. Returns the characters of event content read
 * and what each worker did.
 */
async function deriveEmployees(
  database: TenantDatabase,
  employees: readonly string[],
  context: EmployeeContext,
  writer: ProfileWriter,
  onProgress: (done: number) => void,
): Promise<{ bytes: number; workers: WorkerReport[] }> {
  let bytes = 0
  let done = 0
  const parallel = employees.length >= PARALLEL_MIN_EMPLOYEES && WORKER.pathname.endsWith('.js')
  const pool = parallel ? await WorkerPool.start(await workerSetup(context)) : undefined
  const referenced: Referenced = { jobs: new Map(), courses: new Map() }
  if (context.roles) referenced.roles = context.roles.value
  try {
    let batch: EventBatch = { employees: [], counts: [], records: [] }
    const flush = async () => {
      if (batch.employees.length === 0) return
      const current = batch
      batch = { employees: [], counts: [], records: [] }
      if (pool) {
        await pool.submit(current, (result) => {
          context.extractor.stems.remember(result.stems, { unsaved: true })
          writer.addRows('employee', result.rows)
          bytes += result.contentChars
          done += result.rows.entityIds.length
          onProgress(done)
        })
        return
      }
      const { events, contentChars } = eventsOfRecords(current.records)
      bytes += contentChars
      await loadReferenced(events, context, referenced)
      const derivation = { ...context, referenced }
      let since = performance.now()
      let offset = 0
      for (let index = 0; index < current.employees.length; index++) {
        const count = current.counts[index] as number
        writer.add(
          'employee',
          deriveEmployeeProfile(
            current.employees[index] as string,
            events.slice(offset, offset + count),
            derivation,
          ),
        )
        offset += count
        // On the thread that also answers requests (the server's background derivation), a
        // long derivation gives way every few milliseconds instead of holding them up.
        if (performance.now() - since > YIELD_AFTER_MS) {
          await new Promise((resolve) => setImmediate(resolve))
          since = performance.now()
        }
      }
      done += current.employees.length
      onProgress(done)
    }
    // Every employee gets a profile, an empty one too: an empty profile is a valid result (3.1).
    let next = 0
    let currentId: string | null = null
    let count = 0
    const close = async (employeeId: string | null) => {
      if (currentId !== null) {
        batch.employees.push(currentId)
        batch.counts.push(count)
        next++
        if (batch.employees.length >= BATCH_EMPLOYEES || batch.records.length >= BATCH_EVENTS) await flush()
      }
      while (next < employees.length && (employeeId === null || (employees[next] as string) < employeeId)) {
        batch.employees.push(employees[next] as string)
        batch.counts.push(0)
        next++
        if (batch.employees.length >= BATCH_EMPLOYEES) await flush()
      }
      currentId = employeeId
      count = 0
    }
    for await (const chunk of streamEventRecords(database, employees)) {
      const [ids, records] = chunk.columns as [string[], string[]]
      for (let index = 0; index < chunk.rowCount; index++) {
        const employeeId = ids[index] as string
        if (employeeId !== currentId) await close(employeeId)
        // Records stay text until a worker parses them: this thread only groups and forwards.
        batch.records.push(records[index] as string)
        count++
      }
    }
    await close(null)
    await flush()
    await pool?.drain()
  } finally {
    await pool?.stop()
  }
  return { bytes, workers: pool?.reports() ?? [] }
}

/** Employees in order, the number of events of each, and their events as JSON records. */
interface EventBatch {
  employees: string[]
  counts: number[]
  records: string[]
}

/** What every worker gets: the compiled vocabulary, and every job and course profile events may refer to. */
async function workerSetup(context: EmployeeContext): Promise<DeriveWorkerSetup> {
  const stored = await context.stored.allScores()
  const entries = (entityType: 'job' | 'course', fresh: ReadonlyMap<string, readonly ProfileSkill[]>) => {
    const merged = stored[entityType]
    for (const [id, skills] of fresh)
      merged.set(
        id,
        skills.map((skill) => ({ skill_id: skill.skill_id, score: skill.score })),
      )
    return [...merged]
  }
  return {
    vocabulary: context.extractor.compiled,
    stems: context.extractor.stems.pairs(),
    jobs: entries('job', context.jobProfiles),
    courses: entries('course', context.courseProfiles),
    roles: context.roles
      ? { titledJobs: [...context.roles.titledJobs], skills: [...context.roles.value.skills] }
      : undefined,
    implied: context.implied,
    asOf: context.asOf,
  }
}

/**
 * Each Job's own skills (see `JobRoles`): this run's profiles, else the stored ones; a skill is
 * the Job's own when the Job's record is among its evidence.
 */
async function ownJobSkills(
  database: TenantDatabase,
  vendor: string,
  fresh: ReadonlyMap<string, readonly ProfileSkill[]>,
): Promise<Map<string, { skill_id: string; score: number }[]>> {
  const own = new Map<string, { skill_id: string; score: number }[]>()
  const rows = await database.all<{ entity_id: string; skill_id: string; score: number; evidence: string }>(
    `SELECT entity_id, skill_id, score, evidence::VARCHAR AS evidence FROM profile_skills
     WHERE external_vendor = $1 AND entity_type = 'job' ORDER BY entity_id, score DESC, skill_id`,
    [vendor],
  )
  for (const row of rows) {
    if (fresh.has(row.entity_id)) continue
    const evidence = JSON.parse(row.evidence) as { event_type: string }[]
    if (!evidence.some((item) => item.event_type === JOB_OWN_EVIDENCE)) continue
    const list = own.get(row.entity_id)
    if (list) list.push({ skill_id: row.skill_id, score: row.score })
    else own.set(row.entity_id, [{ skill_id: row.skill_id, score: row.score }])
  }
  for (const [jobId, skills] of fresh)
    own.set(
      jobId,
      skills
        .filter((skill) => skill.evidence.some((item) => item.event_type === JOB_OWN_EVIDENCE))
        .map((skill) => ({ skill_id: skill.skill_id, score: skill.score })),
    )
  return own
}

/** The evidence type of a Job's own record in its profile (its family's is job_family_profile_data). */
const JOB_OWN_EVIDENCE = 'job_profile_data'

/** Jobs and courses by id, with the skills events that name them hand on. */
interface Referenced {
  jobs: Map<string, readonly ProfileSkill[]>
  courses: Map<string, readonly ProfileSkill[]>
  roles?: JobRoles
}

/** Adds to `referenced` the jobs and courses these events name (this run's profiles, else the stored ones). */
async function loadReferenced(
  events: readonly EventInput[],
  context: EmployeeContext,
  referenced: Referenced,
) {
  const named = (event: EventInput) => {
    const { job_id: jobId, course_id: courseId } = event.content
    // As evidenceOfEvent reads them: a job id first, a course id only without one.
    if (typeof jobId === 'string') return { entityType: 'job' as const, id: jobId }
    if (typeof courseId === 'string') return { entityType: 'course' as const, id: courseId }
    return undefined
  }
  const wanted = { job: [] as string[], course: [] as string[] }
  for (const event of events) {
    const reference = named(event)
    if (reference) wanted[reference.entityType].push(reference.id)
  }
  await context.stored.load('job', wanted.job)
  await context.stored.load('course', wanted.course)
  for (const event of events) {
    const reference = named(event)
    if (!reference) continue
    const { entityType, id } = reference
    const fresh = entityType === 'job' ? context.jobProfiles : context.courseProfiles
    const map = entityType === 'job' ? referenced.jobs : referenced.courses
    if (!map.has(id)) map.set(id, fresh.get(id) ?? context.stored.skillsOf(entityType, id))
  }
}

const WORKER = new URL('./derive-worker.js', import.meta.url)

/** Longest stretch of derivation on the calling thread without letting other work run (ms). */
const YIELD_AFTER_MS = 8
const PARALLEL_MIN_EMPLOYEES = Number(process.env.SKILLHOUSE_PARALLEL_MIN_EMPLOYEES ?? 2000)
/** Employees per batch: small batches keep what a worker holds short-lived (cheap to collect). */
const BATCH_EMPLOYEES = 64
/** A batch also ends at this many events, so that a few employees with huge histories stay small batches. */
const BATCH_EVENTS = 4096
const IN_FLIGHT = 3

/**
 * The events of the given employees (sorted), ordered by employee, streamed chunk by chunk: the
 * employee and the event as one JSON record (see `eventsOfRecords`), so that this thread reads
 * two strings an event and the workers parse the rest.
 */
async function* streamEventRecords(
  database: TenantDatabase,
  employees: readonly string[],
): AsyncGenerator<{ rowCount: number; columns: unknown[][] }> {
  // Its own connection: profiles are appended on the main one while the events stream.
  yield* database.streamChunks(
    `SELECT e.employee_id,
            concat('[', to_json(e.external_id), ',', to_json(e.event_type), ',"', strftime(e.timestamp, '%Y-%m-%d'), '",',
                   coalesce(to_json(e.language)::VARCHAR, 'null'), ',',
                   coalesce('"' || strftime(e.ended_on, '%Y-%m-%d') || '"', 'null'), ',',
                   length(e.content::VARCHAR), ',', e.content::VARCHAR, ']') AS record
     FROM skill_events e SEMI JOIN (SELECT unnest($1::VARCHAR[]) AS employee_id) d ON d.employee_id = e.employee_id
     ORDER BY e.employee_id, e.timestamp, e.external_id`,
    [listOf(employees)],
  )
}

/**
 * Derivation workers, one per core, each with up to IN_FLIGHT batches: one to work on and more
 * queued, so that a worker has work while this thread appends or flushes.
 */
class WorkerPool {
  private nextId = 0
  private readonly pending = new Map<
    number,
    (result: DeriveWorkerResult & { contentChars: number }) => void
  >()
  private readonly inFlight: number[]
  private readonly stats: (DeriveWorkerStats | undefined)[]
  private failure: Error | undefined
  private stopping = false

  private constructor(private readonly workers: Worker[]) {
    this.inFlight = workers.map(() => 0)
    this.stats = workers.map(() => undefined)
    workers.forEach((worker, index) => {
      worker.on('message', (result: DeriveWorkerResult) => {
        const onResult = this.pending.get(result.id)
        this.pending.delete(result.id)
        this.inFlight[index] = (this.inFlight[index] as number) - 1
        const contentChars = result.stats.content_chars - (this.stats[index]?.content_chars ?? 0)
        this.stats[index] = result.stats
        onResult?.({ ...result, contentChars })
        this.wake()
      })
      worker.on('error', (error) => {
        this.failure = error
        this.wake()
      })
      // A worker that ends of itself would leave its batches unanswered: that is a failure too.
      worker.on('exit', (code) => {
        if (this.stopping) return
        this.failure ??= new Error(`a derivation worker stopped (exit code ${code}) with batches unanswered`)
        this.wake()
      })
    })
  }

  static async start(setup: DeriveWorkerSetup): Promise<WorkerPool> {
    const count = Math.max(2, Math.min(availableParallelism(), 4))
    return new WorkerPool(Array.from({ length: count }, () => new Worker(WORKER, { workerData: setup })))
  }

  private waiters: (() => void)[] = []
  private wake() {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }

  /** Sends a batch to the least busy worker, waiting while every worker has IN_FLIGHT batches. */
  async submit(
    batch: EventBatch,
    onResult: (result: { rows: ProfileRows; stems: StemPairs; contentChars: number }) => void,
  ): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure
      const index = this.inFlight.indexOf(Math.min(...this.inFlight))
      if ((this.inFlight[index] as number) < IN_FLIGHT) {
        const id = this.nextId++
        this.inFlight[index] = (this.inFlight[index] as number) + 1
        this.pending.set(id, onResult)
        ;(this.workers[index] as Worker).postMessage({ id, ...batch } satisfies DeriveWorkerBatch)
        return
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** Waits for every batch sent. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) {
      if (this.failure) throw this.failure
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** What each worker did (the totals of its last answer). */
  reports(): WorkerReport[] {
    return this.stats.filter((stats): stats is DeriveWorkerStats => stats !== undefined)
  }

  async stop(): Promise<void> {
    this.stopping = true
    await Promise.all(this.workers.map((worker) => worker.terminate()))
  }
}

/**
 * Stored job and course profiles, loaded as needed: derivation needs those the changed
 * families, vacancies and employees' events refer to (all of them only for a large run).
 */
class StoredProfiles {
  private readonly profiles = {
    job: new Map<string, ProfileSkill[]>(),
    course: new Map<string, ProfileSkill[]>(),
  }
  private readonly loaded = { job: new Set<string>(), course: new Set<string>() }

  constructor(
    private readonly database: TenantDatabase,
    private readonly vendor: string,
  ) {}

  /** The stored skills of a job or course (none when it has no profile). */
  skillsOf(entityType: 'job' | 'course', id: string): ProfileSkill[] {
    return this.profiles[entityType].get(id) ?? []
  }

  /** Loads the profiles of these jobs or courses that are not loaded yet. */
  async load(entityType: 'job' | 'course', ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.loaded[entityType].has(id))
    if (missing.length === 0) return
    for (const id of missing) this.loaded[entityType].add(id)
    await this.read(
      `SELECT entity_type, entity_id, ${SKILL_FIELDS} FROM profile_skills
       WHERE external_vendor = $1 AND entity_type = $2 AND list_contains($3, entity_id)`,
      [this.vendor, entityType, listOf(missing)],
    )
  }

  /** The skill ids and scores of every stored job and course profile: what events referring to them need. */
  async allScores(): Promise<Record<'job' | 'course', Map<string, { skill_id: string; score: number }[]>>> {
    const rows = await this.database.all<{
      entity_type: 'job' | 'course'
      entity_id: string
      skill_id: string
      score: number
    }>(
      `SELECT entity_type, entity_id, skill_id, score FROM profile_skills
       WHERE external_vendor = $1 AND entity_type IN ('job', 'course')
       ORDER BY entity_type, entity_id, score DESC, skill_id`,
      [this.vendor],
    )
    const all = {
      job: new Map<string, { skill_id: string; score: number }[]>(),
      course: new Map<string, { skill_id: string; score: number }[]>(),
    }
    for (const row of rows) {
      const skill = { skill_id: row.skill_id, score: row.score }
      const list = all[row.entity_type].get(row.entity_id)
      if (list) list.push(skill)
      else all[row.entity_type].set(row.entity_id, [skill])
    }
    return all
  }

  private async read(sql: string, params: SqlParams) {
    const rows = await this.database.all<
      Omit<ProfileSkill, 'evidence'> & { entity_type: 'job' | 'course'; entity_id: string; evidence: string }
    >(`${sql} ORDER BY entity_type, entity_id, score DESC, skill_id`, params)
    for (const row of rows) {
      const { entity_type: entityType, entity_id: entityId, ...skill } = row
      const profile: ProfileSkill = { ...skill, evidence: JSON.parse(row.evidence) }
      const list = this.profiles[entityType].get(entityId)
      if (list) list.push(profile)
      else this.profiles[entityType].set(entityId, [profile])
    }
  }
}

const SKILL_FIELDS = `skill_id, validation_state, score, proficiency_float, proficiency_level, governed_proficiency_level,
  governed_critical, inferred_critical, strftime(first_seen, '%Y-%m-%d') AS first_seen,
  strftime(last_seen, '%Y-%m-%d') AS last_seen, evidence::VARCHAR AS evidence`

/** The derivation state: the last run's as-of date (null before the first run), its change sequence and vocabularies. */
export async function readState(database: TenantDatabase): Promise<DeriveState> {
  const row = await database.one<{ value: string }>(
    "SELECT value::VARCHAR AS value FROM derive_state WHERE key = 'derive'",
  )
  return row ? (JSON.parse(row.value) as DeriveState) : { last_seq: -1, last_as_of: null, vocabularies: {} }
}

async function writeState(database: TenantDatabase, state: DeriveState): Promise<void> {
  await database.run("INSERT OR REPLACE INTO derive_state VALUES ('derive', $1)", [JSON.stringify(state)])
}

async function currentSeq(database: TenantDatabase): Promise<number> {
  const row = await database.one<{ seq: number | null }>(
    `SELECT max(seq) AS seq FROM (${ENTITY_TABLES.map((table) => `SELECT max(change_seq) AS seq FROM ${table}`).join(' UNION ALL ')})`,
  )
  return row?.seq ?? 0
}

const listOf = (values: readonly string[]) => listValue([...values])
