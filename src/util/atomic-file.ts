import {
  closeSync,
  createWriteStream,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
  writeSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { threadId } from 'node:worker_threads'
import { writeError } from '../errors/file-system-errors.js'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'

/**
 * Makes the output folder `path` (and its parents) unless it is there; a file in its place is a
 * 400 naming its `field` (it was a raw EEXIST).
 */
export function ensureFolder(path: string, field: string): void {
  if (existsSync(path) && !statSync(path).isDirectory())
    throw errors.badRequest(`\`${field}\` ${path}: is a file; name a folder (it is made when missing)`)
  mkdirSync(path, { recursive: true })
}

/**
 * Writes a whole file or nothing: a temporary sibling, fsync, then rename over the target.
 * `mode` is the new file's permissions from its first byte (0o600: the owner's alone).
 */
export function writeFileAtomic(
  path: string,
  content: string | Uint8Array | readonly Uint8Array[],
  mode = 0o666,
): void {
  writeThenRename(path, content, mode, true)
}

/**
 * Writes a whole file or nothing, as `writeFileAtomic` does but without waiting for the disk: for
 * many files at once, made durable together by `syncFiles` (an fsync each costs milliseconds;
 * after the first, the others find their data written).
 */
export function writeFileRenamed(path: string, content: string, mode = 0o666): void {
  writeThenRename(path, content, mode, false)
}

function writeThenRename(
  path: string,
  content: string | Uint8Array | readonly Uint8Array[],
  mode: number,
  sync: boolean,
): void {
  const temporary = temporaryPath(path)
  try {
    const fd = openSync(temporary, 'w', mode)
    try {
      const chunks =
        typeof content === 'string'
          ? [Buffer.from(content)]
          : content instanceof Uint8Array
            ? [content]
            : content
      for (const chunk of chunks) writeAll(fd, chunk)
      if (sync) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw writeError(error, path)
  }
}

/** Waits until the files `paths` are on the disk (see writeFileRenamed). */
export function syncFiles(paths: Iterable<string>): void {
  for (const path of paths) {
    const fd = openSync(path, 'r')
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}

/**
 * Puts the file `from` at `path` whole, as a hard link (no byte copied: both names are one
 * file, which must then never be written in place), renamed over the target; where the two
 * cannot share a file (another file system), a copy written by `writeFileAtomic`.
 */
export function linkFileAtomic(from: string, path: string): void {
  const temporary = temporaryPath(path)
  try {
    rmSync(temporary, { force: true })
    linkSync(from, temporary)
  } catch {
    writeFileAtomic(path, readFileSync(from))
    return
  }
  try {
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw writeError(error, path)
  }
}

/** Writes all of `chunk` (one write may take less than it is given). */
function writeAll(fd: number, chunk: Uint8Array): void {
  let written = 0
  while (written < chunk.length) written += writeSync(fd, chunk, written)
}

/** A sibling of `path` of this process and thread alone (worker threads may write the same file). */
export const temporaryPath = (path: string) =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${threadId}.tmp`)

/**
 * A stream to a temporary sibling that becomes `path` only on `commit()`; `abort()` removes it.
 * A crash leaves the old file (or none), never a half-written one.
 */
export class AtomicWriteStream {
  private readonly temporary: string
  private readonly stream: WriteStream
  /** The stream's error (a folder that cannot be made, a full disk), given by `commit`. */
  private failure: Error | undefined

  /**
   * `meant` is the file a failure names: `path` itself, or the output it is a step to (the NDJSON
   * a Parquet file is converted from).
   */
  constructor(
    readonly path: string,
    private readonly meant = path,
  ) {
    this.temporary = temporaryPath(path)
    // The folder is made as for writeFileAtomic's callers; a failure is the stream's error.
    try {
      mkdirSync(dirname(path), { recursive: true })
    } catch {}
    this.stream = createWriteStream(this.temporary)
    this.stream.on('error', (error) => {
      this.failure ??= error
    })
  }

  write(chunk: string): boolean {
    return this.failure ? false : this.stream.write(chunk)
  }

  /**
   * Puts the file in place once all of it is written; on a failure (a full disk, a folder it may
   * not write) the temporary file is removed and the error names `path`, the cause and the fix.
   */
  async commit(): Promise<void> {
    await this.end()
    if (!this.failure && existsSync(this.path) && statSync(this.path).isDirectory()) {
      rmSync(this.temporary, { force: true })
      throw errors.badRequest(`${this.path} is a folder; name the file to write`)
    }
    try {
      if (this.failure) throw this.failure
      renameSync(this.temporary, this.path)
    } catch (error) {
      rmSync(this.temporary, { force: true })
      const named = writeError(error, this.meant)
      throw isSkillhouseError(named)
        ? named
        : errors.unavailable(`cannot write ${this.meant}: ${(error as Error).message}`)
    }
  }

  async abort(): Promise<void> {
    await this.end()
    rmSync(this.temporary, { force: true })
  }

  /**
   * Ends the stream. Its last write's error reaches the end's callback before the 'error' event:
   * taken from there, or a full disk would commit the half that was written.
   */
  private async end(): Promise<void> {
    if (this.failure) return
    await new Promise<void>((resolve) => {
      this.stream.once('error', () => resolve())
      this.stream.end((error?: Error | null) => {
        if (error) this.failure ??= error
        resolve()
      })
    })
  }
}
