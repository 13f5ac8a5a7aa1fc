import { statSync } from 'node:fs'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import { TenantDatabase } from '../store/tenant-database.js'
import { tenantDatabaseFile, tenantsFile } from '../tenants/data-directory.js'
import { type TenantEntry, TenantRegistry } from '../tenants/tenant-registry.js'
import type { OpenTenant } from '../tenants/tenant-service.js'

/**
 * The server's automatic checkpoint threshold. A checkpoint writes each changed table's indexes
 * whole (the key and employee index of skill_events: millions of entries), so at DuckDB's 16MB a
 * sustained burst of skill events paid one every few seconds (2,659 against 2,978 events/s over
 * 60 s). The price is a longer write-ahead log to replay after a crash (seconds); a graceful stop
 * checkpoints.
 */
const SERVER_CHECKPOINT_THRESHOLD = '256MB'

/**
 * The tenants a server serves: `tenants.json`, read again whenever it changes (a tenant or an OAuth
 * client made or revoked while the server runs counts at once), and one open database per tenant.
 *
 * A database is opened on the first request for its tenant and then held: DuckDB lets one process
 * write a file, so while the server holds a tenant a batch command is refused, and the
 * other way round the server answers 503 until the batch command is done.
 *
 * Work on one tenant runs in its order of arrival, one piece at a time (`use`), with one
 * exception: skill events are written (`useForSkillEvents`, on connections of their own) while
 * the background derivation runs (`useForDerivation`), so that a derivation of many seconds does
 * not hold up their acknowledgement. That is safe because the two touch different tables, a
 * derivation runs alone in its lane, and nothing else runs beside them. Batches of skill events
 * may run beside each other (the batcher checks one while the one before is written), each on a
 * connection of its own; their caller (`SkillEventBatcher`) commits them one after the other, so
 * that no change commits while a batch is being written: the newest change a derivation starting
 * meanwhile sees is older than every event of the batch, which the next derivation then picks
 * up. Reads
 * (`useForReading`) run beside each other, a derivation and a batch of events, each on a
 * connection of its own, but not beside other work.
 */
export class TenantPool {
  private registry: TenantRegistry
  private stamp: string
  private readonly databases = new Map<string, TenantDatabase>()
  /** Per tenant: connections skill events are written on, taken and given back. */
  private readonly eventDatabases = new Map<string, TenantDatabase[]>()
  /** Per tenant: the connection of webhook delivery's bookkeeping. */
  private readonly deliveryDatabases = new Map<string, TenantDatabase[]>()
  /** Per tenant: connections for reads that run beside each other, taken and given back. */
  private readonly readDatabases = new Map<string, TenantDatabase[]>()
  /** Per tenant, while a batch runs: the read connections held on the state before it. */
  private readonly pinned = new Map<string, PinnedReaders>()
  /** Per tenant: a number that changes whenever work that may write has finished on it. */
  private readonly versions = new Map<string, number>()
  /** Per tenant: the same for work that may change entities (all but skill events, derivations, reads). */
  private readonly entityVersions = new Map<string, number>()
  private readonly lanes = new Map<string, TenantLanes>()
  /** Per tenant: the database being opened, while it is. */
  private readonly opening = new Map<string, Promise<TenantDatabase>>()
  private closing = false
  /** Whether `current` looked at tenants.json in this turn of the event loop. */
  private checkedThisTurn = false

  /**
   * `baseUrlOf` gives the base URL a tenant's work builds its event sources on (by default the
   * one of the registry, fixed at `tenant create`).
   */
  constructor(
    readonly dataDir: string,
    private readonly onOpen: (tenant: string) => void = () => undefined,
    private readonly baseUrlOf: (entry: TenantEntry) => string = (entry) => entry.base_url,
  ) {
    this.stamp = registryStamp(dataDir)
    this.registry = TenantRegistry.load(dataDir)
  }

