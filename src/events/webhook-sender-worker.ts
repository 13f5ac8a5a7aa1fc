import { parentPort } from 'node:worker_threads'
import { type PostOutcome, postPrepared } from './webhook-post.js'

/**
 * The thread that sends webhook requests for `ThreadSender`: it takes batches of requests, sends
 * each at once (their lanes keep one in flight each, so nothing here queues), and answers the
 * outcomes that came in the same turn of its event loop in one message.
 */

/** A request to send: a prepared CloudEvent, its URL and its timeout. */
export interface SenderRequest {
  id: number
  url: string
  headers: Record<string, string>
  body: string
  timeoutMs: number
}

/** The outcome of one request. */
export interface SenderReply {
  id: number
  outcome: PostOutcome
}

const port = parentPort
if (port) {
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
      postPrepared(request.url, request, { timeoutMs: request.timeoutMs })
        .catch((error: unknown) => ({
          ok: false,
          status: null,
          error: `not sent: ${error instanceof Error ? error.message : String(error)}`,
          consumerDown: true,
        }))
        .then((outcome) => answer({ id: request.id, outcome }))
    }
  })
}
