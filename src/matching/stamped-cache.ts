import type { TenantDatabase } from '../store/tenant-database.js'

/**
 * Per open database and key: the value built for a data stamp (or its build in progress, so that
 * concurrent requests share one). A different stamp rebuilds; a failed build is forgotten.
 */
export class StampedCache<T> {
  private readonly entries = new WeakMap<TenantDatabase, Map<string, { stamp: string; value: Promise<T> }>>()

  /** The value for `key` built at `stamp`, building it with `build` when there is none. */
  get(database: TenantDatabase, key: string, stamp: string, build: () => Promise<T>): Promise<T> {
    let byKey = this.entries.get(database)
    if (!byKey) {
      byKey = new Map()
      this.entries.set(database, byKey)
    }
    const known = byKey.get(key)
    if (known && known.stamp === stamp) return known.value
    const value = build()
    byKey.set(key, { stamp, value })
    const entries = byKey
    value.catch(() => {
      if (entries.get(key)?.value === value) entries.delete(key)
    })
    return value
  }
}
