import {
  type SkillEventRequest,
  type StoredSkillEvent,
  type StrictCheck,
  storeSkillEvents,
} from '../entities/skill-event-store.js'
import { SkillhouseError } from '../errors/skillhouse-error.js'
import type { OpenTenant } from '../tenants/tenant-service.js'

/** Runs work on the open tenant behind the tenant's lock (the route context's `tenant`). */
export type TenantRunner = <T>(work: (tenant: OpenTenant) => Promise<T>) => Promise<T>

interface Pending {
  request: SkillEventRequest
  resolve: (stored: StoredSkillEvent) => void
  reject: (error: unknown) => void
}

interface TenantQueue {
  waiting: Pending[]
  running: boolean
}

export interface SkillEventBatcherOptions {
  /** Most events written in one transaction; the rest wait for the next one. */
  maxBatch?: number
}

/**
 * Group commit for `POST …/skill_events`: a request is acknowledged only once its event is
 * committed, but the requests that arrive while a tenant's batch is being written are written
 * together as the next batch, in one transaction. Under load the write-ahead log is flushed once
 * per batch instead of once per event; a lone request is written at once (no waiting window).
 */
export class SkillEventBatcher {
  private readonly queues = new Map<string, TenantQueue>()
  private readonly maxBatch: number

  constructor(options: SkillEventBatcherOptions = {}) {
    this.maxBatch = options.maxBatch ?? 500
  }

  /**
   * Stores one event with the next batch of its tenant; resolves once it is committed (or found
   * already stored with the same content), rejects with the error its request answers.
   */
  submit(
    tenantName: string,
    run: TenantRunner,
    request: SkillEventRequest,
    strict: (tenant: OpenTenant) => Promise<StrictCheck>,
  ): Promise<StoredSkillEvent> {
    let queue = this.queues.get(tenantName)
    if (!queue) {
      queue = { waiting: [], running: false }
      this.queues.set(tenantName, queue)
    }
    const stored = new Promise<StoredSkillEvent>((resolve, reject) => {
      queue.waiting.push({ request, resolve, reject })
    })
    if (!queue.running) void this.drain(tenantName, queue, run, strict)
    return stored
  }

  private async drain(
    tenantName: string,
    queue: TenantQueue,
    run: TenantRunner,
    strict: (tenant: OpenTenant) => Promise<StrictCheck>,
  ): Promise<void> {
    queue.running = true
    try {
      while (queue.waiting.length > 0) {
        const batch = queue.waiting.splice(0, this.maxBatch)
        try {
          const outcomes = await run((tenant) =>
            storeSkillEvents(
              tenant,
              batch.map((pending) => pending.request),
              () => strict(tenant),
            ),
          )
          batch.forEach((pending, index) => {
            const outcome = outcomes[index]
            if (outcome instanceof SkillhouseError || outcome === undefined) pending.reject(outcome)
            else pending.resolve(outcome)
          })
        } catch (error) {
          // The batch's transaction did not commit: none of its events is acknowledged.
          for (const pending of batch) pending.reject(error)
        }
      }
    } finally {
      queue.running = false
      if (queue.waiting.length === 0) this.queues.delete(tenantName)
    }
  }
}
