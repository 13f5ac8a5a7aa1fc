import type { TenantDatabase } from '../store/tenant-database.js'

interface Entry<T> {
  stamp: string
  value: Promise<T>
  /** The caller's data version the stamp was last confirmed at (see `getAtVersion`). */
  version?: string
}

/**
 * Per open database (every connection of it alike) and key: the value built for a data stamp (or
 * its build in progress, so that concurrent requests share one). A different stamp rebuilds; a
 * failed build is forgotten.
 */
export class StampedCache<T> {
  private readonly entries = new WeakMap<object, Map<string, Entry<T>>>()

  /** The value for `key` built at `stamp`, building it with `build` when there is none. */
  get(database: TenantDatabase, key: string, stamp: string, build: () => Promise<T>): Promise<T> {
    return this.entry(database, key, stamp, build).value
  }

  /**
   * `get` for a caller that knows a version of the data which changes whenever anything may have
   * written to it (the server's tenant pool): while the version is the one the value was last
   * confirmed at, the value is given without asking the database for its stamp; otherwise the
   * stamp is asked (`stamp`), and a value whose stamp still holds is kept and confirmed at the
   * new version.
   */
  async getAtVersion(
    database: TenantDatabase,
    key: string,
    version: string,
    stamp: () => Promise<string>,
    build: (stamp: string) => Promise<T>,
  ): Promise<T> {
    const known = this.entries.get(database.cacheScope)?.get(key)
    if (known && known.version === version) return known.value
    const current = await stamp()
    const entry = this.entry(database, key, current, () => build(current))
    entry.version = version
    return entry.value
  }

  private entry(database: TenantDatabase, key: string, stamp: string, build: () => Promise<T>): Entry<T> {
    let byKey = this.entries.get(database.cacheScope)
    if (!byKey) {
      byKey = new Map()
      this.entries.set(database.cacheScope, byKey)
    }
    const known = byKey.get(key)
    if (known && known.stamp === stamp) return known
    const entry: Entry<T> = { stamp, value: build() }
    byKey.set(key, entry)
    const entries = byKey
    entry.value.catch(() => {
      if (entries.get(key) === entry) entries.delete(key)
    })
    return entry
  }
}
