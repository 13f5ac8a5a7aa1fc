import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  CONTENT_BY_EVENT_TYPE,
  Company,
  CUSTOM_PROPERTY_ENTITY_TYPES,
  CustomPropertyDefinition,
  ExternalId,
  IsoDate,
  JobMatchingRequest,
  LanguageLevel,
  MODEL_CONFIGURATIONS,
  PROPERTY_TYPES,
  SKILL_EVENT_TYPES,
  SkillEvent,
  supportsModernEvents,
  toVocabLanguage,
  VacancyMatchingRequest,
  VOCAB_LANGUAGES,
  VocabLanguageInput,
} from '../../src/schemas/index.js'

const idChar = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split(''),
)

describe('ExternalId', () => {
  it('accepts every string of 1 to 100 letters, digits, hyphens and underscores', () => {
    fc.assert(
      fc.property(fc.array(idChar, { minLength: 1, maxLength: 100 }), (chars) => {
        expect(ExternalId.safeParse(chars.join('')).success).toBe(true)
      }),
    )
  })

  it('rejects strings longer than 100 characters', () => {
    fc.assert(
      fc.property(fc.array(idChar, { minLength: 101, maxLength: 300 }), (chars) => {
        expect(ExternalId.safeParse(chars.join('')).success).toBe(false)
      }),
    )
  })

  it('rejects the empty string and any string with another character', () => {
    expect(ExternalId.safeParse('').success).toBe(false)
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 50 }).filter((value) => /[^a-zA-Z0-9_-]/.test(value)),
        (value) => {
          expect(ExternalId.safeParse(value).success).toBe(false)
        },
      ),
    )
  })
})

describe('Date', () => {
  it('accepts calendar dates and rejects impossible ones', () => {
    expect(IsoDate.safeParse('2024-02-29').success).toBe(true)
    expect(IsoDate.safeParse('2023-02-29').success).toBe(false)
    expect(IsoDate.safeParse('2024-02-30').success).toBe(false)
    expect(IsoDate.safeParse('2024-2-3').success).toBe(false)
  })
})

describe('vocabulary languages', () => {
  const cases: [string, string | undefined][] = [
    ['en', 'en_uk'],
    ['en_uk', 'en_uk'],
    ['en-GB', 'en_uk'],
    ['en-US', 'en_us'],
    ['en_us', 'en_us'],
    ['fr-CA', 'fr_ca'],
    ['fr-BE', 'fr'],
    ['zh-Hant-TW', 'zh_tw'],
    ['zh-TW', 'zh_tw'],
    ['zh-Hans-CN', 'zh_cn'],
    ['zh', 'zh_cn'],
    ['pt-BR', 'pt_br'],
    ['nb', 'no'],
    ['nb-NO', 'no'],
    ['nl-BE', 'nl'],
    ['de-AT', 'de'],
    ['sv-SE', 'sv'],
    ['xx', undefined],
    ['pl', undefined],
    ['english', undefined],
    ['', undefined],
  ]
  it.each(cases)('maps %s to %s', (tag, expected) => {
    expect(toVocabLanguage(tag)).toBe(expected)
  })

  it('maps every internal value to itself', () => {
    for (const language of VOCAB_LANGUAGES) expect(toVocabLanguage(language)).toBe(language)
  })

  it('rejects an unknown tag with the list of valid values', () => {
    const result = VocabLanguageInput.safeParse('klingon')
    expect(result.success).toBe(false)
    expect(result.error?.issues[0]?.message).toContain('en_uk, en_us, de, fr, nl')
  })
})

