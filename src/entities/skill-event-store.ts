import type { z } from 'zod'
import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import type { EventInput } from '../profiles/evidence.js'
import { endActiveWorkingHistory } from '../profiles/working-history.js'
import { type EntityKind, entityKind } from '../records/entity-kinds.js'
import {
  checkParsedRecord,
  definitionsOf,
  type EntityTenant,
  existingIds,
  lookupReferences,
  rowsByExternalIds,
} from '../records/record-check.js'
import { modelConfigurationProblems, type ReferenceLookup } from '../records/row-check.js'
import { parseBody, parseQuery } from '../schemas/input-issues.js'
import { SkillEvent, SkillEventQuery } from '../schemas/skill-events.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'

const SKILL_EVENTS = entityKind('skill_events')

/** The `strict` check of 4.2 (see `strictCheck`); prepared by the caller, which may cache it. */
export type StrictCheck = (event: EventInput) => boolean

/** The query parameters of 4.2 as they arrive (names: docs/api.md). */
export interface SkillEventQueryInput {
  language?: string | undefined
  strict?: string | undefined
  end_active_working_history?: string | undefined
}

/** Which of the ids are employees of the tenant (by default a query of the employees table). */
export type EmployeeLookup = (ids: readonly string[]) => Promise<Set<string>>

/** A skill event stored now (an external_id stored before is a 409, whatever its content). */
export interface StoredSkillEvent {
  external_id: string
  stored: boolean
}

/** One skill event as the API receives it: the employee of the path, the body, the query. */
export interface SkillEventRequest {
  employeeId: string
  body: unknown
  query: SkillEventQueryInput
}

interface CheckedEvent {
  index: number
  externalId: string
  employeeId: string
  eventType: string
  timestamp: string
  source: string
  content: string
  language: string
  strict: boolean
  endActive: boolean
  record: Record<string, unknown>
}

/**
 * `POST /employees/{employee_external_id}/skill_events` (4.2): stores one Skill Event durably, as
 * `ingest` stores a row of `skill_events.ndjson` (the same checks, content hash and change_seq), so
 * that derivation picks it up. The rules:
 * - 404 for an unknown employee (it must be created first), and for a Job, Course or Skill the
 *   content references that does not exist;
 * - 400 for a body of the wrong structure, 422 for invalid values and for ticket, merge_request
 *   and dynamic events on a tenant whose model configuration is older than MC_2025_Q1_V1;
 * - the same external_id again is a 409 (Skill Event already exists), whether the content is the
 *   same (a retry: the event is stored, nothing changes) or not (a skill event cannot be changed);
 *   the description says which. `ingest` of a file sent again is a no-op instead (its own merge);
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
  const [outcome] = await storeSkillEvents(tenant, [{ employeeId, body, query }], strict)
  if (outcome instanceof SkillhouseError) throw outcome
  if (!outcome) throw errors.internal('a stored skill event went missing')
  return outcome
}

/**
 * `storeSkillEvent` for many requests at once, with one outcome per request in their order: the
 * stored event, or the error its request answers. The server's group commit: the requests that
 * arrive while one batch is being written become the next batch, checked with one query per
 * table and written in one transaction (one write-ahead log flush), as if stored one after the
 * other in their order (a second event with the same external_id is compared with the first).
 */
export async function storeSkillEvents(
  tenant: EntityTenant,
  requests: readonly SkillEventRequest[],
  strict?: () => Promise<StrictCheck>,
  employees?: EmployeeLookup,
): Promise<(StoredSkillEvent | SkillhouseError)[]> {
  return writeSkillEvents(tenant, await checkSkillEvents(tenant, requests, strict, employees))
}

/**
 * A batch of skill events checked against the database, to be written by `writeSkillEvents`:
 * the answers of the requests that failed a check, the events that passed them, and the
 * tenant's `strict` check when an event asks for it. Whether an event is stored already is left
 * to the write (see `writeSkillEvents`).
 */
