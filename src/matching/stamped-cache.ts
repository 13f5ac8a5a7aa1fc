import type { TenantDatabase } from '../store/tenant-database.js'

interface Entry<T> {
  stamp: string
  value: Promise<T>
}

/**
 * Per open database (every connection of it alike) and key: the value built for a data stamp (or
 * its build in progress, so that concurrent requests share one). A different stamp rebuilds; a
 * failed build is forgotten.
 */
export class StampedCache<T> {
  private readonly entries = new WeakMap<object, Map<string, Entry<T>>>()
  /** Per key: the value given at the caller's latest data version (see `getAtVersion`). */
  private readonly confirmed = new WeakMap<object, Map<string, { version: string; value: Promise<T> }>>()

  /** The value for `key` built at `stamp`, building it with `build` when there is none. */
  get(database: TenantDatabase, key: string, stamp: string, build: () => Promise<T>): Promise<T> {
    const byKey = keysOf(this.entries, database)
    const known = byKey.get(key)
    if (known && known.stamp === stamp) return known.value
    return remember(byKey, key, { stamp, value: build() })
  }

  /**
   * `get` for a caller that knows a version of the data which changes whenever anything may have
   * written to it (the server's tenant pool): while the version is the one the value was last
   * confirmed at, the value is given without asking the database for its stamp; otherwise the
   * stamp is asked (`stamp`), and a value whose stamp still holds is kept and confirmed at the
   * new version.
   */
  getAtVersion(
    database: TenantDatabase,
    key: string,
    version: string,
    stamp: () => Promise<string>,
    build: (stamp: string) => Promise<T>,
  ): Promise<T> {
    const byKey = keysOf(this.confirmed, database)
    const known = byKey.get(key)
    if (known && known.version === version) return known.value
    // Remembered before the stamp is asked: the requests arriving meanwhile share one question.
    return remember(byKey, key, {
      version,
      value: stamp().then((current) => this.get(database, key, current, () => build(current))),
    })
  }
}

/**
 * The index of an open database for `key`: the one rule of every in-memory index (job matching,
 * vacancy matching, the skill gap). With the caller's data version (the server's reads, which
 * run beside derivations and batches of skill events) the stamp is asked only when the version
 * moved, and a build reads one state of the data (a transaction); without one (a one-off command,
 * which holds the database alone) the stamp is asked each time and the build needs no transaction
 * (it costs 0.1–0.3 s on 3 M profile rows).
 */
export async function stampedIndex<T>(
  cache: StampedCache<T>,
  database: TenantDatabase,
  key: string,
  dataVersion: string | undefined,
  stamp: () => Promise<string>,
  build: (stamp: string) => Promise<T>,
): Promise<T> {
  if (dataVersion !== undefined)
    return cache.getAtVersion(database, key, dataVersion, stamp, (current) =>
      database.snapshot(() => build(current)),
    )
  const current = await stamp()
  return cache.get(database, key, current, () => build(current))
}

/** The entries of one open database, made on first use. */
function keysOf<V>(maps: WeakMap<object, Map<string, V>>, database: TenantDatabase): Map<string, V> {
  let byKey = maps.get(database.cacheScope)
  if (!byKey) {
    byKey = new Map()
    maps.set(database.cacheScope, byKey)
  }
  return byKey
}

/** Keeps `entry` under `key` and gives its value; a value that fails is forgotten. */
function remember<T, V extends { value: Promise<T> }>(
  byKey: Map<string, V>,
  key: string,
  entry: V,
): Promise<T> {
  byKey.set(key, entry)
  entry.value.catch(() => {
    if (byKey.get(key) === entry) byKey.delete(key)
  })
  return entry.value
}
