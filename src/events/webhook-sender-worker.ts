import { parentPort, workerData } from 'node:worker_threads'
import { noAnswer, type PostOutcome, type PreparedEvent, postInOrder } from './webhook-post.js'

/**
 * The thread that sends webhook requests for `ThreadSender`: it takes batches of runs (a lane's
 * events for one consumer each), sends every run at once, each run's events one after the other
 * (`postInOrder`), and answers the runs that ended in the same turn of its event loop in one
 * message.
 */

/** A run to send: prepared CloudEvents for one URL, and the timeout of each request. */
export interface SenderRequest {
  id: number
  url: string
  events: PreparedEvent[]
  timeoutMs: number
}

/** The outcomes of one run, in the order of its events (those sent). */
export interface SenderReply {
  id: number
  outcomes: PostOutcome[]
}

const port = parentPort
if (port) {
  const stopFlag = (workerData as { stopFlag: Int32Array }).stopFlag
  const stopped = () => Atomics.load(stopFlag, 0) === 1
  let replies: SenderReply[] = []
  const answer = (reply: SenderReply) => {
    if (replies.length === 0) {
      setImmediate(() => {
        const batch = replies
        replies = []
        port.postMessage(batch)
      })
    }
    replies.push(reply)
  }
  port.on('message', (requests: SenderRequest[]) => {
    for (const request of requests) {
      postInOrder(request.url, request.events, { timeoutMs: request.timeoutMs, stopped })
        .catch((error: unknown) => [
          noAnswer(`not sent: ${error instanceof Error ? error.message : String(error)}`),
        ])
        .then((outcomes) => answer({ id: request.id, outcomes }))
    }
  })
}
