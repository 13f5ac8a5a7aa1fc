import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { listValue } from '@duckdb/node-api'
import { extractorFor } from '../extraction/extractor-cache.js'
import type { SkillExtractor } from '../extraction/skill-extractor.js'
import { labelsOfTenant } from '../extraction/vocabulary-labels.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import type { DeriveWorkerBatch, DeriveWorkerResult, DeriveWorkerSetup } from './derive-worker.js'
import { type DerivedProfile, deriveEmployeeProfile, type ProfileSkill } from './employee-profile.js'
import {
  deriveCourseProfile,
  deriveJobFamilyProfile,
  deriveJobProfile,
  deriveVacancyProfile,
} from './entity-profiles.js'
import type { EventInput, ReferencedProfiles } from './evidence.js'
import { ProfileWriter } from './persist-profiles.js'

export interface DeriveOptions {
  tenant: OpenTenant
  /** The date profiles are derived as of (default: today, UTC). */
  asOf?: string
  /** Recompute every profile, not only those whose inputs changed. */
  full?: boolean
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
  }[]
  text_bytes: number
  seconds: number
  phases: Record<string, number>
}

interface DeriveState {
  last_seq: number
  last_as_of: string | null
  vocabularies: Record<string, string>
}

const ENTITY_TABLES = ['employees', 'jobs', 'job_families', 'courses', 'vacancies', 'skill_events'] as const

/**
 * Derives skill profiles: courses, jobs, job families, vacancies and employees, for each vendor
 * the tenant has activated. Only entities whose records or events changed since the last run are
 * recomputed (everything when the vocabulary changed, or with `full`), and employees with events
 * that were future-dated at the last run and count now. Changed profiles are stored as new
 * versions with their CloudEvents, in one transaction per vendor: a run that is killed leaves
 * the previous profiles, and the next run does the work again.
 */
