import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { StemPairs } from '../extraction/text-tokens.js'
import type {
  DeriveWorkerBatch,
  DeriveWorkerResult,
  DeriveWorkerSetup,
  DeriveWorkerStats,
} from './derive-worker.js'
import type { ProfileRows } from './profile-rows.js'

/** Batches a worker holds at once. */
const IN_FLIGHT = 3

/** Employees in order, the number of events of each, and their events as JSON records. */
export interface EventBatch {
  employees: string[]
  counts: number[]
  records: string[]
}

/** Work of one derivation worker thread, as `DeriveResult.workers` reports it. */
export type WorkerReport = DeriveWorkerStats

/**
 * Derivation workers, one per core, each with up to IN_FLIGHT batches: one to work on and more
 * queued, so that a worker has work while this thread appends or flushes.
 */
export class WorkerPool {
  private nextId = 0
  private readonly pending = new Map<
    number,
    (result: DeriveWorkerResult & { contentChars: number }) => void
  >()
  private readonly inFlight: number[]
  private readonly stats: (DeriveWorkerStats | undefined)[]
  private failure: Error | undefined
  private stopping = false

  private constructor(private readonly workers: Worker[]) {
    this.inFlight = workers.map(() => 0)
    this.stats = workers.map(() => undefined)
    workers.forEach((worker, index) => {
      worker.on('message', (result: DeriveWorkerResult) => {
        const onResult = this.pending.get(result.id)
        this.pending.delete(result.id)
        this.inFlight[index] = (this.inFlight[index] as number) - 1
        const contentChars = result.stats.content_chars - (this.stats[index]?.content_chars ?? 0)
        this.stats[index] = result.stats
        onResult?.({ ...result, contentChars })
        this.wake()
      })
      worker.on('error', (error) => {
        this.failure = error
        this.wake()
      })
      // A worker that ends of itself would leave its batches unanswered: that is a failure too.
      worker.on('exit', (code) => {
        if (this.stopping) return
        this.failure ??= new Error(`a derivation worker stopped (exit code ${code}) with batches unanswered`)
        this.wake()
      })
    })
  }

  /** Starts the workers on `script` (derive-worker.js, compiled). */
  static async start(script: URL, setup: DeriveWorkerSetup): Promise<WorkerPool> {
    const count = Math.max(2, Math.min(availableParallelism(), 4))
    return new WorkerPool(Array.from({ length: count }, () => new Worker(script, { workerData: setup })))
  }

  private waiters: (() => void)[] = []
  private wake() {
    const waiters = this.waiters
    this.waiters = []
    for (const waiter of waiters) waiter()
  }

  /** Sends a batch to the least busy worker, waiting while every worker has IN_FLIGHT batches. */
  async submit(
    batch: EventBatch,
    onResult: (result: { rows: ProfileRows; stems: StemPairs; contentChars: number }) => void,
  ): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure
      const index = this.inFlight.indexOf(Math.min(...this.inFlight))
      if ((this.inFlight[index] as number) < IN_FLIGHT) {
        const id = this.nextId++
        this.inFlight[index] = (this.inFlight[index] as number) + 1
        this.pending.set(id, onResult)
        ;(this.workers[index] as Worker).postMessage({ id, ...batch } satisfies DeriveWorkerBatch)
        return
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** Waits for every batch sent. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) {
      if (this.failure) throw this.failure
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  /** What each worker did (the totals of its last answer). */
  reports(): WorkerReport[] {
    return this.stats.filter((stats): stats is DeriveWorkerStats => stats !== undefined)
  }

  async stop(): Promise<void> {
    this.stopping = true
    await Promise.all(this.workers.map((worker) => worker.terminate()))
  }
}