  /**
   * The registry as it is on disk now. The file is looked at once per turn of the event loop (a
   * request looks twice, and under load many requests share a turn): a change counts from the
   * next turn, before any request that arrives after it is read.
   */
  current(): TenantRegistry {
    if (this.checkedThisTurn) return this.registry
    const stamp = registryStamp(this.dataDir)
    if (stamp !== this.stamp) {
      this.registry = TenantRegistry.load(this.dataDir)
      this.stamp = stamp
    }
    this.checkedThisTurn = true
    setImmediate(() => {
      this.checkedThisTurn = false
    })
    return this.registry
  }

  /**
   * The tenant named by a base URL's path, or a 404; `reveal` (the caller is the tenant's own
   * client) names the tenant's region in the 404 of a wrong one.
   */
  resolve(name: string, region: string, reveal = true): TenantEntry {
    const entry = this.current().find(name)
    if (!entry) {
      throw errors.notFound(
        'tenant',
        name,
        'the base URL is http://HOST:PORT/{tenant}/{region} of a tenant of this server',
      )
    }
    if (entry.settings.region !== region) {
      throw errors.notFound(
        'region',
        region,
        reveal
          ? `tenant ${name} is in region ${entry.settings.region}: its base URL ends in /${name}/${entry.settings.region}`
          : 'the base URL is http://HOST:PORT/{tenant}/{region} of a tenant of this server',
      )
    }
    return entry
  }

  /** The names of tenants whose database is open. */
  openTenants(): string[] {
    return [...this.databases.keys()]
  }

