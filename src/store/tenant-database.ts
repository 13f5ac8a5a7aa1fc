import { existsSync } from 'node:fs'
import type {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBInstance,
  DuckDBPreparedStatement,
  DuckDBType,
  DuckDBValue,
} from '@duckdb/node-api'
import { errors } from '../errors/skillhouse-error.js'
import { DuckDBListValue, LIST, VARCHAR } from '../vendor/duckdb.js'
import { createDuckDBInstance } from './duckdb-instance.js'
import { LATEST_SCHEMA_VERSION, MIGRATIONS, type Migration } from './migrations.js'
import { describeRun, readRunStatus } from './run-status.js'

export type SqlParams = DuckDBValue[] | Record<string, DuckDBValue>
export type Row = Record<string, unknown>

/**
 * Memory is bounded (DuckDB spills to disk beyond it) so that a batch stays within a known
 * footprint; SKILLHOUSE_DUCKDB_MEMORY overrides the limit. (Extensions never load: see
 * duckdb-instance.ts.)
 */
const TENANT_OPTIONS = {
  memory_limit: process.env.SKILLHOUSE_DUCKDB_MEMORY ?? '512MB',
  preserve_insertion_order: 'false',
}

/**
 * One tenant's DuckDB file: the only place in skillhouse that speaks SQL. Opening applies the
 * pending migrations; a file held by another process is refused with a clear 503.
 */
