import type { EmployeeLookup } from '../entities/skill-event-store.js'
import { allExternalIds, existingIds } from '../records/record-check.js'
import type { TenantDatabase } from '../store/tenant-database.js'

/** A lookup of all ids again this soon after the last is not worth it: SQL answers meanwhile (ms). */
const RELOAD_AFTER_MS = 5_000

/**
 * The external_ids of one tenant's employees, held in memory for the skill event batches: whether
 * an event's employee exists is then a lookup in a Set, where DuckDB takes milliseconds a batch
 * (an index scan fetches each row from its compressed column). The ids hold while `version` stays
 * the same: the tenant pool changes it whenever work that may change employees has finished (skill
 * event batches and derivations never do). Under a stream of such changes the ids are looked up
 * in SQL, and loaded again only a while after the last load.
 */
export class KnownEmployees {
  private ids: Set<string> | undefined
  private loadedVersion: number | undefined
  private loadedAt = Number.NEGATIVE_INFINITY

  constructor(private readonly version: () => number) {}

  /** The lookup for one batch, on the batch's connection. */
  lookup(database: TenantDatabase): EmployeeLookup {
    return async (ids) => {
      const version = this.version()
      if (this.ids && this.loadedVersion === version) {
        const known = this.ids
        return new Set(ids.filter((id) => known.has(id)))
      }
      this.ids = undefined
      if (Date.now() - this.loadedAt < RELOAD_AFTER_MS) return existingIds(database, 'employees', ids)
      const all = await allExternalIds(database, 'employees')
      this.ids = all
      this.loadedVersion = version
      this.loadedAt = Date.now()
      return new Set(ids.filter((id) => all.has(id)))
    }
  }
}
