import { basename } from 'node:path'
import type { ReferenceTarget } from '../records/entity-kinds.js'
import { TARGET_NAMES } from '../records/row-check.js'
import type { Reject } from './rejects.js'

const MISSING = /^(.+?) '(.+)' does not exist; ingest it first \(404 Not Found\)$/

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
      const where = `${basename(reject.file)}${reject.line === null ? ` row ${reject.row}` : ` line ${reject.line}`}`
      this.rejected.set(
        `${name}\u0000${id}`,
        `${where}: ${reject.field ? `${reject.field}: ` : ''}${reject.reason}`,
      )
    }
  }

  /** The rejects with each 404 of a record rejected before explained by that reject. */
  explain(rejects: readonly Reject[]): Reject[] {
    if (this.rejected.size === 0) return [...rejects]
    return rejects.map((reject) => {
      const problems = reject.problems.map((problem) => {
        const match = MISSING.exec(problem.reason)
        const earlier = match ? this.rejected.get(`${match[1]}\u0000${match[2]}`) : undefined
        return earlier === undefined
          ? problem
          : {
              ...problem,
              reason: `${match?.[1]} '${match?.[2]}' was rejected by this ingest (${earlier}); fix that row and ingest both files again`,
            }
      })
      const first = problems.find((problem) => problem.field === reject.field) ?? problems[0]
      return { ...reject, reason: first?.reason ?? reject.reason, problems }
    })
  }
}