export class TenantDatabase {
  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
    private readonly ownsInstance = true,
  ) {}

  /**
   * What in-memory caches of this database's data are kept against: the same for every
   * connection of one open file (its siblings included), so that reads on different connections
   * share one index instead of building one each.
   */
  get cacheScope(): object {
    return this.instance
  }

  /**
   * The same database on a connection of its own, for work that runs beside the work on this
   * one (the server writes skill events while a derivation's transaction is open): each
   * connection has its own transactions. Closing it closes only its connection.
   */
  async sibling(): Promise<TenantDatabase> {
    return new TenantDatabase(this.path, this.instance, await this.instance.connect(), false)
  }

  /** Opens (creating when `create` is set) the database at `path` and migrates it. */
  static async open(
    path: string,
    options: {
      create?: boolean
      migrations?: readonly Migration[]
      readOnly?: boolean
      /**
       * Write-ahead log size that starts an automatic checkpoint (DuckDB's default is 16MB). A
       * checkpoint writes each changed table's indexes whole: the server, which takes skill
       * events in bursts, checkpoints less often (see tenant-pool.ts).
       */
      checkpointThreshold?: string
    } = {},
  ): Promise<TenantDatabase> {
    if (!options.create && !existsSync(path)) {
      throw errors.notFound('tenant database', path, 'create the tenant with `skillhouse tenant create`')
    }
    // A write-ahead log left by a process that stopped without closing (a crash, kill -9).
    const recovering = !options.readOnly && existsSync(`${path}.wal`)
    let instance: DuckDBInstance
    try {
      instance = await createDuckDBInstance(path, {
        ...TENANT_OPTIONS,
        ...(options.readOnly ? { access_mode: 'READ_ONLY' } : {}),
        ...(options.checkpointThreshold ? { checkpoint_threshold: options.checkpointThreshold } : {}),
      })
    } catch (error) {
      throw describeOpenFailure(path, error)
    }
    const connection = await instance.connect()
    const database = new TenantDatabase(path, instance, connection)
    // DuckDB 1.5 replays a write-ahead log into a secondary index lazily, and the checkpoint it
    // makes on close, with no connection, then writes that index wrong: a lookup finds none of the
    // replayed rows (duckdb/duckdb#23788). A checkpoint asked on a connection writes it right, so
    // after a crash the log is checkpointed at once, before any other work.
    if (recovering) await database.run('CHECKPOINT')
    if (!options.readOnly) await database.migrate(options.migrations ?? MIGRATIONS)
    return database
  }

  /** Applies every migration newer than the database's version, each in its own transaction. */
  async migrate(migrations: readonly Migration[]): Promise<number[]> {
    await this.run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)',
    )
    const current = await this.schemaVersion()
    const newest = Math.max(LATEST_SCHEMA_VERSION, ...migrations.map((migration) => migration.version))
    if (current > newest) {
      throw errors.unavailable(
        `database ${this.path} has schema version ${current}, newer than this skillhouse understands (${newest}); upgrade skillhouse`,
      )
    }
    const applied: number[] = []
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue
      await this.transaction(async () => {
        await this.run(migration.sql)
        await this.run('INSERT INTO schema_migrations VALUES ($1, $2, now())', [
          migration.version,
          migration.name,
        ])
      })
      applied.push(migration.version)
    }
    return applied
  }

  async schemaVersion(): Promise<number> {
    const row = await this.one<{ version: number | null }>(
      'SELECT max(version) AS version FROM schema_migrations',
    )
    return row?.version ?? 0
  }

  async run(sql: string, params?: SqlParams): Promise<void> {
    await this.connection.run(sql, params, params ? typesOf(params) : undefined)
  }

  /** Rows as plain objects; BIGINT values become numbers when they are safe integers. */
  async all<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params, params ? typesOf(params) : undefined)
    return reader.getRowObjectsJS().map((row) => normaliseRow(row) as T)
  }

  async one<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0]
  }

  /**
   * `all` for a statement this connection runs many times (the statements of each batch of
   * skill events): it is prepared once and kept, so a run skips parsing and planning. The SQL is a
   * constant of the caller (its shape may depend on counts, never on values); values are bound.
   */
  async allPrepared<T extends Row = Row>(sql: string, params: SqlParams): Promise<T[]> {
    const cached = this.prepared.get(sql)
    const statement = cached && !this.preparedBusy.has(cached) ? cached : await this.connection.prepare(sql)
    if (!cached) {
      if (this.prepared.size >= PREPARED_MAX) {
        const [oldest, evicted] = this.prepared.entries().next().value as [string, DuckDBPreparedStatement]
        this.prepared.delete(oldest)
        if (!this.preparedBusy.has(evicted)) evicted.destroySync()
      }
      this.prepared.set(sql, statement)
    }
    this.preparedBusy.add(statement)
    try {
      statement.bind(params, typesOf(params))
      const reader = await statement.runAndReadAll()
      return reader.getRowObjectsJS().map((row) => normaliseRow(row) as T)
    } finally {
      this.preparedBusy.delete(statement)
      if (this.prepared.get(sql) !== statement) statement.destroySync()
    }
  }

  /** Statements kept by `allPrepared`, oldest first, and those running now. */
  private readonly prepared = new Map<string, DuckDBPreparedStatement>()
  private readonly preparedBusy = new Set<DuckDBPreparedStatement>()

  /** Runs `work` in one transaction: all of it commits, or none of it does. */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.run('BEGIN TRANSACTION')
    this.inTransaction = true
    try {
      const result = await work()
      await this.run('COMMIT')
      return result
    } catch (error) {
      await this.run('ROLLBACK').catch(() => undefined)
      throw error
    } finally {
      this.inTransaction = false
    }
  }

  /**
   * Runs the reads of `work` on one state of the data: in a transaction of their own (a commit
   * of another connection meanwhile is not seen halfway), or in the caller's when one is open.
   * For what is built from several queries, such as the in-memory indexes.
   */
  async snapshot<T>(work: () => Promise<T>): Promise<T> {
    return this.inTransaction ? work() : this.transaction(work)
  }

  private inTransaction = false

  /**
   * Holds this connection on the state of the data as it is now: a transaction that reads, and
   * so sees no commit of another connection until `release`. Reads on it meanwhile (`snapshot`
   * included) see that one state. The server's reads while a batch writes (tenant-pool.ts).
   */
  async pin(): Promise<void> {
    await this.run('BEGIN TRANSACTION')
    // DuckDB fixes a transaction's state at its first statement, not at BEGIN.
    await this.run('SELECT count(*) FROM schema_migrations')
    this.inTransaction = true
  }

  /** Ends what `pin` began; the connection sees the newest commits again. */
  async release(): Promise<void> {
    this.inTransaction = false
    await this.run('ROLLBACK')
  }

  /** Stops the statement running on this connection (it fails, and its transaction with it). */
  interrupt(): void {
    this.connection.interrupt()
  }

  /**
   * Streams a query's rows chunk by chunk on a connection of its own, so that the caller may
   * keep writing (appenders, statements) on the main connection meanwhile: a statement on the
   * connection of an open stream would end the stream early. It reads the last committed data.
   */
  async *streamChunks(
    sql: string,
    params?: SqlParams,
  ): AsyncGenerator<{ rowCount: number; columns: unknown[][] }> {
    const connection = await this.instance.connect()
    try {
      const result = await connection.stream(sql, params, params ? typesOf(params) : undefined)
      for (;;) {
        const chunk = await result.fetchChunk()
        if (!chunk || chunk.rowCount === 0) return
        yield { rowCount: chunk.rowCount, columns: chunk.getColumns() as unknown[][] }
      }
    } finally {
      connection.closeSync()
    }
  }

  async appender(table: string): Promise<DuckDBAppender> {
    return this.connection.createAppender(table)
  }

  /** Forces the write-ahead log into the database file. */
  async checkpoint(): Promise<void> {
    await this.run('CHECKPOINT')
  }

  close(): void {
    for (const statement of this.prepared.values()) statement.destroySync()
    this.prepared.clear()
    this.connection.closeSync()
    if (this.ownsInstance) this.instance.closeSync()
  }
}