  /**
   * Runs `work` on the tenant with its database open, after the work queued before it on that
   * tenant. A database held by another process is a 503 that names it; the next call tries again.
   */
  use<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    return this.queue(name, 'exclusive', () => this.runOn(name, work))
  }

  /** `use` for the background derivation: skill event batches may be written beside it. */
  useForDerivation<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    return this.queue(name, 'derive', () => this.runOn(name, work))
  }

  /**
   * `use` for a batch of skill events, on a skill event connection of the tenant: batches run
   * beside each other and beside a derivation (see the class comment for who orders their commits).
   */
  useForSkillEvents<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    return this.queue(name, 'events', () => this.runOnSibling(name, this.eventDatabases, work))
  }

  /**
   * `use` for the bookkeeping of webhook delivery, on a connection of its own: it touches only the
   * delivery tables (and reads the outbox), so it runs beside reads, batches of skill events and a
   * derivation, one piece at a time, and never beside other work (which may add or remove a
   * subscription). It leaves the tenant's data version alone: the answers that show delivery state
   * are not kept (`ApiRoute.volatile`).
   */
  useForDelivery<T>(
    name: string,
    work: (tenant: OpenTenant & { outboxHorizon?: number | undefined }) => Promise<T>,
  ): Promise<T> {
    return this.queue(name, 'delivery', () =>
      this.runOnSibling(name, this.deliveryDatabases, (tenant) =>
        work({ ...tenant, outboxHorizon: this.pinned.get(name)?.outboxHorizon }),
      ),
    )
  }

  /**
   * Runs `work` on the tenant's database without keeping it open: on the open one when it is, else
   * on one opened for `work` alone and closed after it, so that a tenant looked at is not held
   * from other processes. Runs alone on the tenant, so that no request opens it meanwhile.
   */
  peek<T>(name: string, work: (database: TenantDatabase) => Promise<T>): Promise<T> {
    return this.queue(name, 'exclusive', async () => {
      if (this.closing) throw errors.unavailable('the server is shutting down; retry when it is back')
      this.current().get(name)
      const open = this.databases.get(name)
      if (open) return work(open)
      const database = await TenantDatabase.open(tenantDatabaseFile(this.dataDir, name))
      try {
        return await work(database)
      } finally {
        database.close()
      }
    })
  }

  /**
   * `use` for work that only reads (GET): reads run beside each other, beside a derivation and
   * beside a batch of skill events, each on a connection of its own, but never beside other
   * work, which may change what a read sees halfway; beside a batch (`useForBatch`) they read the
   * state before it.
   */
  useForReading<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    // Nothing that writes runs beside a read but a derivation or a batch of skill events, and the
    // version moves when they finish: indexes kept at this version are current. A batch moves it
    // only when it ends, and reads beside it see the state before it.
    return this.queue(name, 'read', () => {
      const pinned = this.pinned.get(name)
      const version = this.version(name)
      const live = () =>
        this.runOnSibling(name, this.readDatabases, (tenant) =>
          work({ ...tenant, dataVersion: this.version(name) }),
        )
      if (!pinned) return live()
      return this.runOn(name, (tenant) =>
        pinned.read((database) => work({ ...tenant, database, dataVersion: version }), live),
      )
    })
  }

  /**
   * `use` for a batch: a command's write handed to the server (the nightly run, an ingest, a
   * derivation asked for): alone among the tenant's writes, with reads beside it answered from the
   * state before it (see the class comment).
   */
  useForBatch<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    return this.queue(name, 'batch', async () => {
      const pinned = new PinnedReaders()
      // Set before anything awaits: a read that starts beside the batch waits for the pins.
      this.pinned.set(name, pinned)
      try {
        return await this.runOn(name, async (tenant) => {
          await pinned.hold(tenant.database, PINNED_READERS)
          return work(tenant)
        })
      } finally {
        // The version moves before any read sees what the batch wrote; reads still running on
        // the pins finish on the state before it, then the pins are let go.
        this.versions.set(name, (this.versions.get(name) ?? 0) + 1)
        this.entityVersions.set(name, (this.entityVersions.get(name) ?? 0) + 1)
        if (this.pinned.get(name) === pinned) this.pinned.delete(name)
        await pinned.letGo()
      }
    })
  }

  /** Runs `work` on an idle connection of `connections` (a new one when none is idle), given back after. */
  private runOnSibling<T>(
    name: string,
    connections: Map<string, TenantDatabase[]>,
    work: (tenant: OpenTenant) => Promise<T>,
  ): Promise<T> {
    return this.runOn(name, async (tenant) => {
      const idle = connections.get(name) ?? []
      connections.set(name, idle)
      const database = idle.pop() ?? (await tenant.database.sibling())
      try {
        return await work({ ...tenant, database })
      } finally {
        if (this.databases.get(name) === tenant.database) idle.push(database)
        else database.close()
      }
    })
  }

  /**
   * The tenant's data version: it changes when work that may have written (anything but a read)
   * finishes. An answer computed while the version stayed the same may be answered again.
   */
  version(name: string): string {
    // tenants.json too: a tenant's settings (vendors, languages) shape its answers.
    return `${this.stamp}/${this.versions.get(name) ?? 0}`
  }

  /**
   * The tenant's entity version: it changes when work that may change entities (employees, jobs,
   * the taxonomy…) finishes, that is any work but a read, a batch of skill events or a
   * derivation. Something learnt of the entities holds while it stays the same.
   */
  entityVersion(name: string): number {
    return this.entityVersions.get(name) ?? 0
  }

  /** Runs `task` once every piece of work queued on the tenant before it has started and none it cannot run beside is running. */
  private queue<T>(name: string, lane: Lane, task: () => Promise<T>): Promise<T> {
    let lanes = this.lanes.get(name)
    if (!lanes) {
      lanes = new TenantLanes()
      this.lanes.set(name, lanes)
    }
    const entityChange = () => this.entityVersions.set(name, (this.entityVersions.get(name) ?? 0) + 1)
    // The entity version changes as exclusive work starts and again as it ends: nothing learnt
    // before or while it runs holds after it.
    const queued = lanes.run(
      lane,
      lane === 'exclusive'
        ? () => {
            entityChange()
            return task()
          }
        : task,
    )
    if (lane !== 'read' && lane !== 'delivery') {
      const bump = () => {
        this.versions.set(name, (this.versions.get(name) ?? 0) + 1)
        if (lane === 'exclusive') entityChange()
      }
      queued.then(bump, bump)
    }
    const settled = queued.catch(() => undefined)
    void settled.then(() => {
      if (lanes.idle() && this.lanes.get(name) === lanes) this.lanes.delete(name)
    })
    return queued
  }

  private async runOn<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    if (this.closing) throw errors.unavailable('the server is shutting down; retry when it is back')
    const entry = this.current().get(name)
    const database = await this.open(name)
    return work({
      entry,
      settings: entry.settings,
      baseUrl: this.baseUrlOf(entry),
      database,
      dataDir: this.dataDir,
    })
  }

  /**
   * The tenant's database, opened on first use. Reads run beside each other, so many may ask at
   * once: they share one opening, or each would open (and migrate) the file on its own instance,
   * and every instance but the last would leak with the caches built on it.
   */
  private open(name: string): Promise<TenantDatabase> {
    const open = this.databases.get(name)
    if (open) return Promise.resolve(open)
    // Work that runs side by side (reads, batches of skill events) may ask for a tenant not open
    // yet at the same moment: it is opened once, or the file would be opened by two DuckDB
    // instances that do not see each other's commits (and break each other's keys).
    let opening = this.opening.get(name)
    if (!opening) {
      opening = this.openNow(name).finally(() => this.opening.delete(name))
      this.opening.set(name, opening)
    }
    return opening
  }

  private async openNow(name: string): Promise<TenantDatabase> {
    let database: TenantDatabase
    try {
      database = await TenantDatabase.open(tenantDatabaseFile(this.dataDir, name), {
        checkpointThreshold: SERVER_CHECKPOINT_THRESHOLD,
      })
    } catch (error) {
      // A registered tenant without its file is the server's problem, not an unknown resource.
      if (isSkillhouseError(error) && error.status === 404) {
        throw errors.unavailable(
          `the database of tenant ${name} is missing: ${error.descriptions.join('; ')}`,
        )
      }
      throw error
    }
    this.databases.set(name, database)
    this.onOpen(name)
    return database
  }

  /** Refuses new work, waits for the work queued on every tenant, then checkpoints and closes each database. */
  async close(): Promise<void> {
    this.closing = true
    const names = [...new Set([...this.databases.keys(), ...this.lanes.keys()])]
    await Promise.all(
      names.map((name) =>
        this.queue(name, 'exclusive', async () => {
          const database = this.databases.get(name)
          if (!database) return
          this.databases.delete(name)
          for (const events of this.eventDatabases.get(name) ?? []) events.close()
          this.eventDatabases.delete(name)
          for (const reader of this.readDatabases.get(name) ?? []) reader.close()
          this.readDatabases.delete(name)
          await this.pinned.get(name)?.letGo()
          for (const delivery of this.deliveryDatabases.get(name) ?? []) delivery.close()
          this.deliveryDatabases.delete(name)
          // The checkpoint folds the write-ahead log into the file: the next open starts clean.
          await database.checkpoint().catch(() => undefined)
          database.close()
        }).catch(() => undefined),
      ),
    )
  }
}

