import { describe, expect, it } from 'vitest'
import {
  RejectedReferences,
  rejectCauseLines,
  SHOWN_REJECT_CAUSES,
} from '../../src/ingest/rejected-references.js'
import type { Reject } from '../../src/ingest/rejects.js'

const missing = (employee: string) => `employee '${employee}' does not exist; ingest it first (404 Not Found)`
const reject = (line: number, field: string, reason: string, record: unknown = {}): Reject => ({
  file: '/in/file.csv',
  line,
  row: line - 1,
  field,
  reason,
  problems: [{ field, reason }],
  record,
})

describe('the causes of the rows a file had rejected', () => {
  it('are one for each record this ingest rejected that rows refer to, then one for the others', () => {
    const references = new RejectedReferences()
    references.note('employees', [
      {
        ...reject(12, 'email', "must be a valid email; got 'bad@'", { external_id: 'e-7' }),
        file: '/in/employees.csv',
      },
    ])
    const { rejects, causes } = references.explain([
      reject(9, 'employee_id', missing('e-7')),
      reject(3, 'employee_id', missing('e-404')),
      reject(5, 'employee_id', missing('e-7')),
    ])
    expect(rejects.map((row) => row.line)).toEqual([3, 5, 9])
    expect(causes).toEqual([
      {
        rows: 2,
        rejected_record: "employee 'e-7'",
        reason: "employees.csv line 12: email: must be a valid email; got 'bad@'",
      },
      { rows: 1, rejected_record: null, reason: `line 3: employee_id: ${missing('e-404')}` },
    ])
    expect(rejectCauseLines(causes)).toEqual([
      "2 rows of employee 'e-7' rejected: the employee was rejected (employees.csv line 12: email: must be a valid email; got 'bad@')",
      `1 row rejected for other reasons (first: line 3: employee_id: ${missing('e-404')})`,
    ])
  })

  it('are shown at most ten to a file, saying how many more the rejects file holds', () => {
    const causes = Array.from({ length: SHOWN_REJECT_CAUSES + 3 }, (_, index) => ({
      rows: 1,
      rejected_record: `employee 'e-${index}'`,
      reason: `employees.csv line ${index + 2}: email: bad`,
    }))
    const lines = rejectCauseLines(causes)
    expect(lines).toHaveLength(SHOWN_REJECT_CAUSES + 1)
    expect(lines.at(-1)).toBe('3 more causes: see the rejects file')
  })
})
