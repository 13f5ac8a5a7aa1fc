import { linkSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'

/** What a lock file holds: who took it and when. */
interface LockOwner {
  pid: number
  host: string
  acquired_at: string
  token: string
}

export interface FileLockOptions {
  /** A lock older than this is taken for one left by a crashed process (default 30 s). */
  staleMs?: number
  /** How long to wait for a live holder before giving up with a 503 (default 30 s). */
  waitMs?: number
}

const DEFAULT_STALE_MS = 30_000
const DEFAULT_WAIT_MS = 30_000

/**
 * Runs `work` while holding the lock file `lockPath` (created next to the file it guards), so
 * that read-modify-write cycles of several processes happen one after the other. A lock whose
 * process is gone (same host, PID not alive) or that is older than `staleMs` is removed. The
 * critical sections it guards are short and synchronous, so waiting is synchronous too.
 */
export function withFileLockSync<T>(lockPath: string, work: () => T, options: FileLockOptions = {}): T {
  const owner = acquire(lockPath, options)
  try {
    return work()
  } finally {
    release(lockPath, owner)
  }
}

function acquire(lockPath: string, options: FileLockOptions): LockOwner {
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS
  const deadline = Date.now() + (options.waitMs ?? DEFAULT_WAIT_MS)
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    acquired_at: '',
    token: `${process.pid}-${Math.random().toString(36).slice(2)}`,
  }
  // The lock appears whole: written to a file of our own, then hard-linked into place (a link
  // fails when the name exists, so exactly one process gets it).
  const mine = join(dirname(lockPath), `.${basename(lockPath)}.${owner.token}`)
  let pause = 2
  try {
    for (;;) {
      owner.acquired_at = new Date().toISOString()
      writeFileSync(mine, JSON.stringify(owner))
      try {
        linkSync(mine, lockPath)
        return owner
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      }
      const holder = readHolder(lockPath)
      if (holder && isStale(holder, staleMs)) {
        removeStale(lockPath, holder.ino)
        continue
      }
      if (Date.now() > deadline) {
        const who = holder?.owner
          ? `process ${holder.owner.pid} on ${holder.owner.host} since ${holder.owner.acquired_at}`
          : 'another process'
        throw errors.unavailable(
          `${lockPath} is held by ${who}; wait for that command to finish (a lock left by a crashed process is removed once that process is gone)`,
        )
      }
      sleep(pause)
      pause = Math.min(pause * 2, 50)
    }
  } finally {
    rmSync(mine, { force: true })
  }
}

function release(lockPath: string, owner: LockOwner): void {
  // Only our own lock: had it been taken for stale and replaced, the new holder's stays.
  const holder = readHolder(lockPath)
  if (holder?.owner?.token === owner.token) rmSync(lockPath, { force: true })
}

/** The lock file's owner and inode, or undefined when there is none; an unreadable owner is null. */
function readHolder(lockPath: string): { owner: LockOwner | null; ino: number; ageMs: number } | undefined {
  try {
    const stat = statSync(lockPath)
    let owner: LockOwner | null = null
    try {
      owner = JSON.parse(readFileSync(lockPath, 'utf8')) as LockOwner
    } catch {}
    return { owner, ino: stat.ino, ageMs: Date.now() - stat.mtimeMs }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function isStale(holder: { owner: LockOwner | null; ageMs: number }, staleMs: number): boolean {
  if (holder.ageMs > staleMs) return true
  const owner = holder.owner
  if (!owner || owner.host !== hostname() || !Number.isInteger(owner.pid)) return false
  return !processAlive(owner.pid)
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the stale lock with inode `ino`: renamed aside first, so that of several processes
 * that found it stale one removes it; one that finds a fresh lock in its place puts that back.
 */
function removeStale(lockPath: string, ino: number): void {
  const aside = `${lockPath}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`
  try {
    renameSync(lockPath, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  try {
    if (statSync(aside).ino !== ino) {
      try {
        linkSync(aside, lockPath)
      } catch {}
    }
  } finally {
    rmSync(aside, { force: true })
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms)
}