export interface CheckedSkillEvents {
  outcomes: readonly (StoredSkillEvent | SkillhouseError | undefined)[]
  checked: readonly CheckedEvent[]
  strict: StrictCheck | undefined
}

/**
 * The first half of `storeSkillEvents`: every check, reading the database but writing nothing.
 * Its answers hold while no other write commits before `writeSkillEvents` but a batch of events
 * whose external_ids are none of these (the server's pipeline checks the next batch while one is
 * being written, and keeps an external_id of the batch being written for a later batch).
 */
export async function checkSkillEvents(
  tenant: EntityTenant,
  requests: readonly SkillEventRequest[],
  strict?: () => Promise<StrictCheck>,
  employeeLookup?: EmployeeLookup,
): Promise<CheckedSkillEvents> {
  const kind = SKILL_EVENTS
  if (!kind) throw errors.internal('the skill_events entity is missing')
  const outcomes: Outcomes = requests.map(() => undefined)
  const attempt = attemptInto(outcomes)
  const parsed = requests.map((request, index) => attempt(index, () => parseRequest(tenant, kind, request)))
  const candidates = parsed.map((item, index) => candidateOf(item, index, requests[index]?.employeeId ?? ''))
  if (candidates.length === 0) return { outcomes, checked: [], strict: undefined }
  const { employees, lookup } = await referencesOf(tenant.database, kind, candidates, employeeLookup)
  const definitions = await definitionsOf(tenant.database, kind)
  const checked: CheckedEvent[] = []
  for (const event of candidates) {
    if (!employees.has(event.employeeId)) {
      outcomes[event.index] = errors.notFound(
        'employee',
        event.employeeId,
        'create the employee with POST /employees first',
      )
      continue
    }
    const item = event.item
    if (!item) continue
    const record = attempt(event.index, () =>
      checkParsedRecord(tenant, kind, item.input, item.parsed, lookup, definitions),
    )
    if (!record) continue
    checked.push({
      index: event.index,
      externalId: event.externalId,
      employeeId: event.employeeId,
      eventType: event.eventType,
      timestamp: event.timestamp,
      source: event.source,
      content: event.content,
      language: item.options.language,
      strict: item.options.strict,
      endActive: item.options.end_active_working_history,
      record,
    })
  }
  if (checked.length === 0) return { outcomes, checked: [], strict: undefined }
  const check = checked.some((event) => event.strict) && strict ? await strict() : undefined
  return { outcomes, checked, strict: check }
}

type Outcomes = (StoredSkillEvent | SkillhouseError | undefined)[]

/** Runs a check of request `index`; an error it throws becomes that request's outcome. */
const attemptInto =
  (outcomes: Outcomes) =>
  <T>(index: number, check: () => T): T | undefined => {
    try {
      return check()
    } catch (error) {
      outcomes[index] = asError(error)
      return undefined
    }
  }

/** A request that passed the checks that need no database: its query options, its row, the row parsed. */
interface ParsedRequest {
  options: z.output<typeof SkillEventQuery>
  input: Record<string, unknown>
  parsed: Record<string, unknown>
}

/** The checks that need no database: query, structure, values. */
function parseRequest(tenant: EntityTenant, kind: EntityKind, request: SkillEventRequest): ParsedRequest {
  const options = parseQuery(SkillEventQuery, { ...request.query })
  const body = request.body
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'employee_id' in body) {
    throw errors.badRequest(
      'employee_id: is not a field of a skill event; the employee is named by the path (/employees/{employee_external_id}/skill_events)',
    )
  }
  const outdated =
    body !== null && typeof body === 'object'
      ? modelConfigurationProblems(kind, body as Record<string, unknown>, tenant.settings)
      : []
  if (outdated.length > 0) {
    throw errors.unprocessable(outdated.map((problem) => `${problem.field}: ${problem.reason}`))
  }
  parseBody(SkillEvent, body, 'a skill event')
  const input = { ...(body as Record<string, unknown>), employee_id: request.employeeId }
  return { options, input, parsed: parseBody(kind.schema, input, 'a skill event') as Record<string, unknown> }
}

