import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import { entityKind } from '../ingest/entity-kinds.js'
import type { EventInput } from '../profiles/evidence.js'
import { endActiveWorkingHistory } from '../profiles/working-history.js'
import { SkillEvent, SkillEventQuery } from '../schemas/index.js'
import { parseBody, parseQuery } from './input-issues.js'
import { checkRecord, type EntityTenant } from './record-check.js'

const SKILL_EVENTS = entityKind('skill_events')

/** The `strict` check of 4.2 (see `strictCheck`); prepared by the caller, which may cache it. */
export type StrictCheck = (event: EventInput) => boolean

/** The query parameters of 4.2 as they arrive (names from CONTRACT.md). */
export interface SkillEventQueryInput {
  language?: string | undefined
  strict?: string | undefined
  end_active_working_history?: string | undefined
}

/** What happened to a skill event: stored now, or already stored with the same content. */
export interface StoredSkillEvent {
  external_id: string
  stored: boolean
}

/**
 * `POST /employees/{employee_external_id}/skill_events` (4.2): stores one Skill Event durably, as
 * `ingest` stores a row of `skill_events.ndjson` (the same checks, content hash and change_seq), so
 * that derivation picks it up. The rules:
 * - 404 for an unknown employee (it must be created first), and for a Job, Course or Skill the
 *   content references that does not exist;
 * - 400 for a body of the wrong structure, 422 for invalid values and for ticket, merge_request
 *   and dynamic events on a tenant whose model configuration is older than MC_2025_Q1_V1;
 * - the same external_id again: identical content changes nothing (`stored: false`, a retry is
 *   safe), other content is a 409 (a skill event cannot be changed);
 * - `strict=true` refuses (422) an event from which no Skill Profile can be built;
 * - `end_active_working_history=true` ends the employee's working histories without end_date;
 * - `language` (auto, nl, fr, en, de) is kept with the event for extraction.
 */
export async function storeSkillEvent(
  tenant: EntityTenant,
  employeeId: string,
  body: unknown,
  query: SkillEventQueryInput,
  strict?: () => Promise<StrictCheck>,
): Promise<StoredSkillEvent> {
  if (!SKILL_EVENTS) throw errors.internal('the skill_events entity is missing')
  const options = parseQuery(SkillEventQuery, { ...query })
  const database = tenant.database
  if (!(await database.one('SELECT 1 AS found FROM employees WHERE external_id = $1', [employeeId]))) {
    throw errors.notFound('employee', employeeId, 'create the employee with POST /employees first')
  }
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'employee_id' in body) {
    throw errors.badRequest(
      'employee_id: is not a field of a skill event; the employee is named by the path (/employees/{employee_external_id}/skill_events)',
    )
  }
  parseBody(SkillEvent, body, 'a skill event')
  const record = await checkRecord(
    tenant,
    SKILL_EVENTS,
    { ...(body as Record<string, unknown>), employee_id: employeeId },
    'a skill event',
  )
  const externalId = String(record.external_id)
  const timestamp = String(record.timestamp)
  const content = JSON.stringify(record.content)
  // The hash ingest's merge computes, from the same values: an event sent once over HTTP and once
  // in a file is the same event.
  const hashRow = await database.one<{ hash: string }>(
    'SELECT hash($1::VARCHAR, $2::VARCHAR, $3::VARCHAR, $4::VARCHAR, $5::JSON::VARCHAR)::VARCHAR AS hash',
    [employeeId, String(record.event_type), timestamp, String(record.source), content],
  )
  const hash = hashRow?.hash ?? ''
  const existing = await database.one<{ content_hash: string }>(
    'SELECT content_hash FROM skill_events WHERE external_id = $1',
    [externalId],
  )
  if (existing) {
    if (existing.content_hash === hash) return { external_id: externalId, stored: false }
    throw new SkillhouseError(
      409,
      `skill event '${externalId}' already exists with different content; a skill event cannot be changed, send a new one with its own external_id`,
    )
  }
  if (options.strict && strict) {
    const check = await strict()
    if (!check({ ...(record as unknown as EventInput), language: null, ended_on: null })) {
      throw errors.unprocessable(
        'content: strict: no skill profile can be built from this event (no skill of the vocabulary in its content); send it without strict=true to store it with an empty profile',
      )
    }
  }
  await database.transaction(async () => {
    await database.run(
      `INSERT INTO skill_events (external_id, employee_id, event_type, timestamp, content, source, content_hash,
                                 received_at, change_seq, language)
       VALUES ($1, $2, $3, $4::DATE, $5::JSON, $6, $7, now(), nextval('change_seq'), $8)`,
      [
        externalId,
        employeeId,
        String(record.event_type),
        timestamp,
        content,
        String(record.source),
        hash,
        options.language,
      ],
    )
    if (options.end_active_working_history) {
      await endActiveWorkingHistory(database, [
        { employee_id: employeeId, end_date: timestamp, except: [externalId] },
      ])
    }
  })
  return { external_id: externalId, stored: true }
}