type Lane = 'exclusive' | 'batch' | 'derive' | 'events' | 'read' | 'delivery'

/** Read connections held on the state before a batch while it runs (see `useForBatch`). */
const PINNED_READERS = 4

/**
 * Whether work of lane `next` may start while work of lane `running` runs. Reads beside all but
 * exclusive work; a derivation beside batches of skill events, and those beside each other;
 * delivery's bookkeeping beside all but exclusive work and itself; a batch (of a command) only
 * beside delivery when it starts, and then reads too (on the state before it); all else one at a
 * time.
 */
const mayStartBeside = (next: Lane, running: Lane): boolean => {
  if (next === 'exclusive' || running === 'exclusive') return false
  if (next === 'batch') return running === 'delivery'
  if (running === 'batch') return next === 'read' || next === 'delivery'
  if (next === 'read' || running === 'read') return true
  if (next === 'delivery' || running === 'delivery') return next !== running
  return next === 'events' || (next === 'derive' && running === 'events')
}

/**
 * Connections held on one state of the data (`TenantDatabase.pin`), lent to reads one at a
 * time; a read waits for one when all are lent.
 */
class PinnedReaders {
  private readonly idle: TenantDatabase[] = []
  private readonly all: TenantDatabase[] = []
  private readonly waiting: ((reader: TenantDatabase) => void)[] = []
  private lent = 0
  private held: Promise<void> | undefined
  private heldNow: () => void = () => undefined

