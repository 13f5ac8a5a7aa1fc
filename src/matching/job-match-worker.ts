import { parentPort, Worker, workerData } from 'node:worker_threads'
import type { JobMatchData } from './job-match-data.js'
import type { PairFilterSpec } from './match-filters.js'
import {
  JobCandidateScorer,
  type JobMatchesTable,
  type JobScoringParams,
  jobMatchesTable,
  prepareJobScoring,
} from './score-job-candidates.js'

/**
 * The worker threads of job matching: a pool that the main thread keeps for the life of the
 * process (started once, idle threads do not hold the process open), and the loop each thread
 * runs. An index is sent to the threads once (its arrays are SharedArrayBuffers: nothing is
 * copied) and stays loaded for every request on it; a request only carries its filters and
 * parameters. The threads take slices of the request's jobs from a shared counter until none is
 * left, so both cores stay busy to the end whatever the jobs cost, and write the matches straight
 * into a shared table: no answer is copied back.
 */

/** Marks the threads of this pool in workerData (so that other worker threads never run the loop). */
const ROLE = 'skillhouse-job-matching'

/** To a thread: load an index (replacing the previous one). */
interface LoadMessage {
  type: 'load'
  version: number
  data: JobMatchData
}

/** To a thread: score the jobs of `jobs`, claiming slots through `next[0]` `slice` at a time. */
interface ScoreMessage {
  type: 'score'
  version: number
  mask: Uint8Array
  params: JobScoringParams
  pair: PairFilterSpec | null
  jobs: Int32Array
  next: Int32Array
  slice: number
  table: JobMatchesTable
}

/** From a thread: a message done, or why it failed. */
interface DoneMessage {
  type: 'done'
  error?: string
}

if (parentPort && (workerData as { role?: string } | null)?.role === ROLE) {
  const port = parentPort
  let loaded: { version: number; data: JobMatchData } | undefined
  const handle = async (message: LoadMessage | ScoreMessage): Promise<void> => {
    if (message.type === 'load') {
      loaded = { version: message.version, data: message.data }
      // The thread's copies of the index (postings in WebAssembly memory, interleaved profile
      // rows): made now, not in the first request.
      prepareJobScoring(message.data)
      return
    }
    if (!loaded || loaded.version !== message.version)
      throw new Error('job matching worker: index not loaded')
    const pair = message.pair ? (await import('./match-filters.js')).pairFilterOf(message.pair) : undefined
    const scorer = new JobCandidateScorer(loaded.data, message.mask, message.params, pair)
    const { jobs, next, slice, table } = message
    for (;;) {
      const from = Atomics.add(next, 0, slice)
      if (from >= jobs.length) break
      const to = Math.min(jobs.length, from + slice)
      for (let slot = from; slot < to; slot++) scorer.scoreInto(jobs[slot] as number, table, slot)
    }
  }
  port.on('message', (message: LoadMessage | ScoreMessage) => {
    handle(message).then(
      () => port.postMessage({ type: 'done' } satisfies DoneMessage),
      (error: unknown) =>
        port.postMessage({
          type: 'done',
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        } satisfies DoneMessage),
    )
  })
}

/** One thread of the pool and the message it is answering. */
interface PoolThread {
  worker: Worker
  waiting: { resolve: () => void; reject: (error: Error) => void } | undefined
}

/**
 * Worker threads that score jobs of one loaded index at a time. Requests run one after another;
 * a request on another index reloads the threads first. A thread that dies fails its request
 * and the pool (the next request starts a new one).
 */
export class JobWorkerPool {
  private readonly threads: PoolThread[]
  private loaded: JobMatchData | undefined
  private version = 0
  private queue: Promise<unknown> = Promise.resolve()
  private failure: Error | undefined

  constructor(
    script: URL,
    readonly size: number,
  ) {
    this.threads = Array.from({ length: size }, () => {
      const thread: PoolThread = {
        worker: new Worker(script, { workerData: { role: ROLE } }),
        waiting: undefined,
      }
      thread.worker.unref()
      thread.worker.on('message', (message: DoneMessage) => {
        const waiting = thread.waiting
        thread.waiting = undefined
        if (!waiting) return
        if (message.error) waiting.reject(new Error(message.error))
        else waiting.resolve()
      })
      const fail = (error: Error) => {
        this.failure ??= error
        thread.waiting?.reject(error)
        thread.waiting = undefined
      }
      thread.worker.on('error', fail)
      thread.worker.on('exit', (code) =>
        fail(new Error(`job matching worker stopped with exit code ${code}`)),
      )
      return thread
    })
  }

  /** False once a thread failed: the pool is then of no further use. */
  get healthy(): boolean {
    return this.failure === undefined
  }

  /**
   * Scores `jobs` (job numbers of `data`) into a table with a slot per job, in this pool's
   * threads; `data` is loaded into the threads first unless it is already.
   */
  score(
    data: JobMatchData,
    jobs: readonly number[],
    mask: Uint8Array,
    params: JobScoringParams,
    pair: PairFilterSpec | null,
  ): Promise<JobMatchesTable> {
    const run = this.queue.then(async () => {
      if (this.loaded !== data) {
        this.loaded = undefined
        const version = ++this.version
        await this.broadcast(() => ({ type: 'load', version, data }) satisfies LoadMessage)
        this.loaded = data
      }
      const table = jobMatchesTable(jobs.length, params.k, true)
      const list = new Int32Array(new SharedArrayBuffer(Math.max(1, jobs.length) * 4), 0, jobs.length)
      list.set(jobs)
      const message: ScoreMessage = {
        type: 'score',
        version: this.version,
        mask,
        params,
        pair,
        jobs: list,
        next: new Int32Array(new SharedArrayBuffer(4)),
        // Small enough that both threads finish together, large enough that the counter is cold.
        slice: Math.max(1, Math.min(32, Math.ceil(jobs.length / (this.size * 64)))),
        table,
      }
      await this.broadcast(() => message)
      return table
    })
    this.queue = run.catch(() => undefined)
    return run
  }

  /** Stops the threads. */
  async close(): Promise<void> {
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()))
  }

  /**
   * Sends a message to every thread (holding the process open meanwhile) and waits until each
   * has answered, so that no thread is still busy with it when the next message goes out; fails
   * with the first thread's error.
   */
  private async broadcast(message: () => LoadMessage | ScoreMessage): Promise<void> {
    if (this.failure) throw this.failure
    for (const thread of this.threads) thread.worker.ref()
    try {
      const answers = await Promise.allSettled(
        this.threads.map(
          (thread) =>
            new Promise<void>((resolve, reject) => {
              thread.waiting = { resolve, reject }
              thread.worker.postMessage(message())
            }),
        ),
      )
      for (const answer of answers) if (answer.status === 'rejected') throw answer.reason
    } finally {
      for (const thread of this.threads) thread.worker.unref()
    }
  }
}
