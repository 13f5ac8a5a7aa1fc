import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { link, open, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { temporaryPath, writeFileAtomic } from '../util/atomic-file.js'

/**
 * The nightly job's 4.11 answers kept beside the database, by the inputs that made them, so that
 * a run into a new output folder (teams keep one per night) places the answers of employees
 * whose inputs did not change instead of computing them again. The folder
 * `<database>.vacancy-answers` holds each answer once, named by the sha256 of its bytes (a
 * changed answer is a new file: an output folder that holds the old one keeps it), and
 * `state.json`: the fingerprint of what every answer shares and, per employee, the fingerprint
 * of their own inputs and their answer's sha256. Answers are placed in an output folder as hard
 * links (a copy across file systems), read-only, since both names are one file. It is a cache:
 * safe to delete at any time, and deleted when an employee is (it holds their answers).
 */
export class KeptVacancyAnswers {
  private readonly folder: string
  private readonly known: AnswerState['employees']
  /** Answers kept in this run, not yet known to be on the disk. */
  private readonly unsynced: string[] = []
  /** Answers being written in this run, by sha256: a place waits for its answer's file. */
  private readonly writing = new Map<string, Promise<void>>()
  /** The files of this run's answers and places are written a few at a time, in the background. */
  private readonly files = new FileQueue()
  /** The names in the folder when it was opened (one listing, not a lookup per answer). */
  private readonly present: Set<string>

  private constructor(
    databasePath: string,
    private readonly shared: string,
  ) {
    this.folder = keptFolder(databasePath)
    const state = readAnswerState(join(this.folder, STATE_FILE))
    this.known = state && state.version === KEPT_VERSION && state.shared === shared ? state.employees : {}
    this.present = new Set(existsSync(this.folder) ? readdirSync(this.folder) : [])
  }

  /** The answers kept beside the database at `databasePath`, valid for the shared fingerprint `shared`. */
  static open(databasePath: string, shared: string): KeptVacancyAnswers {
    return new KeptVacancyAnswers(databasePath, shared)
  }

  /** The sha256 of the employee's kept answer when their inputs are still `input`; else undefined. */
  answer(employeeId: string, input: string): string | undefined {
    const entry = this.known[employeeId]
    if (!entry || entry.input !== input || !this.present.has(`${entry.sha256}.json`)) return undefined
    return entry.sha256
  }

  /** Keeps an answer's text (once per content); returns its sha256. The file is written meanwhile. */
  keep(text: string): string {
    const sha256 = createHash('sha256').update(text).digest('hex')
    const file = this.file(sha256)
    if (!this.writing.has(sha256) && !this.present.has(`${sha256}.json`)) {
      if (this.unsynced.length === 0) mkdirSync(this.folder, { recursive: true })
      this.writing.set(
        sha256,
        this.files.add(() => writeRenamed(file, text)),
      )
      this.unsynced.push(file)
    }
    return sha256
  }

  /** Places the kept answer `sha256` at `path`, whole (meanwhile: see `settle`). */
  place(sha256: string, path: string): void {
    const written = this.writing.get(sha256)
    const file = this.file(sha256)
    this.files.add(async () => {
      await written
      await linkInto(file, path)
    })
  }

  /** Waits while many files are being written (so that a batch never holds them all); fails with the first failure. */
  settle(): Promise<void> {
    return this.files.settle(FILES_IN_FLIGHT)
  }

  /**
   * Records which answer each employee has now (and by which inputs), once every file of this
   * run is written and the answers kept in this run are on the disk; removes the others.
   */
  async commit(employees: AnswerState['employees']): Promise<void> {
    await this.files.settle(0)
    mkdirSync(this.folder, { recursive: true })
    if (this.unsynced.length > 0 && !syncFileSystem(this.folder)) {
      for (const file of this.unsynced) {
        this.files.add(() => syncFile(file))
        await this.files.settle(FILES_IN_FLIGHT)
      }
      await this.files.settle(0)
    }
    const state: AnswerState = { version: KEPT_VERSION, shared: this.shared, employees }
    writeFileAtomic(join(this.folder, STATE_FILE), JSON.stringify(state))
    const used = new Set(Object.values(employees).map((entry) => `${entry.sha256}.json`))
    for (const name of readdirSync(this.folder)) {
      if (name !== STATE_FILE && !used.has(name)) rmSync(join(this.folder, name), { force: true })
    }
  }

  private file(sha256: string): string {
    return join(this.folder, `${sha256}.json`)
  }
}

/** File operations of the answers in flight at once (each waits on the disk, not on this thread). */
const FILES_IN_FLIGHT = 64

/** File operations run in the background, the first failure kept for `settle`. */
class FileQueue {
  private running = 0
  private waiters: (() => void)[] = []
  private failure: { error: unknown } | undefined

  add(operation: () => Promise<void>): Promise<void> {
    this.running++
    const running = operation()
    running.then(
      () => this.done(),
      (error: unknown) => {
        this.failure ??= { error }
        this.done()
      },
    )
    return running
  }

  /** Waits until at most `limit` operations run; throws the first failure. */
  async settle(limit: number): Promise<void> {
    while (this.running > limit && !this.failure)
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    if (this.failure) throw this.failure.error
  }

  private done(): void {
    this.running--
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }
}

/** Writes a read-only file whole: a temporary sibling renamed over it (no fsync: see `commit`). */
async function writeRenamed(path: string, text: string): Promise<void> {
  const temporary = temporaryPath(`${path}.${++temporaries}`)
  try {
    await writeFile(temporary, text, { mode: 0o444 })
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** Puts the kept file `from` at `path` as a hard link renamed over it; a copy across file systems. */
async function linkInto(from: string, path: string): Promise<void> {
  const temporary = temporaryPath(`${path}.${++temporaries}`)
  try {
    await link(from, temporary)
  } catch {
    await rm(temporary, { force: true })
    await writeRenamed(path, await readFile(from, 'utf8'))
    return
  }
  try {
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** Counts the temporary files of this thread: operations in flight at once each need their own. */
let temporaries = 0

/**
 * Waits until everything written to the file system that holds `path` is on the disk: one
 * syncfs(2) (coreutils' `sync --file-system`) instead of an fsync per answer, which costs
 * milliseconds each (measured in docs/benchmarks.md). False where that is not to be had (no such
 * command, another system): the caller then syncs each file.
 */
function syncFileSystem(path: string): boolean {
  if (process.platform !== 'linux') return false
  try {
    execFileSync('sync', ['--file-system', path], { stdio: 'ignore', timeout: 600_000 })
    return true
  } catch {
    return false
  }
}

async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Deletes the answers kept beside a database (they hold employees' ids and their matches). */
export function deleteKeptVacancyAnswers(databasePath: string): void {
  rmSync(keptFolder(databasePath), { recursive: true, force: true })
}

/** Bumped when the kept state's shape changes. */
const KEPT_VERSION = 1

const STATE_FILE = 'state.json'

/**
 * Answers by employee: the fingerprint of their inputs and their answer's sha256, valid for the
 * fingerprint `shared` of what every answer shares (the kept state, and an output folder's).
 */
export interface AnswerState {
  version: number
  shared: string
  employees: Record<string, { input: string; sha256: string }>
}

const keptFolder = (databasePath: string) => `${databasePath}.vacancy-answers`

/** A state file (see AnswerState); null when it is missing or unreadable. */
export function readAnswerState(path: string): AnswerState | null {
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as AnswerState
    return typeof state.shared === 'string' && typeof state.employees === 'object' ? state : null
  } catch {
    return null
  }
}