/**
 * A request as the database checks see it. Requests that failed their checks take part for their
 * employee only: an unknown employee is a 404 before anything else is wrong with the request.
 */
interface Candidate {
  index: number
  item: ParsedRequest | undefined
  employeeId: string
  externalId: string
  eventType: string
  timestamp: string
  source: string
  content: string
}

function candidateOf(item: ParsedRequest | undefined, index: number, employeeId: string): Candidate {
  const event = item?.parsed
  return {
    index,
    item,
    employeeId,
    externalId: event ? String(event.external_id) : '',
    eventType: event ? String(event.event_type) : '',
    timestamp: event ? String(event.timestamp) : '',
    source: event ? String(event.source) : '',
    content: event ? JSON.stringify(event.content) : 'null',
  }
}

/**
 * Whether each event's employee exists, looked up in the employees' key index, and the references
 * in the content (a job, a course, a skill): one query per table, none without any.
 */
async function referencesOf(
  database: TenantDatabase,
  kind: EntityKind,
  candidates: readonly Candidate[],
  employeeLookup: EmployeeLookup | undefined,
): Promise<{ employees: Set<string>; lookup: ReferenceLookup }> {
  const employeeIds = [...new Set(candidates.map((event) => event.employeeId))]
  const employees = employeeLookup
    ? await employeeLookup(employeeIds)
    : await existingIds(database, 'employees', employeeIds)
  const contentLookup = await lookupReferences(
    database,
    candidates.flatMap((event) =>
      event.item
        ? kind.references(event.item.parsed).filter((reference) => reference.target !== 'employees')
        : [],
    ),
  )
  const lookup: ReferenceLookup = {
    has: (target, id) => (target === 'employees' ? employees.has(id) : contentLookup.has(target, id)),
  }
  return { employees, lookup }
}

/**
 * The outcome of each checked event, given the content hash of those stored already (`known`, by
 * external_id) and of the events sent under those ids (`hashes`, by request index): a repeat, a
 * 409, a 422 of `strict` (`refused`), or to be stored.
 */
function decide(
  checked: CheckedSkillEvents,
  known: ReadonlyMap<string, string>,
  hashes: ReadonlyMap<number, string>,
  refused: (event: CheckedEvent) => boolean,
): { outcomes: (StoredSkillEvent | SkillhouseError | undefined)[]; toStore: CheckedEvent[] } {
  const outcomes = [...checked.outcomes]
  const toStore: CheckedEvent[] = []
  // Events of this batch stored before a later one with the same external_id: equal values are
  // equal hashes, so the later one is compared by its values.
  const batch = new Map<string, string>()
  for (const event of checked.checked) {
    const storedHash = known.get(event.externalId)
    const earlier = batch.get(event.externalId)
    const same =
      storedHash !== undefined
        ? storedHash === hashes.get(event.index)
        : earlier !== undefined
          ? earlier === valuesOf(event)
          : undefined
    if (same !== undefined) {
      // 4.2: 409 (Skill Event already exists) for any external_id stored before; the description
      // tells a retry of the same event (nothing to do) from an attempt to change one.
      outcomes[event.index] = errors.skillEventExists(event.externalId, same)
      continue
    }
    if (refused(event)) {
      outcomes[event.index] = errors.unprocessable(
        'content: strict: no skill profile can be built from this event (no skill of the vocabulary in its content); send it without strict=true to store it with an empty profile',
      )
      continue
    }
    batch.set(event.externalId, valuesOf(event))
    toStore.push(event)
    outcomes[event.index] = { external_id: event.externalId, stored: true }
  }
  return { outcomes, toStore }
}

