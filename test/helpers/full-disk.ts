// A disk that fills up, for tests of what a writer says and leaves on ENOSPC: no small file system
// can be mounted here, and /dev/full takes no temporary sibling. Node's own fs functions are
// wrapped (the ones the writers and write streams call), so the product's code runs unchanged.
import fs from 'node:fs'
import { syncBuiltinESMExports } from 'node:module'
import { resolve, sep } from 'node:path'

type Write = (fd: number, data: Buffer) => number

/**
 * Makes the files opened under `folder` sit on a full disk: opening them works, and their writes
 * fail with ENOSPC once `room` bytes were written there in all (a write that crosses it writes what
 * fits first). Returns the function that gives the disk back.
 */
export function fillDisk(folder: string, room = 0): () => void {
  const root = `${resolve(folder)}${sep}`
  const full = new Set<number>()
  let left = room
  const original = { ...fs }
  const under = (path: unknown) => typeof path === 'string' && resolve(path).startsWith(root)
  /** Writes what fits of `data` with `write`, then fails. */
  const bounded = (fd: number, data: Buffer, write: Write): number => {
    if (!full.has(fd)) return write(fd, data)
    if (left === 0 && data.length > 0) throw noSpace()
    const fits = Math.min(left, data.length)
    left -= fits
    return write(fd, data.subarray(0, fits))
  }
  const patched = {
    openSync: (path: fs.PathLike, ...rest: unknown[]) => {
      const fd = (original.openSync as (...args: unknown[]) => number)(path, ...rest)
      if (under(path)) full.add(fd)
      return fd
    },
    open: (path: fs.PathLike, ...rest: unknown[]) => {
      const done = rest.pop() as (error: Error | null, fd?: number) => void
      ;(original.open as (...args: unknown[]) => void)(path, ...rest, (error: Error | null, fd?: number) => {
        if (!error && fd !== undefined && under(path)) full.add(fd)
        done(error, fd)
      })
    },
    closeSync: (fd: number) => {
      full.delete(fd)
      original.closeSync(fd)
    },
    close: (fd: number, done?: (error: Error | null) => void) => {
      full.delete(fd)
      original.close(fd, done)
    },
    writeSync: (fd: number, data: string | Uint8Array, ...rest: unknown[]) => {
      if (!full.has(fd)) return (original.writeSync as (...args: unknown[]) => number)(fd, data, ...rest)
      const bytes =
        typeof data === 'string'
          ? Buffer.from(data)
          : Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      const offset = typeof data === 'string' ? 0 : ((rest[0] as number | undefined) ?? 0)
      const length =
        typeof data === 'string' ? bytes.length : ((rest[1] as number | undefined) ?? bytes.length - offset)
      return bounded(fd, bytes.subarray(offset, offset + length), (target, chunk) =>
        original.writeSync(target, chunk),
      )
    },
    write: (fd: number, data: Uint8Array | string, ...rest: unknown[]) => {
      const done = rest.pop() as (error: Error | null, written?: number, data?: unknown) => void
      if (!full.has(fd)) return (original.write as (...args: unknown[]) => void)(fd, data, ...rest, done)
      const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data)
      try {
        const written = bounded(fd, bytes, (target, chunk) => original.writeSync(target, chunk))
        process.nextTick(done, null, written, data)
      } catch (error) {
        process.nextTick(done, error)
      }
    },
    writev: (fd: number, buffers: Uint8Array[], ...rest: unknown[]) => {
      const done = rest.pop() as (error: Error | null, written?: number, data?: unknown) => void
      if (!full.has(fd)) return (original.writev as (...args: unknown[]) => void)(fd, buffers, ...rest, done)
      try {
        const written = bounded(fd, Buffer.concat(buffers), (target, chunk) =>
          original.writeSync(target, chunk),
        )
        process.nextTick(done, null, written, buffers)
      } catch (error) {
        process.nextTick(done, error)
      }
    },
  }
  Object.assign(fs, patched)
  syncBuiltinESMExports()
  return () => {
    for (const name of Object.keys(patched)) Object.assign(fs, { [name]: original[name as keyof typeof fs] })
    syncBuiltinESMExports()
  }
}

function noSpace(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), {
    errno: -28,
    code: 'ENOSPC',
    syscall: 'write',
  })
}

// Loaded with `node --import` by a test of the built CLI: the folder of SKILLHOUSE_TEST_FULL_DISK.
const folder = process.env.SKILLHOUSE_TEST_FULL_DISK
if (folder) fillDisk(folder, Number(process.env.SKILLHOUSE_TEST_DISK_ROOM ?? 0))
