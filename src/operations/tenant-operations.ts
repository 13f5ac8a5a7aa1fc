import type { TenantSettings } from '../schemas/tenant-settings.js'
import {
  listTenants,
  type TenantState,
  type TenantSummary,
  tenantState,
  type UpdateTenantOptions,
  updateOpenTenant,
} from '../tenants/tenant-service.js'
import { runOperation } from './run-operation.js'
import { NO_PROGRESS, tenantOperation } from './tenant-operation.js'

/** A tenant's counts and last run (`skillhouse tenant list`). */
export const readTenantState = tenantOperation(
  'tenant.state',
  false,
  (tenant): Promise<TenantState> => tenantState(tenant.database),
)

/** `skillhouse tenant update NAME`: activates vendors and languages. */
export const updateTenantSettings = tenantOperation(
  'tenant.update',
  true,
  (tenant, params: Pick<UpdateTenantOptions, 'vendors' | 'languages'>): Promise<TenantSettings> =>
    updateOpenTenant({ ...params, dataDir: tenant.dataDir, name: tenant.settings.name }, tenant.database),
)

/** Every tenant of the data directory with its counts, its last run and what holds it now. */
export function listTenantsOf(dataDir: string): Promise<TenantSummary[]> {
  const context = { progress: NO_PROGRESS, item: () => undefined }
  return listTenants(dataDir, (name) => runOperation(dataDir, name, readTenantState, {}, context))
}
