import { mkdirSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Problem } from '../records/row-check.js'
import { AtomicWriteStream } from '../util/atomic-file.js'

/** A rejected input row: where it was, what is wrong, and the row itself so nothing is lost. */
export interface Reject {
  file: string
  line: number | null
  row: number
  field: string
  reason: string
  problems: Problem[]
  record?: unknown
}

/**
 * Writes `<dir>/<name>.ndjson` whole or not at all (`name` is the input's file name, or where two
 * inputs share one, see ingest-paths.ts); an earlier rejects file of the same input is replaced.
 */
export async function writeRejects(dir: string, name: string, rejects: Reject[]): Promise<string> {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${basename(name)}.ndjson`)
  const stream = new AtomicWriteStream(path)
  const ordered = [...rejects].sort(byPlace)
  for (const reject of ordered) stream.write(`${rejectLine(reject)}\n`)
  await stream.commit()
  return path
}

/** Orders rejects as their rows stand in the file. */
export function byPlace(a: Reject, b: Reject): number {
  return (a.line ?? a.row) - (b.line ?? b.row) || a.row - b.row
}

/**
 * A reject as one line of JSON. A record nested too deeply for JSON.stringify (thousands of
 * levels) is left out, saying so: its line in the input file still holds it.
 */
function rejectLine(reject: Reject): string {
  try {
    return JSON.stringify(reject)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    const { record: _record, ...rest } = reject
    return JSON.stringify({
      ...rest,
      record: null,
      record_omitted: 'nested too deeply to write here; see its line in the file',
    })
  }
}

/** Removes the rejects file `writeRejects` would write for `name`, if there is one; null. */
export function removeRejects(dir: string, name: string): null {
  rmSync(join(dir, `${basename(name)}.ndjson`), { force: true })
  return null
}