describe('Skill Event', () => {
  const examples: Record<string, unknown> = {
    working_history: {
      job_title: 'Data Engineer',
      start_date: '2020-01-01',
      company: 'Acme',
      job_description: 'ETL in Python',
    },
    education_history: { degree: 'MSc', field_of_study: 'Computer Science', institution: 'KU Leuven' },
    resume_document: { text: 'Ten years of SQL and Python.' },
    learning: { course_id: 'course-1' },
    feedback: { text: 'Great at negotiation', rating: 5 },
    goal: { title: 'Learn Kubernetes' },
    project: { name: 'Billing', description: 'Rebuilt invoicing on Kafka' },
    ticket: { title: 'Fix SAP export' },
    merge_request: {
      title: 'Add dbt model',
      repository: 'data/warehouse',
      changed_files: ['models/orders.sql'],
    },
    certificate: { name: 'PRINCE2 Foundation', issuer: 'Axelos', issue_date: '2021-05-01' },
    skill_notes: { skill_id: 'skl-sql', proficiency_level: 4 },
    skill_profile_feedback: { skill_id: 'skl-sql', action: 'reject' },
  }

  it.each(SKILL_EVENT_TYPES)('accepts a %s event with its own content', (type) => {
    const event = {
      external_id: 'ev-1',
      event_type: type,
      timestamp: '2024-01-01',
      content: examples[type],
      source: 'hr',
    }
    expect(SkillEvent.safeParse(event).success).toBe(true)
  })

  it('rejects content that does not match the event type and names the field', () => {
    const result = SkillEvent.safeParse({
      external_id: 'ev-1',
      event_type: 'certificate',
      timestamp: '2024-01-01',
      content: examples.goal,
      source: 'hr',
    })
    expect(result.success).toBe(false)
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain('content.name')
  })

  it('rejects an unknown event type with the list of valid ones', () => {
    const result = SkillEvent.safeParse({
      external_id: 'ev-1',
      event_type: 'blog_post',
      timestamp: '2024-01-01',
      content: {},
      source: 'hr',
    })
    expect(result.success).toBe(false)
    expect(JSON.stringify(result.error?.issues)).toContain('working_history')
  })

  it('has a content schema for every event type', () => {
    expect(Object.keys(CONTENT_BY_EVENT_TYPE).sort()).toEqual([...SKILL_EVENT_TYPES].sort())
  })
})

describe('enums and limits', () => {
  it('accepts every property type and custom property entity type, and nothing else', () => {
    for (const type of PROPERTY_TYPES)
      expect(CustomPropertyDefinition.safeParse({ property_name: 'x', property_type: type }).success).toBe(
        true,
      )
    expect(CustomPropertyDefinition.safeParse({ property_name: 'x', property_type: 'integer' }).success).toBe(
      false,
    )
    expect(CUSTOM_PROPERTY_ENTITY_TYPES).toHaveLength(12)
  })

  it('rejects property names with "__" or over 100 characters', () => {
    expect(
      CustomPropertyDefinition.safeParse({ property_name: 'cost__center', property_type: 'text' }).success,
    ).toBe(false)
    expect(
      CustomPropertyDefinition.safeParse({ property_name: 'x'.repeat(101), property_type: 'text' }).success,
    ).toBe(false)
  })

  it('defaults a language level to 2 and bounds it to 1..5', () => {
    expect(LanguageLevel.parse({ language: 'nl' }).level).toBe(2)
    fc.assert(
      fc.property(fc.integer({ min: -20, max: 20 }), (level) => {
        expect(LanguageLevel.safeParse({ language: 'nl', level }).success).toBe(level >= 1 && level <= 5)
      }),
    )
  })

  it('bounds vat to 15 characters and names to 255', () => {
    const company = { external_id: 'c1', name: 'Acme', vat: 'BE0123456789' }
    expect(Company.safeParse(company).success).toBe(true)
    expect(Company.safeParse({ ...company, vat: 'X'.repeat(16) }).success).toBe(false)
    expect(Company.safeParse({ ...company, name: 'X'.repeat(256) }).success).toBe(false)
  })

  it('enforces the job matching ranges of section 8 and applies the defaults', () => {
    const parsed = JobMatchingRequest.parse({ filters: [], weights: [] })
    expect(parsed).toMatchObject({
      limit: 10,
      match_limit_per_entity: 10,
      score_min_threshold: 0.5,
      include_overqualified: true,
    })
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 120 }), (limit) => {
        expect(JobMatchingRequest.safeParse({ filters: [], weights: [], limit }).success).toBe(
          limit >= 1 && limit <= 50,
        )
        expect(
          JobMatchingRequest.safeParse({ filters: [], weights: [], match_limit_per_entity: limit }).success,
        ).toBe(limit >= 1 && limit <= 100)
      }),
    )
    fc.assert(
      fc.property(fc.double({ min: -1, max: 2, noNaN: true }), (value) => {
        expect(
          JobMatchingRequest.safeParse({ filters: [], weights: [], score_min_threshold: value }).success,
        ).toBe(value >= 0 && value <= 1)
      }),
    )
  })

  it('accepts vacancy-only filters for vacancies and refuses them for jobs', () => {
    const geo = { filter: 'max_geo_distance', max_geo_distance: 25 }
    expect(VacancyMatchingRequest.safeParse({ filters: [geo] }).success).toBe(true)
    expect(JobMatchingRequest.safeParse({ filters: [geo], weights: [] }).success).toBe(false)
  })

  it('orders model configurations so that only MC_2025_Q1_V1 and later support ticket events', () => {
    expect(MODEL_CONFIGURATIONS.filter(supportsModernEvents)).toEqual(['MC_2025_Q1_V1', 'MC_2025_Q3_V1'])
  })
})
