import { basename } from 'node:path'
import type { ReferenceTarget } from '../records/entity-kinds.js'
import { TARGET_NAMES } from '../records/row-check.js'
import { byPlace, type Reject } from './rejects.js'

const MISSING = /^(.+?) '(.+)' does not exist; ingest it first \(404 Not Found\)$/

/**
 * Rows of one file rejected for one cause, which a summary shows in one line: the rows that refer
 * to one record this ingest rejected (30 events of an employee rejected for their email), or the
 * file's other rejected rows.
 */
export interface RejectCause {
  rows: number
  /** The record those rows refer to that this ingest rejected (`employee 'e-7'`); null: other causes. */
  rejected_record: string | null
  /** That record's own reject (`employees.csv line 12: email: …`), else the first other row's (`line 4: …`). */
  reason: string
}

/**
 * The records an ingest rejected, by what refers to them (`employee 'e-7'`), so that a later
 * file's row that refers to one says why it is missing, pointing at that reject, instead of a
 * 404 that looks unrelated (an employee rejected for their email, then each of their events).
 */
export class RejectedReferences {
  private readonly rejected = new Map<string, string>()

  /** Notes the rejected rows of one file of `entity`. */
  note(entity: string, rejects: readonly Reject[]): void {
    const name = TARGET_NAMES[entity as ReferenceTarget]
    if (!name) return
    for (const reject of rejects) {
      const id = (reject.record as { external_id?: unknown } | undefined)?.external_id
      if (typeof id !== 'string') continue
      this.rejected.set(
        `${name}\u0000${id}`,
        `${basename(reject.file)} ${placeOf(reject)}: ${problemOf(reject)}`,
      )
    }
  }

  /**
   * The rejects (in the order of their lines) with each 404 of a record rejected before explained
   * by that reject, and their causes: one for each such record, then one for all the others.
   */
  explain(found: readonly Reject[]): { rejects: Reject[]; causes: RejectCause[] } {
    const byRecord = new Map<string, RejectCause>()
    const others: RejectCause = { rows: 0, rejected_record: null, reason: '' }
    const rejects = [...found].sort(byPlace).map((reject) => {
      const sources = reject.problems.map((problem) => this.rejectedRecordOf(problem.reason))
      const problems = reject.problems.map((problem, index) => {
        const source = sources[index]
        return source === undefined
          ? problem
          : {
              ...problem,
              reason: `${source.record} was rejected by this ingest (${source.earlier}); fix that row and ingest both files again`,
            }
      })
      // The reject's reason is its field's problem, else its first: so is its cause.
      const index = Math.max(
        0,
        problems.findIndex((problem) => problem.field === reject.field),
      )
      const explained = { ...reject, reason: problems[index]?.reason ?? reject.reason, problems }
      const shown = sources[index]
      const cause = shown === undefined ? others : byRecord.get(shown.record)
      if (cause) cause.rows += 1
      else if (shown !== undefined)
        byRecord.set(shown.record, { rows: 1, rejected_record: shown.record, reason: shown.earlier })
      if (cause === others && others.rows === 1) others.reason = `${placeOf(reject)}: ${problemOf(explained)}`
      return explained
    })
    return { rejects, causes: [...byRecord.values(), ...(others.rows > 0 ? [others] : [])] }
  }

  /** The record a 404 reason names (`employee 'e-7'`) and its reject, when this ingest rejected it. */
  private rejectedRecordOf(reason: string): { record: string; earlier: string } | undefined {
    const match = MISSING.exec(reason)
    const earlier = match ? this.rejected.get(`${match[1]}\u0000${match[2]}`) : undefined
    return earlier === undefined ? undefined : { record: `${match?.[1]} '${match?.[2]}'`, earlier }
  }
}

/** Causes a summary shows at most for one file; the rejects file holds them all. */
export const SHOWN_REJECT_CAUSES = 10

/**
 * The causes of one file's rejected rows, one line each (`30 rows of employee 'e-7' rejected: the
 * employee was rejected (employees.csv line 12: email: …)`), at most SHOWN_REJECT_CAUSES.
 */
export function rejectCauseLines(causes: readonly RejectCause[]): string[] {
  const lines = causes.slice(0, SHOWN_REJECT_CAUSES).map((cause) => {
    const rows = `${cause.rows} ${cause.rows === 1 ? 'row' : 'rows'}`
    if (cause.rejected_record === null)
      return causes.length === 1
        ? `first: ${cause.reason}`
        : `${rows} rejected for other reasons (first: ${cause.reason})`
    const target = cause.rejected_record.replace(/ '.*'$/, '')
    return `${rows} of ${cause.rejected_record} rejected: the ${target} was rejected (${cause.reason})`
  })
  const more = causes.length - lines.length
  if (more > 0) lines.push(`${more} more causes: see the rejects file`)
  return lines
}

function placeOf(reject: Reject): string {
  return reject.line === null ? `row ${reject.row}` : `line ${reject.line}`
}

function problemOf(reject: Reject): string {
  return `${reject.field ? `${reject.field}: ` : ''}${reject.reason}`
}
