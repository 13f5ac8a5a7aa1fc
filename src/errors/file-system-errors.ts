import { dirname } from 'node:path'
import { errors, type SkillhouseError } from './skillhouse-error.js'

/** What a failing file operation means, by the system's error code, and what fixes it. */
const CAUSES: Record<string, { status: 403 | 503; says: string; fix: (path: string) => string }> = {
  EACCES: {
    status: 403,
    says: 'permission denied',
    fix: (path) => `give this user write access to ${dirname(path)}, or use another folder`,
  },
  EPERM: {
    status: 403,
    says: 'operation not permitted',
    fix: (path) => `give this user write access to ${dirname(path)}, or use another folder`,
  },
  EROFS: {
    status: 403,
    says: 'the file system is read-only',
    fix: () => 'use a folder on a writable file system',
  },
  ENOSPC: {
    status: 503,
    says: 'no space left on the device',
    fix: (path) => `free space on the device of ${dirname(path)} (or use another folder) and run again`,
  },
  EDQUOT: {
    status: 503,
    says: "the user's disk quota is used up",
    fix: () => 'free space within the quota (or use another folder) and run again',
  },
}

/** The same causes as DuckDB words them, after the file's name in quotes. */
const DUCKDB_CAUSES: [RegExp, string][] = [
  [/Permission denied/i, 'EACCES'],
  [/Read-only file system/i, 'EROFS'],
  [/No space left on device/i, 'ENOSPC'],
  [/Disk quota exceeded/i, 'EDQUOT'],
]

/**
 * A file operation that failed for want of permission or space, as one line that names the file,
 * what the system said and what fixes it; undefined for any other error. Node's errors carry a
 * `code` and a `path`; DuckDB's (opening a database, writing its log) name the file in quotes.
 */
export function fileSystemError(error: unknown): SkillhouseError | undefined {
  if (!(error instanceof Error)) return undefined
  const { code, path } = error as NodeJS.ErrnoException
  if (code && path && code in CAUSES) return described(code, path)
  const quoted = /"([^"]+)"[^"]*$/.exec(error.message)?.[1]
  const cause = DUCKDB_CAUSES.find(([pattern]) => pattern.test(error.message))?.[1]
  return cause && quoted ? described(cause, quoted) : undefined
}

function described(code: string, path: string): SkillhouseError {
  const cause = CAUSES[code] as (typeof CAUSES)[string]
  const description = `cannot write ${path}: ${cause.says}; ${cause.fix(path)}`
  return cause.status === 403 ? errors.forbidden(description) : errors.unavailable(description)
}

/**
 * The error of a write of `path` with that path on it: a failed write() names no file (only a
 * failed open() does), and a write through a temporary file should name the file meant.
 */
export function namingFile(error: unknown, path: string): unknown {
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string')
    (error as NodeJS.ErrnoException).path = path
  return error
}

/**
 * A failed write of `path` (through a temporary file of its own, or by DuckDB) as one line naming
 * `path` itself, the cause and the fix, when the cause is one of permission or space; else the
 * error with `path` on it (see namingFile).
 */
export function writeError(error: unknown, path: string): unknown {
  if (!(error instanceof Error)) return error
  const code =
    (error as NodeJS.ErrnoException).code ??
    DUCKDB_CAUSES.find(([pattern]) => pattern.test(error.message))?.[1]
  return code && code in CAUSES ? described(code, path) : namingFile(error, path)
}