/**
 * The second half of `storeSkillEvents`: writes the checked events in one transaction and
 * answers each request.
 *
 * Events sent again are rare, so the batch is first inserted as if none of its external_ids were
 * stored (one statement, which the key refuses whole when one is): looking them up first cost a
 * second statement per batch, as much DuckDB time as the insert. When the key refuses, or when the
 * answers depend on what is stored (an event that `strict` refuses, an external_id twice in the
 * batch, working histories to end in the same transaction), the stored events are looked up first.
 */
export async function writeSkillEvents(
  tenant: EntityTenant,
  checked: CheckedSkillEvents,
): Promise<(StoredSkillEvent | SkillhouseError)[]> {
  if (checked.checked.length === 0) return finished(checked.outcomes)
  const database = tenant.database
  // Whether `strict` refuses an event, asked once per event (it extracts the event's skills).
  const verdicts = new Map<number, boolean>()
  const refused = (event: CheckedEvent) => {
    const strict = checked.strict
    if (!event.strict || !strict) return false
    let verdict = verdicts.get(event.index)
    if (verdict === undefined) {
      verdict = !strict({ ...(event.record as unknown as EventInput), language: null, ended_on: null })
      verdicts.set(event.index, verdict)
    }
    return verdict
  }
  const optimistic = decide(checked, new Map(), new Map(), refused)
  const plain =
    optimistic.toStore.length === checked.checked.length && !checked.checked.some((event) => event.endActive)
  if (plain) {
    try {
      await insertEvents(database, optimistic.toStore)
      return finished(optimistic.outcomes)
    } catch (error) {
      if (!isDuplicateKey(error)) throw error
    }
  }
  const known = await storedHashes(database, checked.checked)
  const hashes =
    known.size > 0 ? await contentHashes(database, checked.checked, known) : new Map<number, string>()
  const { outcomes, toStore } = decide(checked, known, hashes, refused)
  if (toStore.length === 0) return finished(outcomes)
  const ends = endsOf(toStore)
  // One statement is one transaction: the events and, when asked, the ended working history.
  if (ends.length === 0) await insertEvents(database, toStore)
  else
    await database.transaction(async () => {
      await insertEvents(database, toStore)
      await endActiveWorkingHistory(database, ends)
    })
  return finished(outcomes)
}

/** Inserts the events (prepared once per connection: every batch runs the same statement). */
function insertEvents(database: TenantDatabase, toStore: readonly CheckedEvent[]) {
  return database.allPrepared(
    `INSERT INTO skill_events (external_id, employee_id, event_type, timestamp, content, source, content_hash,
                               received_at, change_seq, language)
     SELECT external_id, employee_id, event_type, ts::DATE, content::JSON, source, ${CONTENT_HASH}, now(),
            nextval('change_seq'), language
     FROM (SELECT unnest($1::VARCHAR[]) AS external_id, unnest($2::VARCHAR[]) AS employee_id,
                  unnest($3::VARCHAR[]) AS event_type, unnest($4::VARCHAR[]) AS ts,
                  unnest($5::VARCHAR[]) AS content, unnest($6::VARCHAR[]) AS source,
                  unnest($7::VARCHAR[]) AS language)`,
    [
      listValue(toStore.map((event) => event.externalId)),
      listValue(toStore.map((event) => event.employeeId)),
      listValue(toStore.map((event) => event.eventType)),
      listValue(toStore.map((event) => event.timestamp)),
      listValue(toStore.map((event) => event.content)),
      listValue(toStore.map((event) => event.source)),
      listValue(toStore.map((event) => event.language)),
    ],
  )
}

/** Whether DuckDB refused a statement for a key value that is stored already. */
function isDuplicateKey(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error)
  return message.includes('Constraint Error') && message.includes('Duplicate key')
}

/**
 * The content hash of a skill event, as ingest's merge computes it from the same values (an event
 * sent once over HTTP and once in a file is the same event), over columns `employee_id`,
 * `event_type`, `ts`, `source` and `content` (VARCHAR).
 */
