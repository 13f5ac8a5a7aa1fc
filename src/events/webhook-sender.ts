import { Worker } from 'node:worker_threads'
import { type PostOutcome, type PreparedEvent, postPrepared } from './webhook-post.js'
import type { SenderReply, SenderRequest } from './webhook-sender-worker.js'

/**
 * Who sends the webhook requests of the delivery lanes. The lanes keep their bookkeeping on the
 * thread that holds the tenant's database; the requests themselves (undici's work for each,
 * and the wait for its answer) can run on a thread of their own, so that many consumers, or a
 * burst of API requests and derivations, do not make each other wait on one event loop.
 */
export interface WebhookSender {
  post(url: string, event: PreparedEvent, options: { timeoutMs: number }): Promise<PostOutcome>
  /** Ends the thread (the requests it has in flight get a failed outcome). */
  close(): Promise<void>
}

/** Sends on this thread. */
export const sameThreadSender: WebhookSender = {
  post: postPrepared,
  close: async () => undefined,
}

/** The sender thread's module (built: the thread runs only from compiled JavaScript). */
const WORKER = new URL('./webhook-sender-worker.js', import.meta.url)

/**
 * A sender on a thread of its own when the code runs compiled, else on this one (vitest runs the
 * sources, which a worker thread cannot load).
 */
export function webhookSender(): WebhookSender {
  return import.meta.url.endsWith('.js') ? new ThreadSender(WORKER) : sameThreadSender
}

/**
 * Requests posted to one worker thread, a message per turn of the event loop whatever the number
 * of lanes (each lane has one request in flight), answered the same way. A thread that stops
 * answers its requests in flight with a failed outcome (the delivery retries them as any failed
 * attempt); the next request starts a new thread.
 */
export class ThreadSender implements WebhookSender {
  private worker: Worker | undefined
  private nextId = 0
  private readonly waiting = new Map<number, (outcome: PostOutcome) => void>()
  private outgoing: SenderRequest[] = []

  constructor(private readonly script: URL) {}

  post(url: string, event: PreparedEvent, options: { timeoutMs: number }): Promise<PostOutcome> {
    const id = this.nextId++
    const answered = new Promise<PostOutcome>((resolve) => this.waiting.set(id, resolve))
    if (this.outgoing.length === 0) queueMicrotask(() => this.flush())
    this.outgoing.push({ id, url, headers: event.headers, body: event.body, timeoutMs: options.timeoutMs })
    return answered
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    if (worker) await worker.terminate()
    this.fail('the delivery thread was stopped')
  }

  private flush(): void {
    const requests = this.outgoing
    this.outgoing = []
    if (requests.length > 0) this.thread().postMessage(requests)
  }

  private thread(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(this.script)
    worker.unref()
    worker.on('message', (replies: SenderReply[]) => {
      for (const { id, outcome } of replies) {
        const resolve = this.waiting.get(id)
        this.waiting.delete(id)
        resolve?.(outcome)
      }
    })
    const stopped = (reason: string) => {
      if (this.worker !== worker) return
      this.worker = undefined
      this.fail(reason)
    }
    worker.on('error', (error) => stopped(`the delivery thread failed: ${error.message}`))
    worker.on('exit', (code) => stopped(`the delivery thread stopped (exit code ${code})`))
    this.worker = worker
    return worker
  }

  /** Answers every request in flight with a failed attempt. */
  private fail(reason: string): void {
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const resolve of waiting) resolve({ ok: false, status: null, error: reason, consumerDown: true })
  }
}