/** Most statements one connection keeps prepared (`allPrepared`). */
const PREPARED_MAX = 64

/** An empty list has no item type of its own: lists of parameters are lists of text. */
function typesOf(params: SqlParams): DuckDBType[] | Record<string, DuckDBType | undefined> | undefined {
  const typeOf = (value: unknown) =>
    value instanceof DuckDBListValue && value.items.length === 0 ? VARCHAR_LIST : undefined
  if (Array.isArray(params)) {
    if (!params.some((value) => typeOf(value))) return undefined
    return params.map((value) => typeOf(value) ?? (undefined as unknown as DuckDBType))
  }
  const entries = Object.entries(params).filter(([, value]) => typeOf(value))
  return entries.length ? Object.fromEntries(entries.map(([key, value]) => [key, typeOf(value)])) : undefined
}

const VARCHAR_LIST = LIST(VARCHAR)

function normaliseRow(row: Record<string, unknown>): Row {
  for (const [key, value] of Object.entries(row)) {
    if (
      typeof value === 'bigint' &&
      value <= BigInt(Number.MAX_SAFE_INTEGER) &&
      value >= BigInt(Number.MIN_SAFE_INTEGER)
    ) {
      row[key] = Number(value)
    }
  }
  return row
}

function describeOpenFailure(path: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error)
  if (/lock/i.test(message)) {
    const pid = /PID (\d+)/.exec(message)?.[1]
    const run = readRunStatus(path)
    if (run && (pid === undefined || Number(pid) === run.pid)) {
      return errors.unavailable(
        `tenant database ${path} is in use by another skillhouse process (PID ${run.pid}): the ${describeRun(run)}; wait until it finishes, or stop it (Ctrl-C, or kill ${run.pid}), then retry`,
      )
    }
    return errors.unavailable(
      `tenant database ${path} is in use by another skillhouse process${pid ? ` (PID ${pid})` : ''}: a server or a batch command holds it; stop that process or wait until it finishes, then retry`,
    )
  }
  return errors.unavailable(`cannot open tenant database ${path}: ${message}`)
}
