// What `run` says when its input is not right: each rejects file with its first reason, and a
// --tenant that names no tenant as a usage error.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { newCliTenant } from '../helpers/cli-tenant.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-run-messages-')
afterAll(() => temp.cleanup())

describe('run', () => {
  // It printed `3 rejected rows` with neither the rejects file nor a reason.
  it('names each rejects file with its first reason, as ingest does', async () => {
    const dataDir = await newCliTenant(temp.dir)
    const inbox = join(temp.dir, 'inbox')
    mkdirSync(inbox)
    writeFileSync(join(inbox, 'employees.csv'), 'external_id,email\ne-1,ann@acme.test\ne-2,bad@\n')
    const out = join(temp.dir, 'out')
    const answer = await runCli(['run', '--inbox', inbox, '--out', out, '--data-dir', dataDir])
    expect(answer.exitCode, String(answer.stderr)).toBe(3)
    expect(String(answer.stdout)).toContain(
      `rejected 1 rows of employees.csv: ${join(out, 'rejects', 'employees.csv.ndjson')} (first: line 3: email: must be a valid email; got 'bad@')`,
    )
  })

  // It exited 1, where a usage error is 2.
  it('refuses a --tenant that names no tenant as a usage error (exit 2), listing the tenants', async () => {
    const dataDir = await newCliTenant(temp.dir)
    const answer = await runCli([
      'run',
      '--tenant',
      'nope',
      '--inbox',
      temp.dir,
      '--out',
      join(temp.dir, 'o'),
      '--data-dir',
      dataDir,
    ])
    expect(answer.exitCode).toBe(2)
    expect(String(answer.stderr).trim()).toBe(
      "error: --tenant nope: tenant 'nope' does not exist; known tenants: x",
    )
  })
})
