import { once } from 'node:events'
import { connect } from 'node:net'
import { createInterface } from 'node:readline'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import type { ServerRecord } from '../tenants/server-record.js'
import type { ChannelRequest, ServerMessage } from './channel-messages.js'
import type { OperationContext } from './tenant-operation.js'

/**
 * Hands `operation` to the server of `record` over its local channel and gives what it answers:
 * its progress to `context.progress`, its streamed items to `context.item` (read no faster than
 * they are taken), then its result, or its error (the SkillhouseError the work would have thrown
 * here). Aborting `signal` (with 'SIGINT' or 'SIGTERM' as its reason) asks the server to
 * interrupt the work; the server answers with the error that says so.
 */
export async function handOver<R>(
  record: ServerRecord,
  operation: string,
  tenant: string | undefined,
  params: unknown,
  context: OperationContext,
  signal?: AbortSignal,
): Promise<R> {
  const socket = connect(record.socket)
  try {
    await once(socket, 'connect')
  } catch (error) {
    socket.destroy()
    throw unreachable(record, error as NodeJS.ErrnoException)
  }
  const request: ChannelRequest = { secret: record.secret, operation, tenant: tenant ?? null, params }
  socket.write(`${JSON.stringify(request)}\n`)
  const interrupt = () => {
    const reason = signal?.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT'
    socket.write(`${JSON.stringify({ interrupt: reason })}\n`)
  }
  signal?.addEventListener('abort', interrupt, { once: true })
  try {
    for await (const line of createInterface({ input: socket, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line === '') continue
      const message = JSON.parse(line) as ServerMessage
      if ('progress' in message) showProgress(message.progress, context)
      else if ('item' in message) await context.item(message.item)
      else if ('result' in message) return message.result as R
      else if ('none' in message) return undefined as R
      else throw errors.relayed(message.error.status, message.error.descriptions)
    }
  } catch (error) {
    if (isSkillhouseError(error)) throw error
  } finally {
    signal?.removeEventListener('abort', interrupt)
    socket.destroy()
  }
  throw errors.unavailable(
    `the server (PID ${record.pid}, ${record.url}) stopped before it finished ${operation}; what it committed stays, and running the command again finishes the work`,
  )
}

function showProgress(progress: ['stage' | 'done', string] | ['rows', number], context: OperationContext) {
  const [kind, value] = progress
  if (kind === 'rows') context.progress.rows(value as number)
  else if (kind === 'stage') context.progress.stage(value as string)
  else context.progress.done(value as string)
}

function unreachable(record: ServerRecord, error: NodeJS.ErrnoException) {
  return errors.unavailable(
    `the server (PID ${record.pid}, ${record.url}) serves this data directory but does not answer on its local channel ${record.socket} (${error.code ?? error.message}); wait until it has started or stopped, then retry`,
  )
}
