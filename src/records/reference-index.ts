import type { PropertyType } from '../schemas/custom-properties.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { EntityKind, ReferenceTarget } from './entity-kinds.js'

export const REFERENCE_SOURCES: Record<Exclude<ReferenceTarget, 'jobs_or_job_families'>, string> = {
  organisational_units: 'SELECT external_id FROM organisational_units',
  jobs: 'SELECT external_id FROM jobs',
  job_families: 'SELECT external_id FROM job_families',
  companies: 'SELECT external_id FROM companies',
  courses: 'SELECT external_id FROM courses',
  employees: 'SELECT external_id FROM employees',
  vacancies: 'SELECT external_id FROM vacancies',
  skills: 'SELECT DISTINCT external_id FROM skills',
}

/** The external_ids references may point at, loaded once per file before its rows are read. */
export class ReferenceIndex {
  private readonly sets = new Map<ReferenceTarget, Set<string>>()

  constructor(private readonly database: TenantDatabase) {}

  async load(targets: readonly ReferenceTarget[]): Promise<void> {
    for (const target of targets) {
      if (target === 'jobs_or_job_families') {
        await this.load(['jobs', 'job_families'])
        continue
      }
      if (this.sets.has(target)) continue
      const rows = await this.database.all<{ external_id: string }>(REFERENCE_SOURCES[target])
      this.sets.set(target, new Set(rows.map((row) => row.external_id)))
    }
  }

  /** The loaded ids as plain arrays, to hand to worker threads. */
  ids(): Partial<Record<ReferenceTarget, string[]>> {
    return Object.fromEntries([...this.sets.entries()].map(([target, set]) => [target, [...set]]))
  }

  /** Whether `id` exists; its target must have been loaded. */
  has(target: ReferenceTarget, id: string): boolean {
    if (target === 'jobs_or_job_families') return this.has('jobs', id) || this.has('job_families', id)
    const set = this.sets.get(target)
    if (!set) throw new Error(`reference target ${target} was not loaded`)
    return set.has(id)
  }
}

/** The tenant's custom property definitions of the kind's entity type, loaded before its rows are checked. */
export async function loadDefinitions(
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
