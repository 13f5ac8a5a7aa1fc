import { writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fileSystemError, namingFile, writeError } from '../../src/errors/file-system-errors.js'

describe('a file that cannot be written', () => {
  it('for want of space names the file meant, the cause and the fix in one line (a real ENOSPC: /dev/full)', () => {
    let thrown: unknown
    try {
      writeFileSync('/dev/full', 'x'.repeat(4096))
    } catch (error) {
      // A failed write() names no file: the writer names the one it meant (writeFileAtomic does).
      thrown = namingFile(error, '/nightly/out/manifest.json')
    }
    const error = fileSystemError(thrown)
    expect(error?.status).toBe(503)
    expect(error?.descriptions).toEqual([
      'cannot write /nightly/out/manifest.json: no space left on the device; free space on the device of /nightly/out (or use another folder) and run again',
    ])
  })

  it("for want of permission, as DuckDB says it of a database's log, names the file and the folder to fix", () => {
    const duckdb = new Error(
      'TransactionContext Error: Failed to commit: Cannot open file "/srv/skillhouse/demo.duckdb.wal": Permission denied',
    )
    const error = fileSystemError(duckdb)
    expect(error?.status).toBe(403)
    expect(error?.descriptions).toEqual([
      'cannot write /srv/skillhouse/demo.duckdb.wal: permission denied; give this user write access to /srv/skillhouse, or use another folder',
    ])
  })

  it('of a file written through a temporary one names the file meant, as DuckDB says it too', () => {
    const duckdb = new Error(
      'IO Error: Could not write file "/out/.matching.parquet.7.tmp": No space left on device',
    )
    expect((writeError(duckdb, '/out/matching.parquet') as Error).message).toBe(
      'cannot write /out/matching.parquet: no space left on the device; free space on the device of /out (or use another folder) and run again',
    )
    const other = new Error('Binder Error: column "x" not found')
    expect(writeError(other, '/out/matching.parquet')).toBe(other)
  })

  it('leaves every other error as it is', () => {
    expect(fileSystemError(new Error('Binder Error: column "x" not found'))).toBeUndefined()
    expect(fileSystemError(Object.assign(new Error('gone'), { code: 'ENOENT', path: '/x' }))).toBeUndefined()
    expect(fileSystemError('Permission denied')).toBeUndefined()
  })
})
