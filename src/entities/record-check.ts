import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import type { EntityKind, Reference, ReferenceTarget } from '../ingest/entity-kinds.js'
import { checkRow, type ReferenceLookup } from '../ingest/row-check.js'
import type { PropertyType, TenantSettings } from '../schemas/index.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { parseBody } from './input-issues.js'

/** What checking and storing one record needs of a tenant. */
export interface EntityTenant {
  database: TenantDatabase
  settings: TenantSettings
}

const EXISTS: Record<Exclude<ReferenceTarget, 'jobs_or_job_families'>, string> = {
  organisational_units: 'SELECT 1 AS found FROM organisational_units WHERE external_id = $1',
  jobs: 'SELECT 1 AS found FROM jobs WHERE external_id = $1',
  job_families: 'SELECT 1 AS found FROM job_families WHERE external_id = $1',
  companies: 'SELECT 1 AS found FROM companies WHERE external_id = $1',
  courses: 'SELECT 1 AS found FROM courses WHERE external_id = $1',
  employees: 'SELECT 1 AS found FROM employees WHERE external_id = $1',
  vacancies: 'SELECT 1 AS found FROM vacancies WHERE external_id = $1',
  skills: 'SELECT 1 AS found FROM skills WHERE external_id = $1 LIMIT 1',
}

/** Whether `id` exists in `target` (a job or a job family for `jobs_or_job_families`). */
export async function referenceExists(
  database: TenantDatabase,
  target: ReferenceTarget,
  id: string,
): Promise<boolean> {
  if (target === 'jobs_or_job_families') {
    return (await referenceExists(database, 'jobs', id)) || referenceExists(database, 'job_families', id)
  }
  return (await database.one(EXISTS[target], [id])) !== undefined
}

/**
 * A ReferenceLookup holding exactly the references of one record, looked up one by one: ingest
 * loads every id of a target per file, which a request for one record on a tenant of 100,000
 * employees cannot afford.
 */
async function lookupFor(
  database: TenantDatabase,
  references: readonly Reference[],
): Promise<ReferenceLookup> {
  const found = new Set<string>()
  for (const reference of references) {
    if (await referenceExists(database, reference.target, reference.id)) {
      found.add(`${reference.target}\u0000${reference.id}`)
    }
  }
  return { has: (target, id) => found.has(`${target}\u0000${id}`) }
}

/** The tenant's custom property definitions of the kind's entity type, as ingest loads them. */
async function definitionsOf(
  database: TenantDatabase,
  kind: EntityKind,
): Promise<Map<string, PropertyType> | undefined> {
  if (!kind.customPropertyType) return undefined
  const rows = await database.all<{ property_name: string; property_type: PropertyType }>(
    'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1',
    [kind.customPropertyType],
  )
  return new Map(rows.map((row) => [row.property_name, row.property_type]))
}

/**
 * Checks one record sent over HTTP with the checks ingest gives a row of the same entity
 * (`checkRow`: the zod schema, custom properties against their definitions, the model
 * configuration rule, references), and answers with the spec's statuses: 400 for a wrong
 * structure, 422 for invalid values (and an outdated model configuration), 404 naming a
 * referenced record that does not exist. Returns the record as ingest would store it.
 */
export async function checkRecord(
  tenant: EntityTenant,
  kind: EntityKind,
  input: unknown,
  what: string,
): Promise<Record<string, unknown>> {
  // The schema first, on its own, because checkRow's problems do not say structure from value.
  const parsed = parseBody(kind.schema, input, what) as Record<string, unknown>
  const references = kind.references(parsed)
  const lookup = await lookupFor(tenant.database, references)
  const checked = checkRow(input, {
    kind,
    settings: tenant.settings,
    definitions: await definitionsOf(tenant.database, kind),
    references: lookup,
  })
  if (checked.record) return checked.record
  const missing = new Set(
    references.filter((reference) => !lookup.has(reference.target, reference.id)).map((r) => r.path),
  )
  const unknown = checked.problems.filter((problem) => missing.has(problem.field))
  const invalid = checked.problems.filter((problem) => !missing.has(problem.field))
  // A bad value is reported before a missing reference: fixing it may change what is referenced.
  if (invalid.length > 0) {
    throw errors.unprocessable(invalid.map((problem) => `${problem.field}: ${problem.reason}`))
  }
  throw new SkillhouseError(
    404,
    unknown.map(
      (problem) =>
        `${problem.field}: ${problem.reason.replace('; ingest it first (404 Not Found)', '; create it first')}`,
    ),
  )
}
