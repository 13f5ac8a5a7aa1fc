import { randomUUID } from 'node:crypto'
import type { DuckDBValue } from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import { appendEvents, type OutboxEventInput, typedEventSource } from '../events/outbox.js'
import type { CloudEventType } from '../schemas/events.js'
import {
  type TaxonomyChange,
  TaxonomyChangesRequest,
  type TaxonomyOperationType,
} from '../schemas/taxonomy.js'
import type { TaxonomyChangesPage } from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { timestampValue } from '../store/sql-values.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { type EventContext, isoTime, parseRequestBody } from './taxonomy-tenant.js'

/** CloudEvent types of section 6.2 that the taxonomy sends. */
export const TAXONOMY_EVENT_TYPES = {
  skillCreated: 'ai.vendor.taxonomy.skill.created.v1',
  skillUpdated: 'ai.vendor.taxonomy.skill.updated.v1',
  skillDeleted: 'ai.vendor.taxonomy.skill.deleted.v1',
  taxonomyUpdated: 'ai.vendor.taxonomy.updated.v1',
} as const

export interface ChangeInput {
  operation_type: TaxonomyOperationType
  /** The entity the operation concerns; null for a whole-vocabulary import. */
  entity_external_id: string | null
  external_vendor: ExternalVendor
  details: Record<string, unknown>
}

/** Skills a change created, updated or deleted; each gets its own skill event. */
export interface SkillChangeIds {
  created: readonly string[]
  updated: readonly string[]
  deleted: readonly string[]
}

export const NO_SKILL_CHANGES: SkillChangeIds = { created: [], updated: [], deleted: [] }

/** A change's own id: `chg-` and a UUID without dashes (36 characters, an ExternalId). */
export const newChangeId = () => `chg-${randomUUID().replaceAll('-', '')}`

/**
 * Records one taxonomy operation: a `taxonomy_changes` row, then in the outbox one skill event
 * per skill created, updated or deleted (source `/taxonomy/skills/{id}`) and one
 * `ai.vendor.taxonomy.updated.v1` pointing at the changes (source `/taxonomy/changes`, where
 * `POST` with the change's external_id reads it). It
 * opens no transaction: call it inside the one that makes the change, so that the change, its
 * record and its events commit together.
 */
export async function recordTaxonomyChange(
  database: TenantDatabase,
  context: EventContext,
  change: ChangeInput,
  skills: SkillChangeIds = NO_SKILL_CHANGES,
  time = new Date(),
): Promise<{ change: TaxonomyChange; events: number }> {
  const external_id = newChangeId()
  await database.run('INSERT INTO taxonomy_changes VALUES ($1, $2, $3, $4, $5, $6)', [
    external_id,
    change.operation_type,
    change.entity_external_id,
    change.external_vendor,
    JSON.stringify(change.details),
    timestampValue(time),
  ])
  const skillEvent = (type: CloudEventType, id: string): OutboxEventInput => ({
    type,
    source: typedEventSource(context.baseUrl, type, id),
    data: { tenant_name: context.tenantName, external_id: id, external_vendor: change.external_vendor },
  })
  const events: OutboxEventInput[] = [
    ...skills.created.map((id) => skillEvent(TAXONOMY_EVENT_TYPES.skillCreated, id)),
    ...skills.updated.map((id) => skillEvent(TAXONOMY_EVENT_TYPES.skillUpdated, id)),
    ...skills.deleted.map((id) => skillEvent(TAXONOMY_EVENT_TYPES.skillDeleted, id)),
    {
      type: TAXONOMY_EVENT_TYPES.taxonomyUpdated,
      source: typedEventSource(context.baseUrl, TAXONOMY_EVENT_TYPES.taxonomyUpdated),
      data: { tenant_name: context.tenantName, operation_type: change.operation_type, external_id },
    },
  ]
  await appendEvents(database, events)
  return {
    change: { external_id, ...change, time: time.toISOString() },
    events: events.length,
  }
}

interface ChangeRow {
  external_id: string
  operation_type: TaxonomyOperationType
  entity_external_id: string | null
  external_vendor: ExternalVendor
  details: string
  time: Date
}

/**
 * Recorded taxonomy changes (what `POST /taxonomy/changes` serves): filtered by operation_type
 * and/or one change's external_id, ordered by time then external_id, a page at a time from the
 * change named by `starting_after` (exclusive). An unknown `starting_after` is a 422 naming it.
 */
export async function listTaxonomyChanges(
  database: TenantDatabase,
  request: unknown = {},
): Promise<TaxonomyChangesPage> {
  const query = parseRequestBody(TaxonomyChangesRequest, request, 'the taxonomy changes request')
  const conditions: string[] = []
  const params: DuckDBValue[] = []
  const bind = (value: DuckDBValue) => {
    params.push(value)
    return `$${params.length}`
  }
  if (query.operation_type) conditions.push(`operation_type = ${bind(query.operation_type)}`)
  if (query.external_id) conditions.push(`external_id = ${bind(query.external_id)}`)
  if (query.starting_after) {
    const cursor = await database.one<{ time: Date }>(
      'SELECT time FROM taxonomy_changes WHERE external_id = $1',
      [query.starting_after],
    )
    if (!cursor) {
      throw errors.unprocessable(
        `starting_after: no taxonomy change '${query.starting_after}' exists; pass the next_starting_after of the previous page`,
      )
    }
    const time = bind(timestampValue(cursor.time))
    const id = bind(query.starting_after)
    conditions.push(`(time > ${time} OR (time = ${time} AND external_id > ${id}))`)
  }
  let sql =
    'SELECT external_id, operation_type, entity_external_id, external_vendor, details::VARCHAR AS details, time FROM taxonomy_changes'
  if (conditions.length) sql += ` WHERE ${conditions.join(' AND ')}`
  sql += ` ORDER BY time, external_id LIMIT ${bind(query.limit + 1)}`
  const rows = await database.all<ChangeRow & Record<string, unknown>>(sql, params)
  const records = rows.slice(0, query.limit).map(
    (row): TaxonomyChange => ({
      external_id: row.external_id,
      operation_type: row.operation_type,
      entity_external_id: row.entity_external_id,
      external_vendor: row.external_vendor,
      details: JSON.parse(row.details) as Record<string, unknown>,
      time: isoTime(row.time),
    }),
  )
  const has_next = rows.length > query.limit
  return { records, has_next, next_starting_after: has_next ? (records.at(-1)?.external_id ?? null) : null }
}
