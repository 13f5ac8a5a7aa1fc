import type { OpenTenant } from '../tenants/tenant-service.js'

/** How work reports its progress: a stage, the rows done in it, what it ended with. */
export interface ProgressSink {
  stage(name: string): void
  rows(rows: number): void
  done(text: string): void
}

/** A sink that shows nothing. */
export const NO_PROGRESS: ProgressSink = {
  stage: () => undefined,
  rows: () => undefined,
  done: () => undefined,
}

export interface OperationContext {
  progress: ProgressSink
  /**
   * Streams one piece of a result too large to hold whole (an answer per employee, an event per
   * line), in order, before the operation returns.
   */
  item(value: unknown): void | Promise<void>
  /**
   * Given when the work was handed to another process (the server): aborted when the command that
   * asked for it is gone or interrupted (Ctrl-C), and long work stops at its next safe point. A
   * command that runs the work itself is ended by its own signals instead.
   */
  signal?: AbortSignal
}

/**
 * One thing a command does on one tenant, by name, so that whichever process holds the tenant
 * can do it: the command itself on a tenant nobody holds, the server (over its local channel,
 * docs/architecture.md) on a tenant it serves. Parameters and results are plain JSON, and the
 * same function runs either way, so the command prints the same bytes.
 */
export interface TenantOperation<P, R> {
  readonly name: string
  /**
   * Whether it writes to the tenant. A server runs a write alone among the tenant's writes and
   * answers reads meanwhile from the state before it; reads run beside everything.
   */
  readonly writes: boolean
  run(tenant: OpenTenant, params: P, context: OperationContext): Promise<R>
}

/** Declares an operation (see TenantOperation). */
export function tenantOperation<P, R>(
  name: string,
  writes: boolean,
  run: (tenant: OpenTenant, params: P, context: OperationContext) => Promise<R>,
): TenantOperation<P, R> {
  return { name, writes, run }
}
