import { readServerRecord, type ServerRecord } from '../tenants/server-record.js'
import { type OpenTenant, openTenant } from '../tenants/tenant-service.js'
import { handOver } from './hand-over.js'
import type { OperationContext, TenantOperation } from './tenant-operation.js'

/** Runs operations on one tenant, however many, by whichever process holds it. */
export type OperationRunner = <P, R>(operation: TenantOperation<P, R>, params: P) => Promise<R>

/**
 * Runs `work` with a runner of operations on tenant `tenant` of `dataDir` (the only tenant when
 * undefined): handed to the server that serves the data directory when one runs (it holds the
 * tenant's database, which one process at a time may open), else on the tenant opened here, kept
 * open across the operations and closed after `work`.
 */
export async function withOperations<T>(
  dataDir: string,
  tenant: string | undefined,
  context: OperationContext,
  work: (run: OperationRunner, server: ServerRecord | undefined) => Promise<T>,
  /** Aborted (reason 'SIGINT' or 'SIGTERM') to interrupt work handed to the server. */
  interrupt?: AbortSignal,
): Promise<T> {
  const server = readServerRecord(dataDir)
  if (server) {
    return work(
      (operation, params) => handOver(server, operation.name, tenant, params, context, interrupt),
      server,
    )
  }
  let open: OpenTenant | undefined
  try {
    return await work(async (operation, params) => {
      open ??= await openTenant(dataDir, tenant)
      return operation.run(open, params, context)
    }, undefined)
  } finally {
    open?.database.close()
  }
}

/** Runs one operation on a tenant (see withOperations). */
export function runOperation<P, R>(
  dataDir: string,
  tenant: string | undefined,
  operation: TenantOperation<P, R>,
  params: P,
  context: OperationContext,
  interrupt?: AbortSignal,
): Promise<R> {
  return withOperations(dataDir, tenant, context, (run) => run(operation, params), interrupt)
}