const CONTENT_HASH = 'hash(employee_id, event_type, ts, source, content::JSON::VARCHAR)::VARCHAR'

/** The values the content hash covers, as one string: equal strings, equal hashes. */
const valuesOf = (event: CheckedEvent) =>
  JSON.stringify([event.employeeId, event.eventType, event.timestamp, event.source, event.content])

/** The content hash of every stored skill event among the events' external_ids. */
async function storedHashes(database: TenantDatabase, events: readonly CheckedEvent[]) {
  const rows = await rowsByExternalIds<{ external_id: string; content_hash: string }>(
    database,
    'SELECT external_id, content_hash FROM skill_events',
    [...new Set(events.map((event) => event.externalId))],
  )
  return new Map(rows.map((row) => [row.external_id, row.content_hash]))
}

/** The content hash of each event whose external_id is stored already, by the event's request index. */
async function contentHashes(
  database: TenantDatabase,
  events: readonly CheckedEvent[],
  stored: ReadonlyMap<string, string>,
): Promise<Map<number, string>> {
  const repeats = events.filter((event) => stored.has(event.externalId))
  const rows = await database.all<{ hash: string }>(
    `SELECT ${CONTENT_HASH} AS hash
     FROM (SELECT unnest(range(len($1::VARCHAR[]))) AS i, unnest($1::VARCHAR[]) AS employee_id,
                  unnest($2::VARCHAR[]) AS event_type, unnest($3::VARCHAR[]) AS ts,
                  unnest($4::VARCHAR[]) AS source, unnest($5::VARCHAR[]) AS content)
     ORDER BY i`,
    [
      listValue(repeats.map((event) => event.employeeId)),
      listValue(repeats.map((event) => event.eventType)),
      listValue(repeats.map((event) => event.timestamp)),
      listValue(repeats.map((event) => event.source)),
      listValue(repeats.map((event) => event.content)),
    ],
  )
  return new Map(repeats.map((event, position) => [event.index, rows[position]?.hash ?? '']))
}

/**
 * The working histories each event that asks for it ends, as if the batch were stored one event
 * after the other: an event spares itself and the events of its employee stored after it.
 */
function endsOf(events: readonly CheckedEvent[]) {
  return events.flatMap((event, position) =>
    event.endActive
      ? [
          {
            employee_id: event.employeeId,
            end_date: event.timestamp,
            except: events
              .slice(position)
              .filter((later) => later.employeeId === event.employeeId)
              .map((later) => later.externalId),
          },
        ]
      : [],
  )
}

function asError(error: unknown): SkillhouseError {
  if (error instanceof SkillhouseError) return error
  throw error
}

function finished(outcomes: readonly (StoredSkillEvent | SkillhouseError | undefined)[]) {
  return outcomes.map((outcome) => outcome ?? errors.internal('a skill event was left without an outcome'))
}

/** Skill events dated after a day: how many, and the latest date among them (null when none). */
export interface EventsDatedAfter {
  /** The day (YYYY-MM-DD) they are dated after: a run's as-of date. */
  after: string
  events: number
  latest: string | null
}

/**
 * The tenant's skill events dated after `day` (YYYY-MM-DD). They are stored, and count from
 * their own dates on (a derivation as of an earlier day leaves them out); a date in the future is
 * more often a source's wrong clock or a day-month swap than a plan, so batches warn of them.
 */
export async function eventsDatedAfter(database: TenantDatabase, day: string): Promise<EventsDatedAfter> {
  const row = await database.one<{ events: number; latest: string | null }>(
    `SELECT count(*)::INTEGER AS events, strftime(max(timestamp), '%Y-%m-%d') AS latest
       FROM skill_events WHERE timestamp > CAST($1 AS DATE)`,
    [day],
  )
  return { after: day, events: row?.events ?? 0, latest: row?.latest ?? null }
}
