import { demoPostalCodes, importPostalCodes } from '../geo/postal-codes.js'
import { initialiseTenant } from '../tenants/initialise-tenant.js'
import { TenantRegistry } from '../tenants/tenant-registry.js'
import { type CreatedTenant, createTenant, type OpenTenant, withTenant } from '../tenants/tenant-service.js'
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
 * data directory lacks it, then runs the demo's nightly job on it (see `runDemoJob`).
 */
export async function runDemo(options: DemoOptions): Promise<DemoRun> {
  const created = await ensureDemoTenant(options.dataDir)
  return withTenant(options.dataDir, DEMO_TENANT, async (tenant) => ({
    ...(created ? { created } : {}),
    manifest: await runDemoJob(tenant, options),
  }))
}

/**
 * Creates the `demo` tenant (region eu, proficiency matching and criticalities on) when the data
 * directory lacks it, as the default tenant when there is none: the README's tour names no tenant,
 * and goes on working once a second tenant exists. Returns it when made.
 */
export async function ensureDemoTenant(dataDir: string): Promise<CreatedTenant | undefined> {
  if (TenantRegistry.load(dataDir).find(DEMO_TENANT)) return undefined
  const created = await createTenant({
    dataDir,
    name: DEMO_TENANT,
    region: 'eu',
    modelConfiguration: 'MC_2025_Q1_V1',
    proficiencyMatching: true,
    useCriticalities: true,
    initialise: initialiseTenant,
  })
  TenantRegistry.update(dataDir, (registry) => {
    if (!registry.defaultTenant) registry.setDefault(DEMO_TENANT)
  })
  return created
}

/**
 * The demo's nightly job on the open demo tenant: loads the postal codes its addresses use (a
 * GeoNames extract, so that vacancy matching applies distances) and runs the nightly job with
 * fixtures/demo as its inbox. Again on a tenant that has it all: nothing changes.
 */
export async function runDemoJob(
  tenant: OpenTenant,
  options: Omit<DemoOptions, 'dataDir'> & { signal?: AbortSignal },
): Promise<RunManifest> {
  await importPostalCodes(tenant.database, [demoPostalCodes()])
  return runNightly({
    tenant,
    inbox: fixturesDir('demo'),
    out: options.out,
    ...(options.asOf ? { asOf: options.asOf } : {}),
    ...(options.onStage ? { onStage: options.onStage } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  })
}
