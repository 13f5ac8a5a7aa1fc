import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const eventCount = (out: string) =>
  readdirSync(join(out, 'events')).reduce(
    (sum, file) =>
      sum +
      readFileSync(join(out, 'events', file), 'utf8')
        .trim()
        .split('\n').length,
    0,
  )

describe('the nightly job', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('changes no output and emits no event when run again without new input', async () => {
    const inbox = join(temp.dir, 'inbox-small')
    await generateTenant({ out: inbox, seed: 8, employees: 200, events: 2000 })
    const dataDir = join(temp.dir, 'data-small')
    const out = join(temp.dir, 'out-small')
    await runCli(['tenant', 'create', 'n', '--region', 'eu', '--data-dir', dataDir])
    const first = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
      '--json',
    ])
    expect(first.exitCode, String(first.stderr)).toBe(0)
    const firstManifest = JSON.parse(String(first.stdout))
    expect(firstManifest.events).toBeGreaterThan(200)
    const org = readFileSync(join(out, 'org_structure.json'), 'utf8')
    const second = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
      '--json',
    ])
    const secondManifest = JSON.parse(String(second.stdout))
    expect(secondManifest.events).toBe(0)
    expect(secondManifest.inputs.every((input: { rejected: number }) => input.rejected === 0)).toBe(true)
    expect(readFileSync(join(out, 'org_structure.json'), 'utf8')).toBe(org)
    expect(readdirSync(join(out, 'events'))).toHaveLength(1)
  })

  it('refuses a second run at the same time, and is finished by the next run when killed, with every event written once', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 9, employees: 3000, events: 60_000 })
    // A reference run that is not interrupted.
    const reference = join(temp.dir, 'reference')
    await runCli(['tenant', 'create', 'k', '--region', 'eu', '--data-dir', reference])
    const complete = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      join(temp.dir, 'out-reference'),
      '--as-of',
      '2026-06-30',
      '--data-dir',
      reference,
    ])
    expect(complete.exitCode, String(complete.stderr)).toBe(0)

    const dataDir = join(temp.dir, 'data')
    const out = join(temp.dir, 'out')
    await runCli(['tenant', 'create', 'k', '--region', 'eu', '--data-dir', dataDir])
    const child = runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
    ])
    await new Promise<void>((resolve) => {
      let seen = ''
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString()
        if (seen.includes('stage derive')) setTimeout(resolve, 300)
      })
    })
    // A second run on the same tenant meanwhile is refused, clearly.
    const concurrent = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      join(temp.dir, 'out-concurrent'),
      '--data-dir',
      dataDir,
    ])
    expect(concurrent.exitCode).toBe(1)
    expect(String(concurrent.stderr)).toMatch(/in use by another skillhouse process \(PID \d+\)/)
    child.kill('SIGKILL')
    await child
    const rerun = await runCli([
      'run',
      '--inbox',
      inbox,
      '--out',
      out,
      '--as-of',
      '2026-06-30',
      '--data-dir',
      dataDir,
    ])
    expect(rerun.exitCode, String(rerun.stderr)).toBe(0)
    expect(eventCount(out)).toBe(eventCount(join(temp.dir, 'out-reference')))
    expect(readFileSync(join(out, 'org_structure.json'), 'utf8')).toBe(
      readFileSync(join(temp.dir, 'out-reference', 'org_structure.json'), 'utf8'),
    )
  })
})
