import type { z } from 'zod'
import { checkCustomProperties, type PropertyType } from '../schemas/custom-properties.js'
import { MODERN_EVENT_TYPES } from '../schemas/skill-events.js'
import { supportsModernEvents, type TenantSettings } from '../schemas/tenant-settings.js'
import { MALFORMED_TEXT, malformedText } from '../util/malformed-text.js'
import type { EntityKind, Reference, ReferenceTarget } from './entity-kinds.js'
import { fastParseOf } from './fast-parse.js'

/** What is wrong with one field of a record. */
export interface Problem {
  field: string
  reason: string
}

/** Looks up whether an external_id exists for a reference target. */
export interface ReferenceLookup {
  has(target: ReferenceTarget, id: string): boolean
}

export interface RowCheckContext {
  kind: EntityKind
  settings: TenantSettings
  definitions: ReadonlyMap<string, PropertyType> | undefined
  references: ReferenceLookup
}

/**
 * Every check of one row that needs no other row: the zod schema, custom properties against
 * their definitions, the model configuration rule of section 2.4, and references. Runs on the
 * main thread and in the ingest workers alike.
 */
export function checkRow(
  input: unknown,
  context: RowCheckContext,
): { record: Record<string, unknown>; problems?: undefined } | { problems: Problem[]; record?: undefined } {
  // An event type the tenant's model configuration does not allow is named as such even when
  // the schema does not know it (`dynamic`): the fix is the tenant's, not the row's.
  const outdated =
    input !== null && typeof input === 'object'
      ? modelConfigurationProblems(context.kind, input as Record<string, unknown>, context.settings)
      : []
  if (outdated.length > 0) return { problems: outdated }
  // A string with an unpaired surrogate (JSON allows the escape "\ud800") cannot be stored as
  // text: named here, rather than failing the file's insert.
  const malformed = malformedText(input, '')
  if (malformed !== null) {
    return {
      problems: [
        {
          field: malformed,
          reason: MALFORMED_TEXT,
        },
      ],
    }
  }
  // The compiled parse settles the valid rows; zod decides (and explains) the others.
  let record = fastParseOf(context.kind.schema)?.(input) as Record<string, unknown> | undefined
  if (record === undefined) {
    const parsed = context.kind.schema.safeParse(input)
    if (!parsed.success) return { problems: zodProblems(parsed.error) }
    record = parsed.data as Record<string, unknown>
  }
  const { kind, definitions } = context
  const problems = [
    ...(definitions && kind.customPropertyType
      ? checkCustomProperties(
          record.custom_properties as Record<string, never> | undefined,
          definitions,
          kind.customPropertyType,
        ).map((problem) => ({ field: problem.path, reason: problem.message }))
      : []),
    ...modelConfigurationProblems(kind, record, context.settings),
    ...referenceProblems(kind.references(record), context.references, kind),
  ]
  return problems.length ? { problems } : { record }
}

/** zod issues as problems: the dotted field path and a reason that says what would be valid. */
export function zodProblems(error: z.ZodError): Problem[] {
  return error.issues.map((issue) => ({
    // An unknown field is named itself, not by the object that holds it.
    field: [...issue.path, ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [])]
      .map(String)
      .join('.'),
    reason: describeIssue(issue),
  }))
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}; remove them`
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return `${issue.message}${issue.message.includes('expected one of') ? '' : `; valid values: ${issue.values.join(', ')}`}`
  }
  if (issue.code === 'invalid_type' && issue.message.includes('received undefined'))
    return `is required (${issue.expected})`
  return issue.message
}

/** The model configuration rule of 2.4 and 9.2 for a skill event row. */
export function modelConfigurationProblems(
  kind: EntityKind,
  record: Record<string, unknown>,
  settings: TenantSettings,
): Problem[] {
  if (kind.storage !== 'skill_events') return []
  const type = String(record.event_type)
  if (
    !(MODERN_EVENT_TYPES as readonly string[]).includes(type) ||
    supportsModernEvents(settings.model_configuration)
  )
    return []
  return [
    {
      field: 'event_type',
      reason: `event_type ${type} requires model configuration MC_2025_Q1_V1 or later; tenant ${settings.name} uses ${settings.model_configuration}: the model configuration is outdated and should be upgraded`,
    },
  ]
}

export const TARGET_NAMES: Record<ReferenceTarget, string> = {
  organisational_units: 'organisational unit',
  jobs: 'job',
  job_families: 'job family',
  jobs_or_job_families: 'job or job family',
  companies: 'company',
  courses: 'course',
  employees: 'employee',
  vacancies: 'vacancy',
  skills: 'skill',
}

function referenceProblems(list: Reference[], index: ReferenceLookup, kind: EntityKind): Problem[] {
  if (list.length === 0) return []
  const problems: Problem[] = []
  for (const reference of list) {
    // Parents of organisational units may stand later in the same file: checked after the file.
    if (kind.entity === 'organisational_units' && reference.path === 'parent_id') continue
    if (!index.has(reference.target, reference.id)) {
      problems.push({
        field: reference.path,
        reason: `${TARGET_NAMES[reference.target]} '${reference.id}' does not exist; ingest it first (404 Not Found)`,
      })
    }
  }
  return problems
}
