import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { errors } from '../errors/skillhouse-error.js'
import { TenantSettings } from '../schemas/tenant-settings.js'
import { writeFileAtomic } from '../util/atomic-file.js'
import { withFileLockSync } from '../util/file-lock.js'
import { z } from '../vendor/zod.js'
import { ensureDataDir, tenantsFile } from './data-directory.js'

export const OAuthClient = z.object({
  client_id: z.string(),
  secret_hash: z.string(),
  scopes: z.array(z.enum(['read', 'write'])),
  created_at: z.string(),
  revoked_at: z.string().nullable().default(null),
})
export type OAuthClient = z.infer<typeof OAuthClient>

export const TenantEntry = z.object({
  settings: TenantSettings,
  base_url: z.string(),
  clients: z.array(OAuthClient).default([]),
})
export type TenantEntry = z.infer<typeof TenantEntry>

const RegistryFile = z.object({
  version: z.literal(1),
  tenants: z.record(z.string(), TenantEntry),
  /** The tenant a command works on when it names none and there are several (`tenant use`). */
  default_tenant: z.string().optional(),
})
type RegistryFile = z.infer<typeof RegistryFile>

/** `tenants.json` of the data directory: tenants, their settings and OAuth clients. */
export class TenantRegistry {
  private constructor(
    readonly dataDir: string,
    private file: RegistryFile,
  ) {}

  static load(dataDir: string): TenantRegistry {
    const path = tenantsFile(dataDir)
    if (!existsSync(path)) return new TenantRegistry(dataDir, { version: 1, tenants: {} })
    let raw: unknown
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'))
    } catch (error) {
      throw errors.unavailable(
        `${path} is not valid JSON (${(error as Error).message}); restore it from a backup`,
      )
    }
    const parsed = RegistryFile.safeParse(raw)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw errors.unavailable(
        `${path} is damaged at ${issue?.path.join('.') || 'the top'}: ${issue?.message}`,
      )
    }
    return new TenantRegistry(dataDir, parsed.data)
  }

  list(): TenantEntry[] {
    return Object.values(this.file.tenants).sort((a, b) => a.settings.name.localeCompare(b.settings.name))
  }

  find(name: string): TenantEntry | undefined {
    // Own entries only: a name such as `constructor` must not find a member of Object.prototype.
    return Object.hasOwn(this.file.tenants, name) ? this.file.tenants[name] : undefined
  }

  get(name: string): TenantEntry {
    const entry = this.find(name)
    if (!entry) {
      const known = Object.keys(this.file.tenants)
      throw errors.notFound(
        'tenant',
        name,
        `known tenants: ${known.length ? known.join(', ') : 'none (run `skillhouse tenant create`)'}`,
      )
    }
    return entry
  }

  /**
   * The tenant a command works on: the named one, else the default one (`tenant use`), else the
   * only one, else an error listing them.
   */
  pick(name: string | undefined): TenantEntry {
    if (name) return this.get(name)
    const chosen = this.defaultTenant
    if (chosen) return chosen
    const all = this.list()
    if (all.length === 1 && all[0]) return all[0]
    if (all.length === 0) {
      throw errors.notFound(
        'tenant',
        '(any)',
        `no tenant exists in ${this.dataDir}; run \`skillhouse tenant create NAME --region R\``,
      )
    }
    throw errors.severalTenants(all.map((tenant) => tenant.settings.name))
  }

  /** The default tenant (`tenant use`), while it exists. */
  get defaultTenant(): TenantEntry | undefined {
    const name = this.file.default_tenant
    return name === undefined ? undefined : this.find(name)
  }

  /** Makes `name` (a tenant of the registry) the default one, or none (`undefined`). */
  setDefault(name: string | undefined): void {
    if (name === undefined) delete this.file.default_tenant
    else this.file.default_tenant = this.get(name).settings.name
  }

  put(entry: TenantEntry): void {
    this.file.tenants[entry.settings.name] = entry
  }

  remove(name: string): void {
    delete this.file.tenants[name]
  }

  /**
   * Changes the registry on disk: under `tenants.json.lock`, reads the file as it is now, lets
   * `change` edit it and replaces the file whole. Several processes changing it at once (tenant
   * and client commands, the server) each keep their change. Returns what `change` returns.
   */
  static update<T>(dataDir: string, change: (registry: TenantRegistry) => T): T {
    ensureDataDir(dataDir)
    return withFileLockSync(`${tenantsFile(dataDir)}.lock`, () => {
      const registry = TenantRegistry.load(dataDir)
      const result = change(registry)
      writeFileAtomic(tenantsFile(dataDir), `${JSON.stringify(registry.file, null, 2)}\n`)
      return result
    })
  }
}

/** A new OAuth client: the secret is shown once and stored only as a salted scrypt hash. */
export function newOAuthClient(scopes: ('read' | 'write')[]): { client: OAuthClient; secret: string } {
  const secret = randomBytes(24).toString('base64url')
  const client: OAuthClient = {
    client_id: `client-${randomBytes(8).toString('hex')}`,
    secret_hash: hashSecret(secret),
    scopes,
    created_at: new Date().toISOString(),
    revoked_at: null,
  }
  return { client, secret }
}

export function hashSecret(secret: string): string {
  const salt = randomBytes(16)
  return `scrypt$${salt.toString('base64url')}$${scryptSync(secret, salt, 32).toString('base64url')}`
}

export function verifySecret(secret: string, stored: string): boolean {
  const [scheme, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = scryptSync(secret, Buffer.from(salt, 'base64url'), expected.length)
  return timingSafeEqual(actual, expected)
}
