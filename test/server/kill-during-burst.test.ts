import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ENTITY_COLLECTIONS } from '../../src/entities/entity-collections.js'
import { createEntity } from '../../src/entities/entity-store.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { call, eventually, tokenFor } from './server-helpers.js'

const EMPLOYEES = ['e-1', 'e-2', 'e-3', 'e-4']

/** `skillhouse serve` on a free port, as a user starts it; resolves with its address. */
async function serve(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(projectRoot(), 'bin', 'run.js'), 'serve', '--port', '0', '--data-dir', dataDir],
    { cwd: projectRoot(), env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk.toString()
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk) => {
      out += chunk.toString()
      const match = /skillhouse serving on (http:\/\/\S+)/.exec(out)
      if (match?.[1]) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
  })
  return { child, url }
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })

const event = (id: string) => ({
  external_id: id,
  event_type: 'working_history',
  timestamp: '2025-03-01',
  content: {
    job_title: 'Data engineer',
    company: 'Initech',
    start_date: '2023-01-01',
    end_date: '2025-02-28',
    job_description: `Built Python and SQL data pipelines (${id}).`,
  },
  source: 'hr-system',
})

describe('a server killed during a burst of skill events', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  const children: ChildProcess[] = []

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    temp.cleanup()
  })

  it('restarts and derives every acknowledged event exactly once into the profiles', async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    const employees = ENTITY_COLLECTIONS.find((collection) => collection.path === 'employees')
    if (!employees) throw new Error('the employees collection is missing')
    for (const id of EMPLOYEES) await createEntity(tenant, employees, { external_id: id })
    tenant.database.close()
    const token = await tokenFor(dataDir, 'acme')

    // 20 senders post events until the server dies under them; it is killed once 150 are
    // acknowledged, with requests in flight and batches being written.
    const first = await serve(dataDir)
    children.push(first.child)
    const acknowledged: { id: string; employee: string }[] = []
    let next = 0
    let killed = false
    const sender = async () => {
      while (!killed) {
        const n = next++
        const employee = EMPLOYEES[n % EMPLOYEES.length] as string
        const id = `burst-${n}`
        try {
          const answer = await call(`${first.url}/acme/eu/employees/${employee}/skill_events`, {
            method: 'POST',
            token,
            body: event(id),
          })
          if (answer.status === 204) acknowledged.push({ id, employee })
          else throw new Error(`unexpected ${answer.status}: ${answer.text}`)
        } catch (error) {
          if (!killed) throw error
        }
        if (acknowledged.length >= 150 && !killed) {
          killed = true
          first.child.kill('SIGKILL')
        }
      }
    }
    await Promise.all(Array.from({ length: 20 }, sender))
    await exited(first.child)
    expect(first.child.signalCode).toBe('SIGKILL')
    expect(acknowledged.length).toBeGreaterThanOrEqual(150)

    // The restarted server derives what was stored: every acknowledged event is evidence of its
    // employee's profile, and no event is evidence twice for a skill.
    const second = await serve(dataDir)
    children.push(second.child)
    const evidence = new Map<string, string[][]>()
    for (const employee of EMPLOYEES) {
      const expected = acknowledged.filter((entry) => entry.employee === employee).map((entry) => entry.id)
      const skills = await eventually(async () => {
        const answer = await call(`${second.url}/acme/eu/employees/${employee}/skill_profile`, { token })
        if (answer.status !== 200) return undefined
        const profile = answer.json as { skills: { evidence: { external_id: string }[] }[] }
        const seen = new Set(
          profile.skills.flatMap((skill) => skill.evidence.map((entry) => entry.external_id)),
        )
        return expected.every((id) => seen.has(id))
          ? profile.skills.map((skill) => skill.evidence.map((entry) => entry.external_id))
          : undefined
      }, 60_000)
      evidence.set(employee, skills)
    }
    for (const skills of evidence.values()) {
      for (const ids of skills) expect(new Set(ids).size).toBe(ids.length)
    }
    second.child.kill('SIGTERM')
    await exited(second.child)
    expect(second.child.exitCode).toBe(0)

    // Every acknowledged event stored, and stored once.
    const reopened = await openTenant(dataDir, 'acme')
    try {
      const rows = await reopened.database.all<{ external_id: string; n: number }>(
        `SELECT external_id, count(*)::INTEGER AS n FROM skill_events GROUP BY external_id HAVING count(*) > 1`,
      )
      expect(rows).toEqual([])
      const stored = new Set(
        (await reopened.database.all<{ external_id: string }>('SELECT external_id FROM skill_events')).map(
          (row) => row.external_id,
        ),
      )
      expect(acknowledged.filter((entry) => !stored.has(entry.id))).toEqual([])
    } finally {
      reopened.database.close()
    }
  }, 150_000)
})
