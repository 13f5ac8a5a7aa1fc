import { describe, expect, it } from 'vitest'
import { deserialiseVocabulary, serialiseVocabulary } from '../../src/extraction/compile-vocabulary.js'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import { type LabelInput, SkillExtractor } from '../../src/extraction/skill-extractor.js'
import { Stemmers } from '../../src/extraction/text-tokens.js'

const TEXTS = [
  'Senior data engineer: ETL pipelines in Python and SQL on Azure, with dbt and Terraform; Kubernetes (K8s).',
  'Front-end development in JavaScript and TypeScript, back-end in C# on .NET and Node.js.',
  'Verantwortlich für die Buchhaltung und Projektmanagementerfahrung mit SAP.',
  'Verantwoordelijk voor de boekhouding en onderhandelingen met leveranciers.',
  'Responsable de la comptabilité et de la gestion de projet.',
  'Processed AP invoices daily; HR onboarding and payroll.',
  'Moved to the Ghent office in March.',
  '',
]
const LANGUAGES = ['auto', 'en', 'nl', 'fr', 'de'] as const

const skillsOf = (extractor: SkillExtractor, text: string, language: (typeof LANGUAGES)[number]) =>
  extractor.extract(text, { language }).skills.map((skill) => [skill.skill_id, skill.score] as const)

describe('the compiled vocabulary', () => {
  it('gives an extractor that loads it (as a worker thread does) the same findings', () => {
    const compiling = defaultExtractor()
    // What a worker receives: a structured clone, its typed arrays on the same shared memory.
    const loaded = SkillExtractor.load(structuredClone(compiling.compiled))
    for (const text of TEXTS)
      for (const language of LANGUAGES)
        expect(loaded.extract(text, { language })).toEqual(compiling.extract(text, { language }))
  })

  it('hands visitSkills the skills and scores extract finds', () => {
    const extractor = defaultExtractor()
    for (const text of TEXTS) {
      for (const language of LANGUAGES) {
        const visited: [string, number][] = []
        extractor.visitSkills(text, language, (skillId, score) => visited.push([skillId, score]))
        expect(visited.sort()).toEqual([...skillsOf(extractor, text, language)].sort())
      }
    }
  })

  it('finds the same skills after its table of known words has grown many times', () => {
    const fresh = SkillExtractor.load(defaultExtractor().compiled)
    const before = TEXTS.map((text) => skillsOf(fresh, text, 'auto'))
    const words = Array.from({ length: 40_000 }, (_, index) => `w${index.toString(36)}x`).join(' ')
    expect(fresh.extract(`${words} Python`).skills.map((skill) => skill.skill_id)).toContain('skl-python')
    expect(TEXTS.map((text) => skillsOf(fresh, text, 'auto'))).toEqual(before)
  })

  it('keeps a shared label for every skill it belongs to, and the stronger of a skill twice on one label', () => {
    const labels: LabelInput[] = [
      { skill_id: 's-gcp', language: 'en_uk', kind: 'name', label: 'Google Cloud Platform' },
      { skill_id: 's-gcp', language: 'en_uk', kind: 'alias', label: 'GCP' },
      { skill_id: 's-gcp-arch', language: 'en_uk', kind: 'name', label: 'Cloud architecture on GCP' },
      { skill_id: 's-gcp-arch', language: 'en_uk', kind: 'alias', label: 'GCP' },
      { skill_id: 's-neg', language: 'en_uk', kind: 'alias', label: 'Negotiation' },
      { skill_id: 's-neg', language: 'en_uk', kind: 'name', label: 'Negotiation' },
    ]
    const extractor = SkillExtractor.compile(labels)
    const found = extractor.extract('GCP and Negotiation', { minScore: 0 }).skills
    const score = (id: string) => found.find((skill) => skill.skill_id === id)?.score ?? 0
    expect(score('s-gcp')).toBeGreaterThan(0)
    expect(score('s-gcp')).toBe(score('s-gcp-arch'))
    // The name (1) beats the alias (0.95) on the same label; found once, exactly and stemmed.
    const negotiation = found.find((skill) => skill.skill_id === 's-neg')
    expect(negotiation?.mentions).toBe(1)
    expect(negotiation?.score).toBe(
      SkillExtractor.compile([labels[5] as LabelInput]).extract('Negotiation').skills[0]?.score,
    )
  })

  it('is kept as bytes for another process, and read back only for the same stamp', () => {
    const compiling = defaultExtractor()
    const bytes = serialiseVocabulary(compiling.compiled, 'compiler-1|vocabulary-1')
    expect(deserialiseVocabulary(bytes, 'compiler-2|vocabulary-1')).toBeUndefined()
    const kept = deserialiseVocabulary(bytes, 'compiler-1|vocabulary-1')
    expect(kept).toBeDefined()
    const loaded = SkillExtractor.load(kept as NonNullable<typeof kept>)
    for (const text of TEXTS)
      for (const language of LANGUAGES)
        expect(loaded.extract(text, { language })).toEqual(compiling.extract(text, { language }))
  })
})

describe('stems remembered across extractors', () => {
  it('finds the same skills with stems learned by another extractor, and reports only the stems it computed', () => {
    const first = SkillExtractor.load(defaultExtractor().compiled)
    first.stems.reportLearned()
    const found = TEXTS.map((text) => skillsOf(first, text, 'auto'))
    const learned = first.stems.takeLearned()
    expect(learned.en?.length).toBeGreaterThan(0)
    expect(first.stems.takeLearned()).toEqual({})

    const second = SkillExtractor.load(defaultExtractor().compiled)
    second.stems.remember(first.stems.pairs(), { unsaved: false })
    expect(second.stems.unsaved).toBe(0)
    expect(second.stems.size).toBe(first.stems.size)
    second.stems.reportLearned()
    expect(TEXTS.map((text) => skillsOf(second, text, 'auto'))).toEqual(found)
    // Every word of those texts was known: nothing was stemmed again, nothing is new to keep.
    expect(second.stems.takeLearned()).toEqual({})
    expect(second.stems.unsaved).toBe(0)
    skillsOf(second, 'Negotiations with suppliers and accountants', 'en')
    expect(second.stems.takeLearned().en).toEqual(expect.arrayContaining(['negotiations', 'accountants']))
    expect(second.stems.unsaved).toBeGreaterThan(0)
  })
})

describe('a full stem cache', () => {
  it('stops remembering at 200,000 words of a language, keeps those it has and still stems', () => {
    const stems = new Stemmers()
    const pairs: string[] = []
    for (let index = 0; index < 200_000; index++) pairs.push(`kept${index}`, `kept${index}`)
    stems.remember({ en: pairs }, { unsaved: false })
    expect(stems.size).toBe(200_000)
    expect(stems.stem('accountants', 'en')).toBe(new Stemmers().stem('accountants', 'en'))
    expect(stems.size).toBe(200_000)
    expect(stems.unsaved).toBe(0)
    expect(stems.pairs().en?.slice(0, 2)).toEqual(['kept0', 'kept0'])
    // Words not made of letters are their own stem and are not remembered.
    const fresh = new Stemmers()
    expect(fresh.stem('k8s-cluster', 'en')).toBe('k8s-cluster')
    expect(fresh.size).toBe(0)
  })
})
