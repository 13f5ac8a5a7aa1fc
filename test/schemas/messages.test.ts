import { describe, expect, it } from 'vitest'
import { Employee, SkillEvent } from '../../src/schemas/index.js'

const messages = (result: {
  success: boolean
  error?: { issues: { path: PropertyKey[]; message: string }[] }
}) => (result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`)

describe('validation messages', () => {
  it('say what would be valid and what was sent where a schema gives no message of its own', () => {
    expect(
      messages(Employee.safeParse({ external_id: 'e1', languages: [{ language: 'nl', level: 6 }] })),
    ).toEqual(['languages.0.level: must be at most 5; got 6'])
    expect(
      messages(
        SkillEvent.safeParse({
          external_id: 'ev1',
          event_type: 'skill_notes',
          timestamp: '2024-01-01',
          source: '',
          content: { text: 'sql' },
        }),
      ),
    ).toContain('source: must be at least 1 character long; got 0')
    expect(messages(Employee.safeParse({ external_id: 'e1', languages: 'nl' }))).toEqual([
      "languages: must be an array; got 'nl'",
    ])
    expect(messages(Employee.safeParse({}))).toEqual(['external_id: is required (string)'])
  })

  it('name an end before its start by the end, with both dates', () => {
    const history = (start: string, end?: string) =>
      SkillEvent.safeParse({
        external_id: 'ev1',
        event_type: 'working_history',
        timestamp: '2024-01-01',
        source: 'hr',
        content: {
          job_title: 'Dev',
          start_date: start,
          ...(end ? { end_date: end } : {}),
          company: 'X',
          job_description: 'y',
        },
      })
    expect(history('2021-01-01', '2020-01-01').success).toBe(false)
    expect(messages(history('2021-01-01', '2020-01-01'))).toContain(
      'content.end_date: must not be before start_date (2021-01-01); got 2020-01-01',
    )
    expect(history('2021-01-01', '2021-01-01').success).toBe(true)
    expect(history('2021-01-01').success).toBe(true)
  })

  it('keep the messages a schema gives', () => {
    expect(messages(Employee.safeParse({ external_id: 'a b' }))).toEqual([
      'external_id: must contain only letters, digits, hyphens and underscores',
    ])
  })
})
