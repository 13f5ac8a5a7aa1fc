import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import { processAlive, withFileLockSync } from '../../src/util/file-lock.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

/** A pid no process has: a child that has ended. */
async function endedPid(): Promise<number> {
  const child = await execa('node', ['-e', 'process.stdout.write(String(process.pid))'])
  return Number(child.stdout)
}

const lockFile = (owner: object) =>
  JSON.stringify({ acquired_at: new Date().toISOString(), token: 't', ...owner })

describe('withFileLockSync', () => {
  it('holds the lock file while the work runs, removes it after, and returns what the work returns', () => {
    const lock = join(temp.dir, 'a.lock')
    const value = withFileLockSync(lock, () => {
      expect(existsSync(lock)).toBe(true)
      return 42
    })
    expect(value).toBe(42)
    expect(existsSync(lock)).toBe(false)
    expect(readdirSync(temp.dir)).toEqual([])
  })

  it('releases the lock when the work throws', () => {
    const lock = join(temp.dir, 'b.lock')
    expect(() =>
      withFileLockSync(lock, () => {
        throw new Error('work failed')
      }),
    ).toThrow('work failed')
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock whose process on this host is gone', async () => {
    const lock = join(temp.dir, 'c.lock')
    writeFileSync(lock, lockFile({ pid: await endedPid(), host: hostname() }))
    expect(withFileLockSync(lock, () => 'taken')).toBe('taken')
    expect(existsSync(lock)).toBe(false)
  })

  it('takes over a lock older than staleMs whoever holds it', () => {
    const lock = join(temp.dir, 'd.lock')
    writeFileSync(lock, lockFile({ pid: 1, host: 'another-host' }))
    const old = new Date(Date.now() - 60_000)
    utimesSync(lock, old, old)
    expect(withFileLockSync(lock, () => 'taken', { staleMs: 10_000 })).toBe('taken')
  })

  it('gives up on a live holder with a 503 naming it', () => {
    const lock = join(temp.dir, 'e.lock')
    writeFileSync(
      lock,
      lockFile({ pid: process.pid, host: hostname(), acquired_at: '2026-01-01T00:00:00.000Z' }),
    )
    try {
      withFileLockSync(lock, () => 'never', { waitMs: 0 })
      expect.unreachable()
    } catch (error) {
      expect((error as { status: number }).status).toBe(503)
      expect((error as Error).message).toContain(
        `${lock} is held by process ${process.pid} on ${hostname()} since 2026-01-01T00:00:00.000Z`,
      )
    }
    // The holder's lock stays.
    expect(existsSync(lock)).toBe(true)
  })
})

describe('processAlive', () => {
  it('tells a running process from one that has ended', async () => {
    expect(processAlive(process.pid)).toBe(true)
    expect(processAlive(await endedPid())).toBe(false)
  })
})
