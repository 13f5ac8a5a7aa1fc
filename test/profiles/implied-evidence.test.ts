import { describe, expect, it } from 'vitest'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import { deriveEmployeeProfile } from '../../src/profiles/employee-profile.js'
import { type EventInput, evidenceOfEvent, IMPLIED_WEIGHT } from '../../src/profiles/evidence.js'

const extractor = defaultExtractor()
const referenced = { jobs: new Map(), courses: new Map() }
const knownSkills = new Set(extractor.skillIds)
const history = (id: string, description: string, start: string): EventInput => ({
  external_id: id,
  event_type: 'working_history',
  timestamp: start,
  content: { job_title: 'Ward assistant', job_description: description, start_date: start },
  language: 'en',
  ended_on: null,
})

describe('implied skills as evidence', () => {
  const text = 'Every morning I drew blood from the patients on the ward.'

  it('are evidence of their own, weaker than a named skill', () => {
    const evidence = evidenceOfEvent(history('e1', text, '2024-01-01'), extractor, referenced, knownSkills)
    const phlebotomy = evidence.find((item) => item.skill_id === 'skl-phlebotomy')
    expect(phlebotomy).toBeDefined()
    expect(phlebotomy?.strength).toBeLessThanOrEqual(IMPLIED_WEIGHT)
    const named = evidenceOfEvent(
      history('e2', 'Phlebotomy on the ward every morning.', '2024-01-01'),
      extractor,
      referenced,
      knownSkills,
    ).find((item) => item.skill_id === 'skl-phlebotomy')
    expect(named?.strength).toBeGreaterThan(phlebotomy?.strength ?? 1)
    expect(
      evidenceOfEvent(history('e1', text, '2024-01-01'), extractor, referenced, knownSkills, {
        implied: false,
      }).map((item) => item.skill_id),
    ).not.toContain('skl-phlebotomy')
  })

  it('put a skill on a profile only when several events imply it', () => {
    const asOf = '2026-01-01'
    const context = { extractor, referenced, knownSkills, asOf }
    const once = deriveEmployeeProfile('emp', [history('e1', text, '2025-06-01')], context)
    expect(once.skills.map((skill) => skill.skill_id)).not.toContain('skl-phlebotomy')
    const twice = deriveEmployeeProfile(
      'emp',
      [
        history('e1', text, '2025-06-01'),
        history('e2', 'Drew blood from outpatients and labelled the samples for the lab.', '2025-07-01'),
      ],
      context,
    )
    expect(twice.skills.map((skill) => skill.skill_id)).toContain('skl-phlebotomy')
  })
})
