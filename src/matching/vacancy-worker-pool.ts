import { Worker } from 'node:worker_threads'
import type { PostalPlace } from '../geo/postal-codes.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import type { Row, SqlParams, TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'
import type { MatchingTenant } from './match-jobs.js'
import type { EmployeeForMatching } from './vacancy-employee.js'
import type { VacancyIndex } from './vacancy-index.js'
import type { VacancyMatchingQuery, VacancyMatchingResponse } from './vacancy-match-schema.js'

/**
 * The worker threads of a batch of 4.11 answers (`matchAllEmployees`; the thread's loop is
 * vacancy-match-worker.ts): each thread holds a copy
 * of the vacancy index and answers the employees it is sent with the very code of the calling
 * thread (`answerVacancyMatching`), so the answers are the same bytes. The calling thread keeps
 * the database: it reads the employees' records, and the reads a request needs on the way (the
 * evidence of event_types, entities, a postal code outside the index's countries) are sent to it
 * and answered there (`all` and `one`, the reads of the answer path). Idle threads do not hold
 * the process open.
 */

/** What a thread answers for: the tenant's settings, the checked request and the index. */
export interface VacancyBatchSetup {
  settings: TenantSettings
  baseUrl: string
  body: unknown
  query: VacancyMatchingQuery
  /** The index without its postal-code table, which travels as its places. */
  index: Omit<VacancyIndex, 'postal'>
  postal: PostalPlace[] | undefined
}

/** 4.11 for one employee: the response, or the problems of the request for this employee. */
export type VacancyAnswer =
  | { response: VacancyMatchingResponse; problems?: undefined }
  | { response?: undefined; problems: string[] }

/** Messages to a thread: answer employees, or the rows of a read it asked for. */
export type ToThread =
  | { type: 'answer'; id: number; employees: EmployeeForMatching[] }
  | { type: 'rows'; id: number; rows?: Row[]; error?: string }

/** Messages from a thread: a read to run, or the answers of a message (or why it failed). */
export type FromThread =
  | { type: 'read'; id: number; sql: string; params: unknown[] | undefined }
  | { type: 'answered'; id: number; answers?: VacancyAnswer[]; error?: string }

/** A list parameter crosses threads as its items (a DuckDB value does not survive the copy). */
interface ListParameter {
  listItems: unknown[]
}

/** A read's parameter as it crosses to the calling thread. */
export function listItemsOf(parameter: unknown): unknown {
  if (typeof parameter === 'object' && parameter !== null && 'items' in parameter)
    return { listItems: (parameter as { items: unknown[] }).items } satisfies ListParameter
  return parameter
}

function parameterOf(sent: unknown): unknown {
  if (typeof sent === 'object' && sent !== null && 'listItems' in sent)
    return listValue((sent as ListParameter).listItems as Parameters<typeof listValue>[0])
  return sent
}

/** One thread of the pool and the messages it is answering. */
interface PoolThread {
  worker: Worker
  busy: number
}

/**
 * Worker threads that answer 4.11 for employees of one batch: started for the batch with its
 * request and index, closed at its end. `answer` sends a slice of employees to the least busy
 * thread; a thread that fails fails its slices and every later one.
 */
export class VacancyWorkerPool {
  private readonly threads: PoolThread[]
  private readonly waiting = new Map<
    number,
    { resolve: (answers: VacancyAnswer[]) => void; reject: (error: Error) => void }
  >()
  private nextId = 0
  private failure: Error | undefined

  constructor(
    script: URL,
    size: number,
    tenant: MatchingTenant,
    request: { body: unknown; query: VacancyMatchingQuery },
    index: VacancyIndex,
  ) {
    const { postal, ...rest } = index
    const setup: VacancyBatchSetup = {
      settings: tenant.settings,
      baseUrl: tenant.baseUrl,
      body: request.body,
      query: request.query,
      index: rest,
      postal: postal?.places(),
    }
    this.threads = Array.from({ length: size }, () => {
      const thread: PoolThread = { worker: new Worker(script, { workerData: setup }), busy: 0 }
      thread.worker.unref()
      thread.worker.on('message', (message: FromThread) => {
        if (message.type === 'read') void this.read(thread.worker, tenant.database, message)
        else this.answered(thread, message)
      })
      thread.worker.on('error', (error) => this.fail(error))
      thread.worker.on('exit', (code) =>
        this.fail(new Error(`vacancy matching worker stopped with exit code ${code}`)),
      )
      return thread
    })
  }

  get size(): number {
    return this.threads.length
  }

  /** The answers of `employees`, in their order, from the least busy thread. */
  answer(employees: EmployeeForMatching[]): Promise<VacancyAnswer[]> {
    if (this.failure) return Promise.reject(this.failure)
    const thread = this.threads.reduce((least, each) => (each.busy < least.busy ? each : least))
    const id = this.nextId++
    thread.busy++
    thread.worker.ref()
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject })
      thread.worker.postMessage({ type: 'answer', id, employees } satisfies ToThread)
    })
  }

  /** Stops the threads. */
  async close(): Promise<void> {
    const threads = this.threads.splice(0)
    await Promise.all(threads.map((thread) => thread.worker.terminate()))
  }

  private async read(
    worker: Worker,
    database: TenantDatabase,
    message: Extract<FromThread, { type: 'read' }>,
  ): Promise<void> {
    let reply: ToThread
    try {
      const params = message.params?.map(parameterOf) as SqlParams | undefined
      reply = { type: 'rows', id: message.id, rows: await database.all(message.sql, params) }
    } catch (error) {
      reply = { type: 'rows', id: message.id, error: error instanceof Error ? error.message : String(error) }
    }
    worker.postMessage(reply)
  }

  private answered(thread: PoolThread, message: Extract<FromThread, { type: 'answered' }>): void {
    thread.busy--
    if (thread.busy === 0) thread.worker.unref()
    const waiting = this.waiting.get(message.id)
    this.waiting.delete(message.id)
    if (message.error !== undefined) waiting?.reject(new Error(message.error))
    else waiting?.resolve(message.answers ?? [])
  }

  private fail(error: Error): void {
    if (this.threads.length === 0) return
    this.failure ??= error
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const each of waiting) each.reject(error)
  }
}
