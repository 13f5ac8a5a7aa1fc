// What `run` says when its input is not right: each rejects file with its reasons, and a
// --tenant that names no tenant as a usage error.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { newCliTenant } from '../helpers/cli-tenant.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-run-messages-')
afterAll(() => temp.cleanup())

describe('run', () => {
  // It printed `3 rejected rows` with neither the rejects file nor a reason; then each event of an
  // employee rejected was one more 404 that looked unrelated.
  it('names each rejects file with its reasons, one line for the events of a rejected employee', async () => {
    const dataDir = await newCliTenant(temp.dir)
    const inbox = join(temp.dir, 'inbox')
    mkdirSync(inbox)
    writeFileSync(join(inbox, 'employees.csv'), 'external_id,email\ne-1,ann@acme.test\ne-2,bad@\n')
    const event = (id: string) =>
      JSON.stringify({
        external_id: id,
        employee_id: 'e-2',
        event_type: 'feedback',
        timestamp: '2024-01-01',
        source: 'hr',
        content: { text: 'SQL' },
      })
    writeFileSync(join(inbox, 'skill_events.ndjson'), `${['ev-1', 'ev-2', 'ev-3'].map(event).join('\n')}\n`)
    const out = join(temp.dir, 'out')
    const answer = await runCli(['run', '--inbox', inbox, '--out', out, '--data-dir', dataDir])
    expect(answer.exitCode, String(answer.stderr)).toBe(3)
    expect(String(answer.stdout)).toContain(
      `rejected 1 rows of employees.csv: ${join(out, 'rejects', 'employees.csv.ndjson')}\n  first: line 3: email: must be a valid email; got 'bad@'\n`,
    )
    expect(String(answer.stdout)).toContain(
      `rejected 3 rows of skill_events.ndjson: ${join(out, 'rejects', 'skill_events.ndjson.ndjson')}\n  3 rows of employee 'e-2' rejected: the employee was rejected (employees.csv line 3: email: must be a valid email; got 'bad@')\n`,
    )
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      inputs: { file: string; reject_causes: unknown }[]
    }
    expect(manifest.inputs.find((input) => input.file === 'skill_events.ndjson')?.reject_causes).toEqual([
      {
        rows: 3,
        rejected_record: "employee 'e-2'",
        reason: "employees.csv line 3: email: must be a valid email; got 'bad@'",
      },
    ])
  })

  // Events dated after the run's date were accepted silently.
  it("warns of skill events dated after the run's as-of date, and lists them in the manifest", async () => {
    const dataDir = await newCliTenant(temp.dir)
    const inbox = join(temp.dir, 'inbox-future')
    mkdirSync(inbox)
    writeFileSync(join(inbox, 'employees.csv'), 'external_id,email\ne-1,ann@acme.test\n')
    const event = (id: string, day: string) =>
      JSON.stringify({
        external_id: id,
        employee_id: 'e-1',
        event_type: 'learning',
        timestamp: day,
        source: 'lms',
        content: { title: 'Advanced SQL' },
      })
    writeFileSync(
      join(inbox, 'skill_events.ndjson'),
      `${[event('ev-1', '2026-03-01'), event('ev-2', '2026-03-09'), event('ev-3', '2026-02-27')].join('\n')}\n`,
    )
    const out = join(temp.dir, 'out-future')
    const args = ['run', '--inbox', inbox, '--out', out, '--as-of', '2026-02-28', '--data-dir', dataDir]
    const answer = await runCli(args)
    expect(answer.exitCode, String(answer.stderr)).toBe(0)
    expect(String(answer.stdout)).toContain(
      "warning: 2 skill events are dated after 2026-02-28 (the latest 2026-03-09); they count only from their dates on: check the source's dates (its clock, a day-month swap)",
    )
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
      future_dated_events: unknown
    }
    expect(manifest.future_dated_events).toEqual({ after: '2026-02-28', events: 2, latest: '2026-03-09' })
    const later = await runCli([
      ...args.slice(0, 5),
      join(temp.dir, 'out-later'),
      '--as-of',
      '2026-03-10',
      '--data-dir',
      dataDir,
    ])
    expect(String(later.stdout)).not.toContain('warning:')
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
