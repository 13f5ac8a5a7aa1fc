import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import { TenantSettings, type TenantSettings as TenantSettingsType } from '../schemas/tenant-settings.js'
import { DEFAULT_VOCAB_LANGUAGES, VENDOR_A_ONLY_LANGUAGES } from '../schemas/vocabulary-languages.js'
import { describeRun, readRunStatus } from '../store/run-status.js'
import { TenantDatabase } from '../store/tenant-database.js'
import { ensureDataDir, tenantDatabaseFile } from './data-directory.js'
import { readServerRecord } from './server-record.js'
import { newOAuthClient, type TenantEntry, TenantRegistry } from './tenant-registry.js'

export const DEFAULT_SERVER_ORIGIN = 'http://127.0.0.1:8080'

export interface CreateTenantOptions {
  dataDir: string
  name: string
  region: string
  modelConfiguration?: string | undefined
  vendors?: string[] | undefined
  languages?: string[] | undefined
  proficiencyMatching?: boolean | undefined
  useCriticalities?: boolean | undefined
  /** Origin the server is reached at; the tenant's base URL is `{origin}/{tenant}/{region}`. */
  origin?: string | undefined
  /** Called with the open database after creation, e.g. to load the default vocabulary. */
  initialise?: (database: TenantDatabase, settings: TenantSettingsType) => Promise<void>
}

export interface CreatedTenant {
  tenant: string
  region: string
  base_url: string
  database: string
  client_id: string
  client_secret: string
  settings: TenantSettingsType
}

/** Creates a tenant: its settings, its database (migrated), its first OAuth client. */
export async function createTenant(options: CreateTenantOptions): Promise<CreatedTenant> {
  const registry = TenantRegistry.load(ensureDataDir(options.dataDir))
  const parsed = TenantSettings.safeParse({
    name: options.name,
    region: options.region,
    model_configuration: options.modelConfiguration,
    vendors: options.vendors?.length ? unique(['vendor_default', ...options.vendors]) : undefined,
    // Given languages add to the default vocabulary's (2.1), which stay.
    languages: options.languages?.length
      ? unique([...DEFAULT_VOCAB_LANGUAGES, ...options.languages])
      : undefined,
    features: {
      proficiency_matching: options.proficiencyMatching ?? false,
      use_criticalities: options.useCriticalities ?? false,
    },
    created_at: new Date().toISOString(),
  })
  if (!parsed.success) {
    throw errors.unprocessable(
      parsed.error.issues.map((issue) => `${fieldName(issue.path)}: ${issue.message}`),
    )
  }
  const settings = parsed.data
  checkVendorLanguages(settings)
  if (registry.find(settings.name)) throw errors.conflict('tenant', settings.name)
  const path = tenantDatabaseFile(options.dataDir, settings.name)
  if (existsSync(path)) {
    throw errors.conflict('tenant database', path)
  }
  const baseUrl = `${(options.origin ?? DEFAULT_SERVER_ORIGIN).replace(/\/+$/, '')}/${settings.name}/${settings.region}`
  // The database is built under a name of this process and renamed into place only once the
  // tenant is registered: two commands creating the same tenant at once never share a file.
  const building = join(dirname(path), `.${basename(path)}.${process.pid}.creating`)
  const removeBuilding = () => {
    for (const file of [building, `${building}.wal`]) rmSync(file, { force: true })
  }
  removeBuilding()
  const database = await TenantDatabase.open(building, { create: true })
  try {
    await writeSettings(database, settings, baseUrl)
    await options.initialise?.(database, settings)
    await database.checkpoint()
  } catch (error) {
    database.close()
    removeBuilding()
    throw error
  }
  database.close()
  const { client, secret } = newOAuthClient(['read', 'write'])
  try {
    TenantRegistry.update(options.dataDir, (current) => {
      if (current.find(settings.name)) throw errors.conflict('tenant', settings.name)
      if (existsSync(path)) throw errors.conflict('tenant database', path)
      renameSync(building, path)
      current.put({ settings, base_url: baseUrl, clients: [client] })
    })
  } finally {
    removeBuilding()
  }
  return {
    tenant: settings.name,
    region: settings.region,
    base_url: baseUrl,
    database: path,
    client_id: client.client_id,
    client_secret: secret,
    settings,
  }
}

