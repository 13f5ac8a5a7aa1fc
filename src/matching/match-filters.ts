import type {
  CustomProperties,
  CustomPropertyEntityType,
  PropertyType,
} from '../schemas/custom-properties.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { compilePropertyRule, type Props } from './custom-property-rules.js'
import { forEachRow } from './profile-columns.js'
import { ProblemList } from './request-issues.js'

const DAY_MS = 86_400_000

/**
 * The `last_updated` filter as a test of a record's update time (epoch ms, UTC): `lt` updated
 * before the day `value` begins, `lte` by the end of that day, `gt` after that day, `gte` from
 * its start on. A record without a time never passes.
 */
export function lastUpdatedTest(
  value: string,
  operator: 'lt' | 'lte' | 'gt' | 'gte',
): (time: number) => boolean {
  const day = Date.parse(`${value}T00:00:00Z`)
  switch (operator) {
    case 'lt':
      return (time) => time < day
    case 'lte':
      return (time) => time < day + DAY_MS
    case 'gt':
      return (time) => time >= day + DAY_MS
    default:
      return (time) => time >= day
  }
}

/** The custom property definitions of one entity type: name → type. */
export async function propertyDefinitions(
  database: TenantDatabase,
  entityType: CustomPropertyEntityType,
): Promise<Map<string, PropertyType>> {
  const rows = await database.all<{ property_name: string; property_type: PropertyType }>(
    'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1',
    [entityType],
  )
  return new Map(rows.map((row) => [row.property_name, row.property_type]))
}

/**
 * Custom properties of the records of `table`, aligned with `ids` (the matching numbering); only
 * the properties in `names` are kept, so that a worker thread receives little.
 */
export async function customPropertiesOf(
  database: TenantDatabase,
  table: 'employees' | 'jobs' | 'vacancies',
  ids: readonly string[],
  names: ReadonlySet<string>,
): Promise<Props[]> {
  const out: Props[] = new Array(ids.length).fill(null)
  if (names.size === 0) return out
  const index = new Map<string, number>()
  for (let position = 0; position < ids.length; position++) index.set(ids[position] as string, position)
  await forEachRow(
    database,
    `SELECT external_id, (doc->'custom_properties')::VARCHAR FROM ${table} WHERE (doc->'custom_properties') IS NOT NULL`,
    [],
    2,
    (values) => {
      const position = index.get(values[0] as string)
      if (position === undefined || values[1] === null) return
      const all = JSON.parse(values[1] as string) as CustomProperties | null
      if (!all) return
      const kept: CustomProperties = {}
      let any = false
      for (const name of names) {
        if (all[name] !== undefined) {
          kept[name] = all[name] as CustomProperties[string]
          any = true
        }
      }
      out[position] = any ? kept : null
    },
  )
  return out
}

/** The from/to custom property filters of a request, in a form a worker thread can receive. */
export interface PairFilterSpec {
  rules: { rule: Record<string, unknown>; field: string }[]
  sourceDefinitions: [string, PropertyType][]
  candidateDefinitions: [string, PropertyType][]
  sourceProps: Props[]
  candidateProps: Props[]
}

/** Compiles a pair filter spec (already checked) into a test of (source number, candidate number). */
export function pairFilterOf(spec: PairFilterSpec): (source: number, candidate: number) => boolean {
  const problems = new ProblemList()
  const context = {
    sourceDefinitions: new Map(spec.sourceDefinitions),
    candidateDefinitions: new Map(spec.candidateDefinitions),
    sourceType: 'source',
    candidateType: 'candidate',
    problems,
  }
  const rules = spec.rules.map(({ rule, field }) => compilePropertyRule(rule, field, context))
  return (source, candidate) => {
    const from = spec.sourceProps[source]
    const to = spec.candidateProps[candidate]
    for (const rule of rules) if (rule.score(from, to) <= 0) return false
    return true
  }
}
