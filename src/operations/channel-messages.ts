import type { ErrorStatus } from '../errors/skillhouse-error.js'

/**
 * The local channel's messages: one JSON object per line. A command sends one request, then at
 * most an interrupt; the server sends progress while the work runs, then one result or one error,
 * and closes.
 */
export interface ChannelRequest {
  secret: string
  operation: string
  /** The tenant named by --tenant (or the default tenant), null for the only one. */
  tenant: string | null
  params: unknown
}

/** Ctrl-C (or SIGTERM) of the command while the server works for it. */
export interface ChannelInterrupt {
  interrupt: 'SIGINT' | 'SIGTERM'
}

export type ProgressMessage = { progress: ['stage' | 'done', string] | ['rows', number] }

export interface ChannelError {
  status: ErrorStatus
  descriptions: string[]
  /** Set when the work stopped because the command was interrupted. */
  interrupted?: 'SIGINT' | 'SIGTERM'
}

/** A result of `undefined` (work that streamed its items) is `{ none: true }`: JSON has no undefined. */
export type ServerMessage =
  | ProgressMessage
  | { item: unknown }
  | { result: unknown }
  | { none: true }
  | { error: ChannelError }

/** Longest request line a server reads: parameters are flags, a request file's body at most. */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024
