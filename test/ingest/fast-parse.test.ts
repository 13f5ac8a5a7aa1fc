import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fastParseOf } from '../../src/records/fast-parse.js'
import { Employee, SkillEventRow } from '../../src/schemas/index.js'

const valid = {
  employee_id: 'emp-1',
  external_id: 'ev-1',
  event_type: 'working_history',
  timestamp: '2024-02-29',
  content: { company: 'Acme', job_description: 'SQL', job_title: 'Analyst', start_date: '2020-01-01' },
  source: 'hr',
}

// Values near the schema's edges: right and wrong types, lengths, dates, numbers and keys.
const edgeString = fc.oneof(
  fc.constantFrom(
    '',
    'x',
    'emp-1',
    'bad id',
    '2025-02-30',
    '2024-02-29',
    '2023-02-29',
    '2025-01-01T00:00:00Z',
  ),
  fc.constantFrom('validate', 'reject', 'open', 'passed', 'goal', 'ticket', 'dynamic', 'working_history'),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(
    'a'.repeat(100),
    'a'.repeat(101),
    'a'.repeat(255),
    'a'.repeat(256),
    '😀'.repeat(250),
    '😀'.repeat(251),
  ),
)
const edgeValue = fc.oneof(
  edgeString,
  fc.constantFrom(0, -0, 1, 1.5, 5, 6, 100, 100.5, -1, 1e21, Number.MAX_SAFE_INTEGER + 2, true, false, null),
  fc.array(edgeString, { maxLength: 3 }),
)
const contentKeys = [
  'job_title',
  'start_date',
  'end_date',
  'company',
  'job_description',
  'job_id',
  'degree',
  'field_of_study',
  'institution',
  'description',
  'text',
  'file_name',
  'title',
  'provider',
  'duration_hours',
  'course_id',
  'result',
  'score',
  'given_by',
  'rating',
  'target_date',
  'status',
  'name',
  'role',
  'technologies',
  'system',
  'ticket_key',
  'labels',
  'repository',
  'changed_files',
  'issuer',
  'issue_date',
  'expiry_date',
  'credential_id',
  'skill_id',
  'note',
  'proficiency_level',
  'action',
  'comment',
  'extra',
  '__proto__',
]
const row = fc.record(
  {
    employee_id: edgeString,
    external_id: edgeString,
    event_type: fc.constantFrom(
      'working_history',
      'learning',
      'feedback',
      'goal',
      'project',
      'merge_request',
      'skill_profile_feedback',
      'certificate',
      'unknown',
    ),
    timestamp: edgeString,
    content: fc.oneof(fc.dictionary(fc.constantFrom(...contentKeys), edgeValue, { maxKeys: 6 }), edgeValue),
    source: edgeString,
    mood: edgeString,
  },
  { requiredKeys: [] },
)

describe('the compiled parse of a row schema', () => {
  it('accepts a valid skill event and returns what zod returns, keys in the schema order', () => {
    const parsed = fastParseOf(SkillEventRow)?.(valid)
    expect(JSON.stringify(parsed)).toBe(JSON.stringify(SkillEventRow.parse(valid)))
  })

  it('answers only for rows zod accepts, and then with the same record in the same key order', () => {
    const parse = fastParseOf(SkillEventRow)
    expect(parse).not.toBeNull()
    fc.assert(
      fc.property(row, (input) => {
        const fast = parse?.(input)
        const zod = SkillEventRow.safeParse(input)
        if (fast !== undefined) {
          expect(zod.success).toBe(true)
          expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data))
        }
      }),
      { numRuns: 20_000 },
    )
  })

  it('accepts the rows zod accepts among mutations of a valid event', () => {
    const parse = fastParseOf(SkillEventRow)
    fc.assert(
      fc.property(fc.constantFrom(...contentKeys.slice(0, 5)), edgeValue, (key, value) => {
        const input = { ...valid, content: { ...valid.content, [key]: value } }
        expect(parse?.(input) !== undefined).toBe(SkillEventRow.safeParse(input).success)
      }),
      { numRuns: 5_000 },
    )
  })

  it('leaves a JSON __proto__ key, unknown fields and wrong types to zod', () => {
    const parse = fastParseOf(SkillEventRow)
    expect(
      parse?.(
        JSON.parse(
          '{"employee_id":"e","external_id":"x","event_type":"goal","timestamp":"2025-01-01","content":{"title":"t","__proto__":{}},"source":"s"}',
        ),
      ),
    ).toBeUndefined()
    expect(parse?.({ ...valid, mood: 'happy' })).toBeUndefined()
    expect(parse?.({ ...valid, content: JSON.stringify(valid.content) })).toBeUndefined()
  })

  it('gives no compiled parse to a schema with defaults or transforms', () => {
    expect(fastParseOf(Employee)).toBeNull()
  })
})