/** Spec 2.1: some languages exist only for vendor_a's vocabulary; a 422 when it is not activated. */
function checkVendorLanguages(settings: TenantSettingsType): void {
  const vendorAOnly = settings.languages.filter((language) =>
    (VENDOR_A_ONLY_LANGUAGES as readonly string[]).includes(language),
  )
  if (vendorAOnly.length > 0 && !settings.vendors.includes('vendor_a')) {
    throw errors.unprocessable(
      `\`languages\` ${vendorAOnly.join(', ')}: only vendor_a's vocabulary has ${vendorAOnly.length > 1 ? 'these languages' : 'this language'}; add \`vendors\` vendor_a, or choose from ${DEFAULT_VOCAB_LANGUAGES.join(', ')}`,
    )
  }
}

export interface UpdateTenantOptions {
  dataDir: string
  name: string
  /** Vendors to activate (added to those activated). */
  vendors?: string[] | undefined
  /** Vocabulary languages to activate (added to those activated). */
  languages?: string[] | undefined
}

/**
 * Activates vendors and vocabulary languages on an existing tenant, in tenants.json and in the
 * mirror of the settings in its database (so a tenant held by a run or the server is refused,
 * clearly, before anything changes). Activating what is active changes nothing.
 */
export async function updateTenant(options: UpdateTenantOptions): Promise<TenantSettingsType> {
  TenantRegistry.load(options.dataDir).get(options.name)
  const database = await TenantDatabase.open(tenantDatabaseFile(options.dataDir, options.name))
  try {
    return await updateOpenTenant(options, database)
  } finally {
    database.close()
  }
}

/** `updateTenant` on the tenant's open database (by whichever process holds it). */
export async function updateOpenTenant(
  options: UpdateTenantOptions,
  database: TenantDatabase,
): Promise<TenantSettingsType> {
  const merged = (current: TenantSettingsType): TenantSettingsType => {
    const parsed = TenantSettings.safeParse({
      ...current,
      vendors: unique([...current.vendors, ...(options.vendors ?? [])]),
      languages: unique([...current.languages, ...(options.languages ?? [])]),
    })
    if (!parsed.success) {
      throw errors.unprocessable(
        parsed.error.issues.map((issue) => `${fieldName(issue.path)}: ${issue.message}`),
      )
    }
    checkVendorLanguages(parsed.data)
    return parsed.data
  }
  const entry = TenantRegistry.load(options.dataDir).get(options.name)
  await writeSettings(database, merged(entry.settings), entry.base_url)
  // Merged again under the lock: another change meanwhile is kept (activations only add).
  return TenantRegistry.update(options.dataDir, (registry) => {
    const current = registry.get(options.name)
    current.settings = merged(current.settings)
    return current.settings
  })
}

async function writeSettings(database: TenantDatabase, settings: TenantSettingsType, baseUrl: string) {
  const values: Record<string, unknown> = { ...settings, base_url: baseUrl }
  for (const [key, value] of Object.entries(values)) {
    await database.run('INSERT OR REPLACE INTO settings VALUES ($1, $2)', [key, JSON.stringify(value)])
  }
}

/** An open tenant: its registry entry and its database. Close the database when done. */
export interface OpenTenant {
  entry: TenantEntry
  settings: TenantSettingsType
  baseUrl: string
  database: TenantDatabase
  dataDir: string
  /** The server's data version of the tenant, for reads (see `TaxonomyTenant.dataVersion`). */
  dataVersion?: string | undefined
}

export async function openTenant(dataDir: string, name: string | undefined): Promise<OpenTenant> {
  const registry = TenantRegistry.load(dataDir)
  const entry = registry.pick(name)
  const database = await TenantDatabase.open(tenantDatabaseFile(dataDir, entry.settings.name))
  return { entry, settings: entry.settings, baseUrl: entry.base_url, database, dataDir }
}

/** Runs `work` on an open tenant and always closes its database. */
export async function withTenant<T>(
  dataDir: string,
  name: string | undefined,
  work: (tenant: OpenTenant) => Promise<T>,
): Promise<T> {
  const tenant = await openTenant(dataDir, name)
  try {
    return await work(tenant)
  } finally {
    tenant.database.close()
  }
}

