// tenants.json is changed by several commands; each change that reports success must be kept
// when they run at the same time (a nightly script creating tenants and clients in parallel).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { TenantRegistry } from '../../src/tenants/tenant-registry.js'
import { withFileLockSync } from '../../src/util/file-lock.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'
import { startTestServer } from '../server/server-helpers.js'

const temp = tempDir('skillhouse-registry-')
afterAll(() => temp.cleanup())

const PARALLEL = 8

/** Asks the server for a token with a client's credentials; the HTTP status. */
async function tokenStatus(url: string, clientId: string, secret: string): Promise<number> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
  })
  await response.text()
  return response.status
}

describe('tenants.json under parallel writers', () => {
  it('keeps every tenant and every client that 8 parallel commands report created, and every secret gets a token', async () => {
    const dataDir = join(temp.dir, 'parallel')
    const creates = await Promise.all(
      Array.from({ length: PARALLEL }, (_, index) =>
        runCli(['tenant', 'create', `t${index}`, '--region', 'eu', '--data-dir', dataDir, '--json']),
      ),
    )
    const created = creates.filter((answer) => answer.exitCode === 0)
    expect(created.length, creates.map((answer) => String(answer.stderr)).join('\n')).toBe(PARALLEL)
    const clients = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        runCli(['client', 'create', '--tenant', 't0', '--data-dir', dataDir, '--json']),
      ),
    )
    expect(clients.map((answer) => answer.exitCode)).toEqual(Array(PARALLEL).fill(0))

    const registry = TenantRegistry.load(dataDir)
    expect(registry.list().map((entry) => entry.settings.name)).toEqual(
      Array.from({ length: PARALLEL }, (_, index) => `t${index}`),
    )
    // No database left under a temporary name, none orphaned.
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.duckdb')).length).toBe(PARALLEL)
    expect(
      readdirSync(dataDir).filter((name) => name.includes('.creating') || name.endsWith('.lock')),
    ).toEqual([])

    const server = await startTestServer(dataDir)
    try {
      const secrets = [
        ...created.map(
          (answer) => JSON.parse(String(answer.stdout)) as { client_id: string; client_secret: string },
        ),
        ...clients.map(
          (answer) => JSON.parse(String(answer.stdout)) as { client_id: string; client_secret: string },
        ),
      ]
      expect(secrets.length).toBe(2 * PARALLEL)
      const statuses = await Promise.all(
        secrets.map((secret) => tokenStatus(server.url, secret.client_id, secret.client_secret)),
      )
      expect(statuses).toEqual(Array(2 * PARALLEL).fill(200))
    } finally {
      await server.close()
    }
  })

  it('refuses a second tenant of the same name created at the same time, and leaves one database', async () => {
    const dataDir = join(temp.dir, 'same-name')
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        runCli(['tenant', 'create', 'same', '--region', 'eu', '--data-dir', dataDir]),
      ),
    )
    expect(answers.filter((answer) => answer.exitCode === 0).length).toBe(1)
    for (const answer of answers.filter((answer) => answer.exitCode !== 0))
      expect(String(answer.stderr)).toMatch(/already exists/)
    expect(readdirSync(dataDir).filter((name) => name.includes('duckdb'))).toEqual(['same.duckdb'])
  })

  it('takes over a lock left by a process that is gone', () => {
    const lock = join(temp.dir, 'stale.lock')
    // A PID that cannot be alive (above the kernel's pid_max).
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 30, host: hostname(), acquired_at: '', token: 'x' }))
    expect(withFileLockSync(lock, () => 'ran', { waitMs: 1000 })).toBe('ran')
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock older than the bound, whoever holds it', () => {
    const lock = join(temp.dir, 'old.lock')
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: 'elsewhere', acquired_at: '', token: 'y' }))
    expect(withFileLockSync(lock, () => 'ran', { staleMs: 0, waitMs: 1000 })).toBe('ran')
  })

  it('names the holder of a live lock when it does not come free', () => {
    const lock = join(temp.dir, 'live.lock')
    writeFileSync(
      lock,
      JSON.stringify({ pid: process.ppid, host: hostname(), acquired_at: 'then', token: 'z' }),
    )
    expect(() => withFileLockSync(lock, () => 'ran', { waitMs: 50 })).toThrow(
      new RegExp(`held by process ${process.ppid}`),
    )
    expect(readFileSync(lock, 'utf8')).toContain('"z"')
  })
})
