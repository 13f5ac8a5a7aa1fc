import {
  closeSync,
  createWriteStream,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  type WriteStream,
  writeSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { threadId } from 'node:worker_threads'

/** Writes a whole file or nothing: a temporary sibling, fsync, then rename over the target. */
export function writeFileAtomic(path: string, content: string | Uint8Array | readonly Uint8Array[]): void {
  const temporary = temporaryPath(path)
  try {
    const fd = openSync(temporary, 'w')
    try {
      const chunks =
        typeof content === 'string'
          ? [Buffer.from(content)]
          : content instanceof Uint8Array
            ? [content]
            : content
      for (const chunk of chunks) writeAll(fd, chunk)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/** Writes all of `chunk` (one write may take less than it is given). */
function writeAll(fd: number, chunk: Uint8Array): void {
  let written = 0
  while (written < chunk.length) written += writeSync(fd, chunk, written)
}

/** A sibling of `path` of this process and thread alone (worker threads may write the same file). */
const temporaryPath = (path: string) =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${threadId}.tmp`)

/**
 * A stream to a temporary sibling that becomes `path` only on `commit()`; `abort()` removes it.
 * A crash leaves the old file (or none), never a half-written one.
 */
export class AtomicWriteStream {
  private readonly temporary: string
  private readonly stream: WriteStream

  constructor(readonly path: string) {
    this.temporary = temporaryPath(path)
    this.stream = createWriteStream(this.temporary)
  }

  write(chunk: string): boolean {
    return this.stream.write(chunk)
  }

  async commit(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject)
      this.stream.end(() => resolve())
    })
    renameSync(this.temporary, this.path)
  }

  async abort(): Promise<void> {
    await new Promise<void>((resolve) => this.stream.end(() => resolve()))
    rmSync(this.temporary, { force: true })
  }
}
