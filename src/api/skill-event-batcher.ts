import {
  checkSkillEvents,
  type EmployeeLookup,
  type SkillEventRequest,
  type StoredSkillEvent,
  type StrictCheck,
  writeSkillEvents,
} from '../entities/skill-event-store.js'
import { SkillhouseError } from '../errors/skillhouse-error.js'
import type { OpenTenant } from '../tenants/tenant-service.js'

/** Runs work on the open tenant behind the tenant's lock (the route context's `tenant`). */
export type TenantRunner = <T>(work: (tenant: OpenTenant) => Promise<T>) => Promise<T>

interface Pending {
  request: SkillEventRequest
  /** The body's external_id, when it has one. */
  externalId: string | undefined
  resolve: (stored: StoredSkillEvent) => void
  reject: (error: unknown) => void
}

interface TenantQueue {
  waiting: Pending[]
  /** Batches started and not finished. */
  running: number
  /** The external_ids of the events of those batches. */
  inFlight: Set<string>
  /** Settles once the batch started last is written (committed, or failed). */
  written: Promise<void>
  run: TenantRunner
  strict: (tenant: OpenTenant) => Promise<StrictCheck>
  employees: ((tenant: OpenTenant) => EmployeeLookup) | undefined
}

export interface SkillEventBatcherOptions {
  /** Most events written in one transaction; the rest wait for the next one. */
  maxBatch?: number
  /**
   * Most batches of a tenant under way at once: one being written, the others being checked
   * (default 1). On 2 cores a second batch checked while one is written cost more CPU than it
   * saved (DuckDB's threads and the HTTP work share them): batches of 16 instead of 25.
   */
  depth?: number
}

/**
 * Group commit for `POST …/skill_events`: a request is acknowledged only once its event is
 * committed, but the requests that arrive while a tenant's batch is under way are written
 * together as a later batch, in one transaction. Under load the write-ahead log is flushed once
 * per batch instead of once per event; a lone request is written at once (no waiting window).
 *
 * Batches may be pipelined (`depth`): while one batch is written, the next is checked (its
 * queries on a connection of its own), and it is written once the one before has committed. Commits thus
 * come in the order of their events' change_seq (a derivation never sees a later change before
 * an earlier one), and each batch is written as if the one before were stored when it was
 * checked, with one exception the pipeline rules out: an external_id of a batch under way is
 * kept for a batch after it, which then finds that event stored (a 409) or not (the
 * first one failed).
 */
export class SkillEventBatcher {
  private readonly queues = new Map<string, TenantQueue>()
  private readonly maxBatch: number
  private readonly depth: number

  constructor(options: SkillEventBatcherOptions = {}) {
    this.maxBatch = options.maxBatch ?? 500
    this.depth = options.depth ?? 1
  }

  /**
   * Stores one event with the next batch of its tenant; resolves once it is committed, rejects
   * with the error its request answers (a 409 for an external_id stored before).
   */
  submit(
    tenantName: string,
    run: TenantRunner,
    request: SkillEventRequest,
    strict: (tenant: OpenTenant) => Promise<StrictCheck>,
    employees?: (tenant: OpenTenant) => EmployeeLookup,
  ): Promise<StoredSkillEvent> {
    let queue = this.queues.get(tenantName)
    if (!queue) {
      queue = {
        waiting: [],
        running: 0,
        inFlight: new Set(),
        written: Promise.resolve(),
        run,
        strict,
        employees,
      }
      this.queues.set(tenantName, queue)
    }
    const body = request.body as { external_id?: unknown } | null
    const externalId =
      body !== null && typeof body === 'object' && typeof body.external_id === 'string'
        ? body.external_id
        : undefined
    const stored = new Promise<StoredSkillEvent>((resolve, reject) => {
      queue.waiting.push({ request, externalId, resolve, reject })
    })
    this.pump(tenantName, queue)
    return stored
  }

  /** Starts batches while fewer than `depth` are under way and some request may join one. */
  private pump(tenantName: string, queue: TenantQueue): void {
    while (queue.running < this.depth && queue.waiting.length > 0) {
      const batch = this.take(queue)
      if (batch.length === 0) return
      void this.write(tenantName, queue, batch)
    }
  }

  /**
   * The next batch: the waiting requests in their order, but those whose external_id is in a
   * batch under way, which wait for it to finish.
   */
  private take(queue: TenantQueue): Pending[] {
    const batch: Pending[] = []
    const kept: Pending[] = []
    for (const pending of queue.waiting) {
      const busy = pending.externalId !== undefined && queue.inFlight.has(pending.externalId)
      if (busy || batch.length >= this.maxBatch) kept.push(pending)
      else batch.push(pending)
    }
    queue.waiting = kept
    for (const pending of batch) if (pending.externalId !== undefined) queue.inFlight.add(pending.externalId)
    return batch
  }

  private async write(tenantName: string, queue: TenantQueue, batch: Pending[]): Promise<void> {
    queue.running++
    const before = queue.written
    let written: () => void = () => undefined
    queue.written = new Promise<void>((resolve) => {
      written = resolve
    })
    try {
      const outcomes = await queue.run(async (tenant) => {
        const checked = await checkSkillEvents(
          tenant,
          batch.map((pending) => pending.request),
          () => queue.strict(tenant),
          queue.employees?.(tenant),
        )
        await before
        try {
          return await writeSkillEvents(tenant, checked)
        } finally {
          written()
        }
      })
      batch.forEach((pending, index) => {
        const outcome = outcomes[index]
        if (outcome instanceof SkillhouseError || outcome === undefined) pending.reject(outcome)
        else pending.resolve(outcome)
      })
    } catch (error) {
      // The batch's transaction did not commit: none of its events is acknowledged.
      for (const pending of batch) pending.reject(error)
    } finally {
      written()
      queue.running--
      for (const pending of batch)
        if (pending.externalId !== undefined) queue.inFlight.delete(pending.externalId)
      if (queue.running === 0 && queue.waiting.length === 0) this.queues.delete(tenantName)
      else this.pump(tenantName, queue)
    }
  }
}
