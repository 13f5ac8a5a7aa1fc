import { demoPostalCodes, importPostalCodes } from '../geo/postal-codes.js'
import { initialiseTenant } from '../tenants/initialise-tenant.js'
import { TenantRegistry } from '../tenants/tenant-registry.js'
import { type CreatedTenant, createTenant, withTenant } from '../tenants/tenant-service.js'
import { fixturesDir } from '../util/project-paths.js'
import { type RunManifest, runNightly } from './nightly-run.js'

/** The demo tenant's name. */
export const DEMO_TENANT = 'demo'

export interface DemoOptions {
  dataDir: string
  out: string
  /** The nightly job's date (default today). */
  asOf?: string
  onStage?: (stage: string) => void
}

export interface DemoRun {
  /** The tenant and its first client, when this run created it. */
  created?: CreatedTenant
  manifest: RunManifest
}

/**
 * `skillhouse demo` (and the run behind the OpenAPI examples): creates the `demo` tenant when the
 * data directory lacks it (region eu, proficiency matching and criticalities on), loads the
 * postal codes its addresses use (a GeoNames extract, so that vacancy matching applies distances)
 * and runs the nightly job with fixtures/demo as its inbox.
 */
export async function runDemo(options: DemoOptions): Promise<DemoRun> {
  const created = TenantRegistry.load(options.dataDir).find(DEMO_TENANT)
    ? undefined
    : await createTenant({
        dataDir: options.dataDir,
        name: DEMO_TENANT,
        region: 'eu',
        modelConfiguration: 'MC_2025_Q1_V1',
        proficiencyMatching: true,
        useCriticalities: true,
        initialise: initialiseTenant,
      })
  return withTenant(options.dataDir, DEMO_TENANT, async (tenant) => {
    await importPostalCodes(tenant.database, [demoPostalCodes()])
    const manifest = await runNightly({
      tenant,
      inbox: fixturesDir('demo'),
      out: options.out,
      ...(options.asOf ? { asOf: options.asOf } : {}),
      ...(options.onStage ? { onStage: options.onStage } : {}),
    })
    return { ...(created ? { created } : {}), manifest }
  })
}
