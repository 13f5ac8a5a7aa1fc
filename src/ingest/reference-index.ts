import type { TenantDatabase } from '../store/tenant-database.js'
import type { ReferenceTarget } from './entity-kinds.js'

const SOURCES: Record<Exclude<ReferenceTarget, 'jobs_or_job_families'>, string> = {
  organisational_units: 'SELECT external_id FROM organisational_units',
  jobs: 'SELECT external_id FROM jobs',
  job_families: 'SELECT external_id FROM job_families',
  companies: 'SELECT external_id FROM companies',
  courses: 'SELECT external_id FROM courses',
  employees: 'SELECT external_id FROM employees',
  vacancies: 'SELECT external_id FROM vacancies',
  skills: 'SELECT DISTINCT external_id FROM skills',
}

/** The external_ids a reference may point at, loaded once per target and file. */
export class ReferenceIndex {
  private readonly sets = new Map<ReferenceTarget, Set<string>>()

  constructor(private readonly database: TenantDatabase) {}

  async has(target: ReferenceTarget, id: string): Promise<boolean> {
    if (target === 'jobs_or_job_families') {
      return (await this.has('jobs', id)) || (await this.has('job_families', id))
    }
    let set = this.sets.get(target)
    if (!set) {
      const rows = await this.database.all<{ external_id: string }>(SOURCES[target])
      set = new Set(rows.map((row) => row.external_id))
      this.sets.set(target, set)
    }
    return set.has(id)
  }

  /** Synchronous lookup once a target is loaded (the hot path of large files). */
  loaded(target: ReferenceTarget): Set<string> | undefined {
    return this.sets.get(target)
  }
}
