import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'

/** The data directory (docs/guide.md): `--data-dir`, else `$SKILLHOUSE_HOME`, else `./.skillhouse`. */
export function resolveDataDir(flag?: string): string {
  return resolve(flag ?? process.env.SKILLHOUSE_HOME ?? '.skillhouse')
}

export function ensureDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true })
  return dir
}

export const tenantsFile = (dataDir: string) => join(dataDir, 'tenants.json')
export const tenantDatabaseFile = (dataDir: string, tenant: string) => join(dataDir, `${tenant}.duckdb`)
