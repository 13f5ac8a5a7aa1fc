import type { TitledJob } from '../extraction/job-titles.js'
import type { SkillExtractor } from '../extraction/skill-extractor.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { workerScriptBeside } from '../util/module-source.js'
import type { EmployeeSelection } from './change-set.js'
import type { DeriveWorkerSetup } from './derive-worker.js'
import { type EventBatch, WorkerPool, type WorkerReport } from './derive-worker-pool.js'
import { deriveEmployeeProfile, type ProfileSkill } from './employee-profile.js'
import { type EventInput, eventsOfRecords, type JobRoles } from './evidence.js'
import type { ProfileWriter } from './persist-profiles.js'
import type { StoredProfiles } from './stored-profiles.js'
import { listOf } from './varchar-list.js'

/** Longest stretch of derivation on the calling thread without letting other work run (ms). */
const YIELD_AFTER_MS = 8
/** Employees per batch: small batches keep what a worker holds short-lived (cheap to collect). */
const BATCH_EMPLOYEES = 64
/** A batch also ends at this many events, so that a few employees with huge histories stay small batches. */
const BATCH_EVENTS = 4096

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

/** The employees a selection of the change set names (see `EmployeeSelection`), in id order. */
export async function findEmployeesToDerive(
  database: TenantDatabase,
  selection: EmployeeSelection,
): Promise<string[]> {
  if (selection.all)
    return (
      await database.all<{ external_id: string }>('SELECT external_id FROM employees ORDER BY external_id')
    ).map((row) => row.external_id)
  const { references } = selection
  const referencing = references
    ? `UNION SELECT employee_id FROM skill_events
         WHERE list_contains($4, content->>'$.job_id') OR list_contains($5, content->>'$.course_id')
         -- A working history's title stands for the nearest Job: when Jobs change, it may stand
         -- for another one, or the same one with other skills.
            OR (len($4) > 0 AND event_type = 'working_history'
                AND (content->>'$.job_id') IS NULL AND (content->>'$.job_title') IS NOT NULL)`
    : ''
  const window = [selection.changedAfter, selection.dueAfter, selection.dueUpTo]
  const rows = await database.all<{ employee_id: string }>(
    `SELECT external_id AS employee_id FROM employees WHERE change_seq > $1
     UNION SELECT employee_id FROM skill_events WHERE change_seq > $1
     -- Events that came due (or, with an earlier --as-of, stopped counting) between the two dates.
     UNION SELECT employee_id FROM skill_events
      WHERE timestamp > $2::DATE AND timestamp <= $3::DATE
     -- Employees whose last event crossed the low-data horizon between them: recent as of a date
     -- d when d − last ≤ ${selection.horizonDays} days.
     UNION SELECT employee_id FROM skill_events GROUP BY employee_id
     HAVING max(timestamp) >= $2::DATE - INTERVAL ${selection.horizonDays} DAY
        AND max(timestamp) < $3::DATE - INTERVAL ${selection.horizonDays} DAY
     ${referencing}
     ORDER BY employee_id`,
    references ? [...window, listOf(references.jobs), listOf(references.courses)] : window,
  )
  return rows.map((row) => row.employee_id)
}

export interface EmployeeContext {
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
  threads?: DeriveThreads
}

/** How employees are derived on worker threads. */
export interface DeriveThreads {
  /** The worker script (derive-worker.js); default: the compiled one beside this module. */
  script?: URL | undefined
  /** The fewest employees derived on threads; default SKILLHOUSE_PARALLEL_MIN_EMPLOYEES, else 2,000. */
  minEmployees?: number | undefined
}

/** The worker script that derives `employees` employees, or undefined to derive them on this thread. */
function deriveScript(employees: number, threads: DeriveThreads = {}): URL | undefined {
  const script = threads.script ?? workerScriptBeside('derive-worker', import.meta.url)
  const minimum = threads.minEmployees ?? Number(process.env.SKILLHOUSE_PARALLEL_MIN_EMPLOYEES ?? 2000)
  return employees >= minimum ? script : undefined
}

/**
 * Streams the employees' events in employee order and derives each profile: on worker threads
 * (one per core, a compiled vocabulary shared with them) for many employees when there is a
 * worker script (see DeriveThreads), else on this thread,
 * giving way to other work every few milliseconds. Returns the characters of event content read
 * and what each worker did.
 */
export async function deriveEmployees(
  database: TenantDatabase,
  employees: readonly string[],
  context: EmployeeContext,
  writer: ProfileWriter,
  onProgress: (done: number) => void,
): Promise<{ bytes: number; workers: WorkerReport[] }> {
  let bytes = 0
  let done = 0
  const script = deriveScript(employees.length, context.threads)
  const pool = script ? await WorkerPool.start(script, await workerSetup(context)) : undefined
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
      bytes += await deriveBatchHere(current, context, referenced, writer)
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

/**
 * Derives a batch's employees on this thread: on the thread that also answers requests (the
 * server's background derivation), a long derivation gives way every few milliseconds instead of
 * holding them up. Returns the characters of event content read.
 */
async function deriveBatchHere(
  current: EventBatch,
  context: EmployeeContext,
  referenced: Referenced,
  writer: ProfileWriter,
): Promise<number> {
  const { events, contentChars } = eventsOfRecords(current.records)
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
  return contentChars
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
export async function ownJobSkills(
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