  constructor() {
    this.held = new Promise<void>((resolve) => {
      this.heldNow = resolve
    })
  }

  /** The last outbox event of the state the pins hold (see WebhookTenant.outboxHorizon). */
  outboxHorizon: number | undefined

  /** Pins `count` new connections of `database` on the state of the data now. */
  async hold(database: TenantDatabase, count: number): Promise<void> {
    try {
      for (let index = 0; index < count; index++) {
        const reader = await database.sibling()
        this.all.push(reader)
        await reader.pin()
        this.idle.push(reader)
      }
      const last = await this.idle[0]?.one<{ last: number | null }>('SELECT max(seq) AS last FROM outbox')
      this.outboxHorizon = Number(last?.last ?? 0)
    } finally {
      this.heldNow()
    }
  }

  /**
   * Runs `work` on a pinned connection, once the pins are held and one is free; `otherwise` when
   * the pins are gone (the batch ended, or failed before it held them).
   */
  async read<T>(work: (database: TenantDatabase) => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
    await this.held
    if (this.gone) return otherwise()
    let reader = this.idle.pop()
    if (reader) this.lent++
    else reader = await new Promise<TenantDatabase>((resolve) => this.waiting.push(resolve))
    try {
      return await work(reader)
    } finally {
      // Handed straight to a read that waits: the count of lent connections stays.
      const next = this.waiting.shift()
      if (next) next(reader)
      else {
        this.idle.push(reader)
        this.lent--
        if (this.lent === 0) this.drained?.()
      }
    }
  }

  private gone = false
  private drained: (() => void) | undefined

  /** Waits for the reads on the pins, then lets the connections go. */
  async letGo(): Promise<void> {
    this.heldNow()
    if (this.all.length === 0 || this.idle.length === this.all.length) this.gone = true
    if (this.lent > 0) await new Promise<void>((resolve) => (this.drained = resolve))
    this.gone = true
    for (const reader of this.all.splice(0)) {
      await reader.release().catch(() => undefined)
      reader.close()
    }
    this.idle.length = 0
  }
}

interface Waiting {
  lane: Lane
  start: () => void
}

/**
 * The work queued on one tenant, started in its order of arrival: the next piece starts when it
 * may run beside everything running. A piece never overtakes one queued before it, so a request
 * that needs the tenant alone waits for the running derivation but is not starved by a stream of
 * skill events; but while a batch runs, reads go ahead (see `pump`).
 */
class TenantLanes {
  private readonly running = new Map<number, Lane>()
  private readonly waiting: Waiting[] = []
  private next = 0

  run<T>(lane: Lane, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = this.next++
      this.waiting.push({
        lane,
        start: () => {
          this.running.set(id, lane)
          task()
            .then(resolve, reject)
            .finally(() => {
              this.running.delete(id)
              this.pump()
            })
        },
      })
      this.pump()
    })
  }

  idle(): boolean {
    return this.running.size === 0 && this.waiting.length === 0
  }

  private pump(): void {
    for (;;) {
      const head = this.waiting[0]
      if (!head || !this.mayStart(head.lane)) break
      this.waiting.shift()
      head.start()
    }
    // Reads beside a batch see the state before it and hold nothing up: they go ahead of the
    // writes that wait for the batch to end.
    if (![...this.running.values()].includes('batch')) return
    for (let index = 0; index < this.waiting.length; ) {
      const waiting = this.waiting[index] as Waiting
      if (waiting.lane === 'read' && this.mayStart('read')) {
        this.waiting.splice(index, 1)
        waiting.start()
      } else index++
    }
  }

  private mayStart(lane: Lane): boolean {
    for (const running of this.running.values()) if (!mayStartBeside(lane, running)) return false
    return true
  }
}

function registryStamp(dataDir: string): string {
  try {
    const stat = statSync(tenantsFile(dataDir))
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`
  } catch {
    return 'missing'
  }
}
