import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { linkFileAtomic, syncFiles, writeFileAtomic, writeFileRenamed } from '../util/atomic-file.js'

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

  private constructor(
    databasePath: string,
    private readonly shared: string,
  ) {
    this.folder = keptFolder(databasePath)
    const state = readAnswerState(join(this.folder, STATE_FILE))
    this.known = state && state.version === KEPT_VERSION && state.shared === shared ? state.employees : {}
  }

  /** The answers kept beside the database at `databasePath`, valid for the shared fingerprint `shared`. */
  static open(databasePath: string, shared: string): KeptVacancyAnswers {
    return new KeptVacancyAnswers(databasePath, shared)
  }

  /** The sha256 of the employee's kept answer when their inputs are still `input`; else undefined. */
  answer(employeeId: string, input: string): string | undefined {
    const entry = this.known[employeeId]
    if (!entry || entry.input !== input || !existsSync(this.file(entry.sha256))) return undefined
    return entry.sha256
  }

  /** Keeps an answer's text (once per content); returns its sha256. */
  keep(text: string): string {
    const sha256 = createHash('sha256').update(text).digest('hex')
    const file = this.file(sha256)
    if (!existsSync(file)) {
      mkdirSync(this.folder, { recursive: true })
      writeFileRenamed(file, text, 0o444)
      this.unsynced.push(file)
    }
    return sha256
  }

  /** Places the kept answer `sha256` at `path`, whole. */
  place(sha256: string, path: string): void {
    linkFileAtomic(this.file(sha256), path)
  }

  /**
   * Records which answer each employee has now (and by which inputs), once the answers kept in
   * this run are on the disk; removes the others.
   */
  commit(employees: AnswerState['employees']): void {
    mkdirSync(this.folder, { recursive: true })
    syncFiles(this.unsynced)
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
