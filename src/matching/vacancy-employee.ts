import { errors } from '../errors/skillhouse-error.js'
import type { Employee } from '../schemas/entities.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'
import type { VacancyIndex } from './vacancy-index.js'

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
  const row = await database.one<EmployeeRow>(
    `SELECT e.external_id, e.doc::VARCHAR AS doc,
       (SELECT ${FEEDBACK_LIST} FROM match_feedback WHERE employee_id = $1) AS feedback
     FROM employees e WHERE e.external_id = $1`,
    [employeeId],
  )
  if (!row) throw errors.notFound('employee', employeeId)
  return employeeForMatching(index, row)
}

/**
 * Many employees for matching, in the order of `employeeIds`: their records and match feedback in
 * one round trip (a batch of 4.11 answers); 404 for the first one unknown.
 */
export async function loadEmployeesForMatching(
  database: TenantDatabase,
  index: VacancyIndex,
  employeeIds: readonly string[],
): Promise<EmployeeForMatching[]> {
  const rows = await database.all<EmployeeRow>(
    `SELECT e.external_id, e.doc::VARCHAR AS doc, f.feedback
       FROM employees e
       LEFT JOIN (SELECT employee_id, ${FEEDBACK_LIST} AS feedback FROM match_feedback
                   WHERE list_contains($1::VARCHAR[], employee_id) GROUP BY employee_id) f
         ON f.employee_id = e.external_id
      WHERE list_contains($1::VARCHAR[], e.external_id)`,
    [listValue([...employeeIds])],
  )
  const byId = new Map(rows.map((row) => [row.external_id, row]))
  return employeeIds.map((id) => {
    const row = byId.get(id)
    if (!row) throw errors.notFound('employee', id)
    return employeeForMatching(index, row)
  })
}

/** An employee's match feedback as one JSON list (vacancy_id, feedback, day). */
const FEEDBACK_LIST = `to_json(list(json_object('vacancy_id', vacancy_id, 'feedback', feedback,
                 'timestamp', strftime(timestamp, '%Y-%m-%d'))))::VARCHAR`

type EmployeeRow = {
  external_id: string
  doc: string
  feedback: string | null
}

/** An employee's row read with the profile the index holds for them. */
function employeeForMatching(index: VacancyIndex, row: EmployeeRow): EmployeeForMatching {
  const feedback = (row.feedback ? JSON.parse(row.feedback) : []) as {
    vacancy_id: string
    feedback: string
    timestamp: string
  }[]
  const { employees } = index
  const position = employees.position.get(row.external_id)
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
    id: row.external_id,
    record: JSON.parse(row.doc) as Employee,
    skills,
    lowData: position !== undefined && employees.lowData[position] === 1,
    feedback: new Map(
      feedback.map((entry) => [entry.vacancy_id, { feedback: entry.feedback, timestamp: entry.timestamp }]),
    ),
  }
}

/** The evidence of an employee's skills: skill id → the events that show it. */
export type EmployeeEvidence = Map<string, { external_id: string; event_type: string }[]>

/** The evidence of an employee's skills (event_types, relevant_experience): skill id → events. */
export async function employeeEvidence(
  database: TenantDatabase,
  employeeId: string,
  vendor: ExternalVendor,
): Promise<EmployeeEvidence> {
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

/** An employee's evidence events by external id: type, day and a one-line summary. */
export type EmployeeEvents = Map<string, { event_type: string; timestamp: string; summary: string | null }>

/** The one employee's evidence events, by external id (relevant_experience). */
export async function employeeEvents(database: TenantDatabase, employeeId: string): Promise<EmployeeEvents> {
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
