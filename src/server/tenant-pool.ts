import { statSync } from 'node:fs'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import { TenantDatabase } from '../store/tenant-database.js'
import { tenantDatabaseFile, tenantsFile } from '../tenants/data-directory.js'
import { type TenantEntry, TenantRegistry } from '../tenants/tenant-registry.js'
import type { OpenTenant } from '../tenants/tenant-service.js'

/**
 * The tenants a server serves: `tenants.json`, read again whenever it changes (a tenant or an OAuth
 * client made or revoked while the server runs counts at once), and one open database per tenant.
 *
 * A database is opened on the first request for its tenant and then held: DuckDB lets one process
 * write a file (STACK.md), so while the server holds a tenant a batch command is refused, and the
 * other way round the server answers 503 until the batch command is done. All work on one tenant
 * runs one piece at a time (`use`): requests and the background derivation share one connection,
 * whose transactions must not interleave.
 */
export class TenantPool {
  private registry: TenantRegistry
  private stamp: string
  private readonly databases = new Map<string, TenantDatabase>()
  private readonly locks = new Map<string, Promise<unknown>>()
  private closing = false

  constructor(
    readonly dataDir: string,
    private readonly onOpen: (tenant: string) => void = () => undefined,
  ) {
    this.stamp = registryStamp(dataDir)
    this.registry = TenantRegistry.load(dataDir)
  }

  /** The registry as it is on disk now. */
  current(): TenantRegistry {
    const stamp = registryStamp(this.dataDir)
    if (stamp !== this.stamp) {
      this.registry = TenantRegistry.load(this.dataDir)
      this.stamp = stamp
    }
    return this.registry
  }

  /** The tenant named by a base URL's path, or a 404 that says what exists. */
  resolve(name: string, region: string): TenantEntry {
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
        `tenant ${name} is in region ${entry.settings.region}: its base URL ends in /${name}/${entry.settings.region}`,
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
    return this.queue(name, () => this.runOn(name, work))
  }

  /** Runs `task` after everything queued on the tenant before it. */
  private queue<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(name) ?? Promise.resolve()
    const run = previous.then(task, task)
    const settled = run.catch(() => undefined)
    this.locks.set(name, settled)
    void settled.then(() => {
      if (this.locks.get(name) === settled) this.locks.delete(name)
    })
    return run
  }

  private async runOn<T>(name: string, work: (tenant: OpenTenant) => Promise<T>): Promise<T> {
    if (this.closing) throw errors.unavailable('the server is shutting down; retry when it is back')
    const entry = this.current().get(name)
    const database = await this.open(name)
    return work({ entry, settings: entry.settings, baseUrl: entry.base_url, database, dataDir: this.dataDir })
  }

  private async open(name: string): Promise<TenantDatabase> {
    const open = this.databases.get(name)
    if (open) return open
    let database: TenantDatabase
    try {
      database = await TenantDatabase.open(tenantDatabaseFile(this.dataDir, name))
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
    const names = [...new Set([...this.databases.keys(), ...this.locks.keys()])]
    await Promise.all(
      names.map((name) =>
        this.queue(name, async () => {
          const database = this.databases.get(name)
          if (!database) return
          this.databases.delete(name)
          // The checkpoint folds the write-ahead log into the file: the next open starts clean.
          await database.checkpoint().catch(() => undefined)
          database.close()
        }).catch(() => undefined),
      ),
    )
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