export async function deriveProfiles(options: DeriveOptions): Promise<DeriveResult> {
  const started = performance.now()
  const { tenant } = options
  const database = tenant.database
  const asOf = options.asOf ?? new Date().toISOString().slice(0, 10)
  const state = await readState(database)
  const seqNow = await currentSeq(database)
  const phases: Record<string, number> = {}
  let mark = performance.now()
  const phase = (name: string) => {
    const now = performance.now()
    phases[name] = (phases[name] ?? 0) + Math.round(now - mark) / 1000
    mark = now
  }
  const result: DeriveResult = { as_of: asOf, vendors: [], text_bytes: 0, seconds: 0, phases }
  const vendors = await database.all<{ external_vendor: string }>(
    'SELECT DISTINCT external_vendor FROM skills WHERE list_contains($1, external_vendor) ORDER BY external_vendor',
    [listOf(tenant.settings.vendors)],
  )
  const vocabularies: Record<string, string> = {}
  for (const { external_vendor: vendor } of vendors) {
    const vendorStarted = performance.now()
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
    const jobs = await database.all<{
      external_id: string
      doc: string
      change_seq: number
      job_family_id: string | null
    }>('SELECT external_id, doc::VARCHAR AS doc, change_seq, job_family_id FROM jobs ORDER BY external_id')
    const jobProfiles = new Map<string, ProfileSkill[]>()
    const dirtyJobs = new Set<string>()
    for (const job of jobs) {
      const family = job.job_family_id ? families.get(job.job_family_id) : undefined
      if (!(job.change_seq > since || family?.changed)) continue
      const profile = deriveJobProfile(JSON.parse(job.doc), family?.record, extractor)
      writer.add('job', profile)
      jobProfiles.set(job.external_id, profile.skills)
      dirtyJobs.add(job.external_id)
    }
    recomputed.jobs = dirtyJobs.size
    const storedJobSkills = await loadProfileSkills(database, vendor, 'job')
    const jobSkillsOf = (id: string) => jobProfiles.get(id) ?? storedJobSkills.get(id) ?? []

    let familyCount = 0
    for (const [familyId, family] of families) {
      const members = jobs.filter((job) => job.job_family_id === familyId)
      if (!(family.changed || members.some((job) => dirtyJobs.has(job.external_id)))) continue
      writer.add(
        'job_family',
        deriveJobFamilyProfile(
          family.record,
          members.map((job) => ({ job_id: job.external_id, skills: jobSkillsOf(job.external_id) })),
          extractor,
        ),
      )
      familyCount++
    }
    recomputed.job_families = familyCount

    const vacancies = await database.all<{ doc: string; job_id: string | null; change_seq: number }>(
      'SELECT doc::VARCHAR AS doc, job_id, change_seq FROM vacancies ORDER BY external_id',
    )
    let vacancyCount = 0
    for (const vacancy of vacancies) {
      if (!(vacancy.change_seq > since || (vacancy.job_id && dirtyJobs.has(vacancy.job_id)))) continue
      writer.add(
        'vacancy',
        deriveVacancyProfile(
          JSON.parse(vacancy.doc),
          vacancy.job_id ? jobSkillsOf(vacancy.job_id) : [],
          extractor,
        ),
      )
      vacancyCount++
    }
    recomputed.vacancies = vacancyCount
    phase('jobs_courses_vacancies')

    const storedCourseSkills = await loadProfileSkills(database, vendor, 'course')
    const referenced: ReferencedProfiles = {
      jobs: new Map([...storedJobSkills, ...jobProfiles]),
      courses: new Map([...storedCourseSkills, ...courseProfiles]),
    }
    const dirtyCourses = new Set(courseProfiles.keys())
    const employees = await dirtyEmployees(
      database,
      since,
      full,
      state.last_as_of,
      asOf,
      dirtyJobs,
      dirtyCourses,
    )
    phase('find_changed_employees')
    const bytes = await deriveEmployees(
      database,
      employees,
      { extractor, referenced, knownSkills, asOf },
      writer,
      async () => ({
        labels: await labelsOfTenant(database, vendor),
        jobs: [...referenced.jobs].map(([id, skills]) => [
          id,
          skills.map((skill) => ({ skill_id: skill.skill_id, score: skill.score })),
        ]),
        courses: [...referenced.courses].map(([id, skills]) => [
          id,
          skills.map((skill) => ({ skill_id: skill.skill_id, score: skill.score })),
        ]),
        asOf,
      }),
      (done) => options.onProgress?.('employees', done, employees.length),
    )
    result.text_bytes += bytes
    recomputed.employees = employees.length
    phase('employees')
    const committed = await writer.commit(tenant.baseUrl, tenant.settings.name)
    phase('store')
    result.vendors.push({
      external_vendor: vendor,
      full,
      recomputed,
      changed: committed.changed,
      events: committed.events,
      seconds: Math.round(performance.now() - vendorStarted) / 1000,
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
  dirtyJobs: ReadonlySet<string>,
  dirtyCourses: ReadonlySet<string>,
): Promise<string[]> {
  if (full)
    return (
      await database.all<{ external_id: string }>('SELECT external_id FROM employees ORDER BY external_id')
    ).map((row) => row.external_id)
  const rows = await database.all<{ employee_id: string }>(
    `SELECT external_id AS employee_id FROM employees WHERE change_seq > $1
     UNION SELECT employee_id FROM skill_events WHERE change_seq > $1
     UNION SELECT employee_id FROM skill_events WHERE timestamp > $2::DATE AND timestamp <= $3::DATE
     UNION SELECT employee_id FROM skill_events
       WHERE list_contains($4, content->>'$.job_id') OR list_contains($5, content->>'$.course_id')
     ORDER BY employee_id`,
    [since, lastAsOf ?? asOf, asOf, listOf([...dirtyJobs]), listOf([...dirtyCourses])],
  )
  return rows.map((row) => row.employee_id)
}

/** Streams the employees' events in employee order and derives each profile; returns the bytes of text read. */
async function deriveEmployees(
  database: TenantDatabase,
  employees: readonly string[],
  context: {
    extractor: SkillExtractor
    referenced: ReferencedProfiles
    knownSkills: ReadonlySet<string>
    asOf: string
  },
  writer: ProfileWriter,
  workerSetup: () => Promise<DeriveWorkerSetup>,
  onProgress: (done: number) => void,
): Promise<number> {
  let bytes = 0
  let done = 0
  const pool =
    employees.length >= PARALLEL_MIN_EMPLOYEES && WORKER.pathname.endsWith('.js')
      ? await WorkerPool.start(await workerSetup())
      : undefined
  try {
    let batch: [string, EventInput[]][] = []
    const flush = async () => {
      if (batch.length === 0) return
      const current = batch
      batch = []
      if (pool) {
        await pool.submit(current, (profiles) => {
          for (const profile of profiles) writer.add('employee', profile)
          done += profiles.length
          onProgress(done)
        })
      } else {
        let since = performance.now()
        for (const [employeeId, events] of current) {
          writer.add('employee', deriveEmployeeProfile(employeeId, parseContents(events), context))
          // On the thread that also answers requests (the server's background derivation), a
          // long derivation gives way every few milliseconds instead of holding them up.
          if (performance.now() - since > YIELD_AFTER_MS) {
            await new Promise((resolve) => setImmediate(resolve))
            since = performance.now()
          }
        }
        done += current.length
        onProgress(done)
      }
    }
    // Every employee gets a profile, an empty one too: an empty profile is a valid result (3.1).
    let next = 0
    const emitUpTo = async (employeeId: string | null) => {
      while (next < employees.length && (employeeId === null || (employees[next] as string) < employeeId)) {
        batch.push([employees[next] as string, []])
        next++
        if (batch.length >= BATCH_EMPLOYEES) await flush()
      }
    }
    let currentId: string | null = null
    let currentEvents: EventInput[] = []
    for await (const row of streamEvents(database, employees)) {
      bytes += row.content.length
      if (row.employee_id !== currentId) {
        if (currentId !== null) {
          batch.push([currentId, currentEvents])
          next++
          if (batch.length >= BATCH_EMPLOYEES) await flush()
        }
        await emitUpTo(row.employee_id)
        currentId = row.employee_id
        currentEvents = []
      }
      // Content stays text until it is used: a worker parses it, not the thread that reads.
      currentEvents.push({
        external_id: row.external_id,
        event_type: row.event_type,
        timestamp: row.timestamp,
        content: row.content as unknown as Record<string, unknown>,
        language: row.language,
        ended_on: row.ended_on,
      })
    }
    if (currentId !== null) {
      batch.push([currentId, currentEvents])
      next++
    }
    await emitUpTo(null)
    await flush()
    await pool?.drain()
  } finally {
    await pool?.stop()
  }
  return bytes
}

const WORKER = new URL('./derive-worker.js', import.meta.url)

/** Parses the JSON text of events read from the database. */
export function parseContents(events: EventInput[]): EventInput[] {
  for (const event of events) if (typeof event.content === 'string') event.content = JSON.parse(event.content)
  return events
}
/** Longest stretch of derivation on the calling thread without letting other work run (ms). */
const YIELD_AFTER_MS = 8
const PARALLEL_MIN_EMPLOYEES = Number(process.env.SKILLHOUSE_PARALLEL_MIN_EMPLOYEES ?? 2000)
const BATCH_EMPLOYEES = 250

interface EventRow {
  employee_id: string
  external_id: string
  event_type: string
  timestamp: string
  content: string
  language: string | null
  ended_on: string | null
}

/** The events of the given employees (sorted), ordered by employee, streamed chunk by chunk. */
async function* streamEvents(
  database: TenantDatabase,
  employees: readonly string[],
): AsyncGenerator<EventRow> {
  // Its own connection: profiles are appended on the main one while the events stream.
  const chunks = database.streamChunks(
    `SELECT e.employee_id, e.external_id, e.event_type, strftime(e.timestamp, '%Y-%m-%d') AS timestamp, e.content::VARCHAR AS content,
            e.language, strftime(e.ended_on, '%Y-%m-%d') AS ended_on
     FROM skill_events e SEMI JOIN (SELECT unnest($1::VARCHAR[]) AS employee_id) d ON d.employee_id = e.employee_id
     ORDER BY e.employee_id, e.timestamp, e.external_id`,
    [listOf(employees)],
  )
  for await (const chunk of chunks) {
    const [employee, id, type, timestamp, content, language, ended] = chunk.columns as (string | null)[][]
    for (let index = 0; index < chunk.rowCount; index++) {
      yield {
        employee_id: employee?.[index] as string,
        external_id: id?.[index] as string,
        event_type: type?.[index] as string,
        timestamp: timestamp?.[index] as string,
        content: content?.[index] as string,
        language: language?.[index] ?? null,
        ended_on: ended?.[index] ?? null,
      }
    }
  }
}

/** Derivation workers, one per core, each with two batches in flight at most. */
class WorkerPool {
  private nextId = 0
  private readonly pending = new Map<
    number,
    { resolve: () => void; onResult: (profiles: DerivedProfile[]) => void }
  >()
  private readonly inFlight: number[]
  private failure: Error | undefined

  private constructor(private readonly workers: Worker[]) {
    this.inFlight = workers.map(() => 0)
    workers.forEach((worker, index) => {
      worker.on('message', (result: DeriveWorkerResult) => {
        const waiting = this.pending.get(result.id)
        this.pending.delete(result.id)
        this.inFlight[index] = (this.inFlight[index] as number) - 1
        waiting?.onResult(result.profiles)
        waiting?.resolve()
        this.wake()
      })
      worker.on('error', (error) => {
        this.failure = error
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

  /** Sends a batch to the least busy worker, waiting while every worker has two batches. */
  async submit(
    employees: [string, EventInput[]][],
    onResult: (profiles: DerivedProfile[]) => void,
  ): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure
      const index = this.inFlight.indexOf(Math.min(...this.inFlight))
      if ((this.inFlight[index] as number) < 2) {
        const id = this.nextId++
        this.inFlight[index] = (this.inFlight[index] as number) + 1
        this.pending.set(id, { resolve: () => undefined, onResult })
        ;(this.workers[index] as Worker).postMessage({ id, employees } satisfies DeriveWorkerBatch)
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

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()))
  }
}

async function loadProfileSkills(
  database: TenantDatabase,
  vendor: string,
  entityType: string,
): Promise<Map<string, ProfileSkill[]>> {
  const rows = await database.all<{ entity_id: string; skill_id: string; score: number }>(
    'SELECT entity_id, skill_id, score FROM profile_skills WHERE external_vendor = $1 AND entity_type = $2 ORDER BY entity_id, score DESC',
    [vendor, entityType],
  )
  const map = new Map<string, ProfileSkill[]>()
  for (const row of rows) {
    const skill = { skill_id: row.skill_id, score: row.score } as ProfileSkill
    const list = map.get(row.entity_id)
    if (list) list.push(skill)
    else map.set(row.entity_id, [skill])
  }
  return map
}

async function readState(database: TenantDatabase): Promise<DeriveState> {
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

async function vocabularySignature(database: TenantDatabase, vendor: string): Promise<string> {
  const row = await database.one<{ signature: string }>(
    `SELECT count(*) || ':' || coalesce(max(updated_at)::VARCHAR, '') || ':' || coalesce(md5(string_agg(content_hash, ',' ORDER BY external_id)), '') AS signature
     FROM skills WHERE external_vendor = $1`,
    [vendor],
  )
  return row?.signature ?? ''
}

const listOf = (values: readonly string[]) => listValue([...values])
