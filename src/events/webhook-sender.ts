import { Worker } from 'node:worker_threads'
import { workerScriptBeside } from '../util/module-source.js'
import { noAnswer, type PostOutcome, type PreparedEvent, postInOrder } from './webhook-post.js'
import type { SenderReply, SenderRequest } from './webhook-sender-worker.js'

/**
 * Who sends the webhook requests of the delivery lanes. A lane hands its sender a run of events
 * for one consumer, which POSTs them one after the other and answers with their outcomes
 * (`postInOrder`): the lane's bookkeeping (reading due events, recording outcomes) stays on the
 * thread that holds the tenant's database, and the requests can run on a thread of their own, so
 * that neither waits for the other at every event, and a burst of API requests or a derivation on
 * the server's thread does not hold the requests up.
 */
export interface WebhookSender {
  /** `postInOrder` of `events` to `url`. */
  send(url: string, events: readonly PreparedEvent[], options: { timeoutMs: number }): Promise<PostOutcome[]>
  /** From now on each run ends after the request it has in flight (a server that stops). */
  stopSending(): void
  /** Ends the thread (a run in flight gets a failed outcome for its first event). */
  close(): Promise<void>
}

/** A sender on this thread; a run ends after its request in flight once `stopped` says so, too. */
export function sameThreadSender(stopped: () => boolean = () => false): WebhookSender {
  let stopping = false
  return {
    send: (url, events, options) =>
      postInOrder(url, events, { ...options, stopped: () => stopping || stopped() }),
    stopSending: () => {
      stopping = true
    },
    close: async () => undefined,
  }
}

/**
 * A sender on a thread of its own, running `script` (default: the compiled
 * webhook-sender-worker.js beside this module), else on this one when there is no script (the
 * sources run under vitest: a worker thread loads JavaScript only).
 */
export function webhookSender(
  script: URL | undefined = workerScriptBeside('webhook-sender-worker', import.meta.url),
): WebhookSender {
  return script ? new ThreadSender(script) : sameThreadSender()
}

/**
 * Runs of requests posted to one worker thread, a message per turn of the event loop whatever the
 * number of lanes, and answered the same way. A thread that stops answers each run in flight with
 * a failed outcome for its first event (the delivery retries it, and the events behind it, as
 * after any failed attempt); the next run starts a new thread.
 */
export class ThreadSender implements WebhookSender {
  private worker: Worker | undefined
  private nextId = 0
  private readonly waiting = new Map<number, (outcomes: PostOutcome[]) => void>()
  private outgoing: SenderRequest[] = []
  /** Set to 1 by `stopSending`; the thread reads it before each request. */
  private readonly stopFlag = new Int32Array(new SharedArrayBuffer(4))

  constructor(private readonly script: URL) {}

  send(
    url: string,
    events: readonly PreparedEvent[],
    options: { timeoutMs: number },
  ): Promise<PostOutcome[]> {
    const id = this.nextId++
    const answered = new Promise<PostOutcome[]>((resolve) => this.waiting.set(id, resolve))
    if (this.outgoing.length === 0) queueMicrotask(() => this.flush())
    this.outgoing.push({ id, url, events: [...events], timeoutMs: options.timeoutMs })
    return answered
  }

  stopSending(): void {
    Atomics.store(this.stopFlag, 0, 1)
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
    const worker = new Worker(this.script, { workerData: { stopFlag: this.stopFlag } })
    worker.unref()
    worker.on('message', (replies: SenderReply[]) => {
      for (const { id, outcomes } of replies) {
        const resolve = this.waiting.get(id)
        this.waiting.delete(id)
        resolve?.(outcomes)
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

  /** Answers every run in flight with a failed attempt of its first event. */
  private fail(reason: string): void {
    const waiting = [...this.waiting.values()]
    this.waiting.clear()
    for (const resolve of waiting) resolve([noAnswer(reason)])
  }
}
