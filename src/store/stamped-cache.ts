import type { TenantDatabase } from './tenant-database.js'

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
 * Aggregates that move whenever a part of the data an index reads changes: entities by their
 * counts, change sequences (and update times, or for jobs a hash of their ids), profiles by their
 * versions (the derivation bumps a profile's version, and its computed_at, whenever the profile
 * changes), skill names by a hash. A job index is kept across processes (persisted-job-index.ts), so
 * the stamp also tells a database restored from a backup and changed again from the one it was
 * built from: the update times and ids move even where a change sequence repeats.
 * No string filters: they cost more than the rows they skip.
 */
const STAMP_PARTS = {
  employees: "SELECT count(*) || ':' || max(change_seq) || ':' || sum(epoch_ms(updated_at)) FROM employees",
  vacancies: "SELECT count(*) || ':' || max(change_seq) || ':' || sum(epoch_ms(updated_at)) FROM vacancies",
  jobs: "SELECT count(*) || ':' || max(change_seq) || ':' || sum(hash(external_id)) FROM jobs",
  courses: "SELECT count(*) || ':' || max(change_seq) || ':' || sum(epoch_ms(updated_at)) FROM courses",
  profiles:
    "SELECT count(*) || ':' || sum(version) || ':' || max(computed_at) || ':' || count_if(low_data) FROM skill_profiles",
  skill_names:
    "SELECT count(*) || ':' || sum(hash(external_vendor, skill_id, language, label)) FROM skill_labels WHERE kind = 'name'",
  postal_codes: "SELECT count(*) || ':' || max(imported_at) FROM postal_codes",
  domains:
    "SELECT count(*) || ':' || sum(hash(external_vendor, external_id, domain_name, custom_properties::VARCHAR, updated_at)) FROM domains",
  subdomains:
    "SELECT count(*) || ':' || sum(hash(external_vendor, external_id, subdomain_name, domain_id, custom_properties::VARCHAR, updated_at)) FROM subdomains",
  skill_clusters:
    "SELECT count(*) || ':' || sum(hash(external_vendor, external_id, skill_cluster_name, subdomain_id, custom_properties::VARCHAR, updated_at)) FROM skill_clusters",
} as const

/** A part of the data an index is built from (see STAMP_PARTS). */
export type StampPart = keyof typeof STAMP_PARTS

/** The stamp of the parts of the data an index reads: one round trip (each costs 0.5 ms or more). */
async function dataStamp(database: TenantDatabase, parts: readonly StampPart[]): Promise<string> {
  const row = await database.one<{ stamp: string }>(
    `SELECT concat_ws('/', ${parts.map((part) => `(${STAMP_PARTS[part]})`).join(', ')}) AS stamp`,
  )
  return row?.stamp ?? ''
}

/**
 * The index of an open database for `key`, built from the `parts` of the data: the one rule of every in-memory index (job matching,
 * vacancy matching, the skill gap, the taxonomy's levels). With the caller's data version (the server's reads, which
 * run beside derivations and batches of skill events) the stamp is asked only when the version
 * moved, and a build reads one state of the data (a transaction); without one (a one-off command,
 * which holds the database alone) the stamp is asked each time and the build needs no transaction
 * (a transaction over millions of profile rows is not free).
 */
export async function stampedIndex<T>(
  cache: StampedCache<T>,
  database: TenantDatabase,
  key: string,
  dataVersion: string | undefined,
  parts: readonly StampPart[],
  build: (stamp: string) => Promise<T>,
): Promise<T> {
  const stamp = () => dataStamp(database, parts)
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
