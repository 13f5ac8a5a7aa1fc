import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execa, type Options } from 'execa'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { type CreateTenantOptions, createTenant, openTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'

/** A fresh data directory under the system temp dir; removed by `cleanup`. */
export function tempDir(prefix = 'skillhouse-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }) }
}

/** Creates a tenant with the default vocabulary in `dataDir` and opens it. */
export async function createOpenTenant(
  dataDir: string,
  name = 'acme',
  options: Partial<CreateTenantOptions> = {},
) {
  await createTenant({ dataDir, name, region: 'eu', initialise: initialiseTenant, ...options })
  return openTenant(dataDir, name)
}

/** Runs the built CLI (`node bin/run.js …`) as a user would; never throws on a non-zero exit. */
export function runCli(args: string[], options: Options = {}) {
  return execa('node', [join(projectRoot(), 'bin', 'run.js'), ...args], {
    reject: false,
    env: { NO_COLOR: '1' },
    cwd: projectRoot(),
    ...options,
  })
}

export const fixture = (...parts: string[]) => join(projectRoot(), 'fixtures', ...parts)
export const testFixture = (...parts: string[]) => join(projectRoot(), 'test', 'fixtures', ...parts)