export interface TenantSummary {
  tenant: string
  region: string
  model_configuration: string
  vendors: string[]
  languages: string[]
  base_url: string
  counts: Record<string, number> | null
  last_run: { run_id: string; kind: string; status: string; finished_at: string | null } | null
  /** Whether commands that name no tenant work on this one (`tenant use`). */
  default: boolean
  /** The server serving the data directory: it holds the tenant's database while it runs. */
  served_by?: { pid: number; url: string }
  /** The run holding the tenant's database now, or running in the server (its status file). */
  running?: { run_id: string; kind: string; pid: number; stage: string; since: string; started_at: string }
  note?: string
}

const COUNTED_TABLES = [
  'employees',
  'skill_events',
  'jobs',
  'job_families',
  'vacancies',
  'courses',
  'organisational_units',
  'companies',
] as const

/**
 * Every tenant with its region, counts and last run, and what holds it now: `summarise` gives
 * the counts and last run of one (by whichever process holds its database); a database held by
 * a process that cannot answer (a batch command) is reported, not fatal.
 */
export async function listTenants(
  dataDir: string,
  summarise: (name: string) => Promise<TenantState>,
): Promise<TenantSummary[]> {
  const registry = TenantRegistry.load(dataDir)
  const server = readServerRecord(dataDir)
  const summaries: TenantSummary[] = []
  for (const entry of registry.list()) {
    const summary: TenantSummary = {
      tenant: entry.settings.name,
      region: entry.settings.region,
      model_configuration: entry.settings.model_configuration,
      vendors: entry.settings.vendors,
      languages: entry.settings.languages,
      base_url: entry.base_url,
      counts: null,
      last_run: null,
      default: registry.defaultTenant?.settings.name === entry.settings.name,
      ...(server ? { served_by: { pid: server.pid, url: server.url } } : {}),
    }
    try {
      Object.assign(summary, await summarise(entry.settings.name))
    } catch (error) {
      summary.note = (error as Error).message
    }
    // A run holding the database, or running in the server: what it says of itself.
    const run = readRunStatus(tenantDatabaseFile(dataDir, entry.settings.name))
    if (run) {
      summary.running = {
        run_id: run.run_id,
        kind: run.kind,
        pid: run.pid,
        stage: run.stage,
        since: run.stage_started_at,
        started_at: run.started_at,
      }
      if (summary.counts === null)
        summary.note = `held by the ${describeRun(run)}; counts are shown when it has finished`
    }
    summaries.push(summary)
  }
  return summaries
}

/**
 * Deletes tenant `name`: its entry in tenants.json (and the default, when it was) and its
 * database with the files kept beside it. Refused while a server serves the data directory or a
 * process holds the database (its open is refused first, and nothing is deleted).
 */
export async function removeTenant(dataDir: string, name: string): Promise<void> {
  const server = readServerRecord(dataDir)
  if (server) throw errors.servedTenantKept(name, server.pid, server.url)
  TenantRegistry.load(dataDir).get(name)
  const path = tenantDatabaseFile(dataDir, name)
  if (existsSync(path)) (await TenantDatabase.open(path)).close()
  TenantRegistry.update(dataDir, (registry) => {
    if (registry.defaultTenant?.settings.name === name) registry.setDefault(undefined)
    registry.remove(name)
  })
  for (const file of readdirSync(dataDir))
    if (file === basename(path) || file.startsWith(`${basename(path)}.`))
      rmSync(join(dataDir, file), { force: true, recursive: true })
}

/** What a tenant's database says of it: its counts and its last run. */
export type TenantState = Pick<TenantSummary, 'counts' | 'last_run'>

/** The counts and last run of a tenant's open database. */
export async function tenantState(database: TenantDatabase): Promise<TenantState> {
  const counts: Record<string, number> = {}
  for (const table of COUNTED_TABLES) {
    const row = await database.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)
    counts[table] = row?.n ?? 0
  }
  const run = await database.one<{ run_id: string; kind: string; status: string; finished_at: Date | null }>(
    // A run still running is shown from its status file; this is the last one that ended.
    "SELECT run_id, kind, status, finished_at FROM runs WHERE status <> 'running' ORDER BY started_at DESC LIMIT 1",
  )
  return {
    counts,
    last_run: run
      ? {
          run_id: run.run_id,
          kind: run.kind,
          status: run.status,
          finished_at: run.finished_at?.toISOString?.() ?? null,
        }
      : null,
  }
}

const unique = <T>(values: T[]) => [...new Set(values)]
const fieldName = (path: PropertyKey[]) => `\`${String(path[0] ?? 'value')}\``
