import { describe, expect, it } from 'vitest'
import { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { SkillEvent } from '../../src/schemas/index.js'
import { parseBody } from '../../src/schemas/input-issues.js'

/** The error `parseBody` throws for a working_history event with `content`. */
function refusal(content: unknown): SkillhouseError {
  try {
    parseBody(
      SkillEvent,
      { external_id: 'ev1', event_type: 'working_history', timestamp: '2024-01-01', source: 'hr', content },
      'a skill event',
    )
  } catch (error) {
    if (error instanceof SkillhouseError) return error
    throw error
  }
  throw new Error('the event was accepted')
}

describe('the problems of a body sent to a union of variants', () => {
  it('names the fields of the free-text working_history when what was sent looks like it, not the job-linked one', () => {
    const error = refusal({ title: 'Developer', start_date: '2020-01-01', description: 'Built services.' })
    expect(error.status).toBe(400)
    expect(error.descriptions).toEqual(
      expect.arrayContaining([
        'content.job_title: is required (string)',
        'content.company: is required (string)',
        'content.job_description: is required (string)',
        'content.title: is not a field here; remove it',
      ]),
    )
    expect(error.descriptions.join('\n')).not.toContain('job_id')
  })

  it('names the job-linked variant when its fields were sent', () => {
    const error = refusal({ job_id: 'job-1', start_date: '2020-01-01', job_description: 'x' })
    expect(error.descriptions).toEqual(['content.job_description: is not a field here; remove it'])
  })

  it('names the one bad value of the variant whose fields were all sent', () => {
    const error = refusal({
      job_title: 'Developer',
      start_date: '2020-02-30',
      company: 'Initech',
      job_description: 'Built services.',
    })
    expect(error.status).toBe(422)
    expect(error.descriptions).toHaveLength(1)
    expect(error.descriptions[0]).toMatch(/^content\.start_date: /)
  })
})
