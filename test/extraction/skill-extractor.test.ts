import { describe, expect, it } from 'vitest'
import { detectTextLanguage } from '../../src/extraction/detect-language.js'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import { type LabelInput, SkillExtractor } from '../../src/extraction/skill-extractor.js'

const label = (skill_id: string, language: string, kind: 'name' | 'alias', text: string): LabelInput => ({
  skill_id,
  language,
  kind,
  label: text,
})
const vocabulary = SkillExtractor.compile([
  label('s-js', 'en_uk', 'name', 'JavaScript'),
  label('s-js', 'en_uk', 'alias', 'JS'),
  label('s-js', 'en_uk', 'alias', 'ECMAScript'),
  label('s-ml', 'en_uk', 'name', 'Machine Learning'),
  label('s-mle', 'en_uk', 'name', 'Machine Learning Engineering'),
  label('s-fe', 'en_uk', 'name', 'Frontend Development'),
  label('s-neg', 'en_uk', 'name', 'Negotiation'),
  label('s-neg', 'nl', 'name', 'Onderhandelen'),
  label('s-neg', 'de', 'name', 'Verhandlung'),
  label('s-acc', 'fr', 'name', 'Comptabilité'),
  label('s-acc', 'en_uk', 'name', 'Accounting'),
  label('s-acc', 'de', 'name', 'Buchhaltung'),
  label('s-ap', 'en_uk', 'name', 'Accounts Payable'),
  label('s-ap', 'en_uk', 'alias', 'AP'),
  label('s-mgmt', 'en_uk', 'name', 'Management'),
  label('s-pm', 'en_uk', 'name', 'Project Management'),
  label('s-pm', 'de', 'name', 'Projektmanagement'),
  label('s-r', 'en_uk', 'name', 'R'),
  label('s-r', 'en_uk', 'alias', 'R programming'),
  label('s-cs', 'en_uk', 'name', 'C#'),
  label('s-net', 'en_uk', 'name', '.NET'),
])
const ids = (text: string, language: 'auto' | 'en' | 'nl' | 'fr' | 'de' = 'auto') =>
  vocabulary.extract(text, { language }).skills.map((skill) => skill.skill_id)

describe('the skill extractor', () => {
  it('ignores case and accents', () => {
    expect(ids('javascript and COMPTABILITE')).toEqual(expect.arrayContaining(['s-js', 's-acc']))
    expect(ids('Expérience en comptabilite générale', 'fr')).toContain('s-acc')
  })

  it('reads hyphenated and separated spellings of one-word labels', () => {
    expect(ids('front-end development in JavaScript')).toContain('s-fe')
    expect(ids('frontend development')).toContain('s-fe')
  })

  it('matches inflected forms through stemming in the text language', () => {
    expect(ids('Experienced in negotiating supplier contracts', 'en')).toContain('s-neg')
    expect(ids('Veel ervaring met onderhandelen en onderhandelingen', 'nl')).toContain('s-neg')
    expect(ids('Führte Verhandlungen mit Lieferanten', 'de')).toContain('s-neg')
  })

  it('lets the longest, most specific candidate win where candidates overlap', () => {
    const found = ids('Five years of machine learning engineering')
    expect(found).toContain('s-mle')
    expect(found).not.toContain('s-ml')
  })

  it('matches short all-capital abbreviations only when written in capitals', () => {
    expect(ids('Processed AP invoices daily')).toContain('s-ap')
    expect(ids('we will ap the plan')).not.toContain('s-ap')
  })

  it('does not match one-letter labels alone, but their aliases', () => {
    expect(ids('R&D budget')).not.toContain('s-r')
    expect(ids('Statistics in R programming')).toContain('s-r')
  })

  it('keeps symbols that belong to a word', () => {
    expect(ids('Backend in C# on .NET')).toEqual(expect.arrayContaining(['s-cs', 's-net']))
    expect(ids('the net result')).not.toContain('s-net')
  })

  it('finds labels inside German compounds', () => {
    expect(ids('Langjährige Projektmanagementerfahrung', 'de')).toContain('s-pm')
  })

  it('ranks specific skills above generic ones', () => {
    const skills = vocabulary.extract('Project management and management of people').skills
    expect(skills[0]?.skill_id).toBe('s-pm')
    const generic = skills.find((skill) => skill.skill_id === 's-mgmt')
    expect(generic === undefined || generic.score < (skills[0]?.score ?? 0)).toBe(true)
  })

  it('reports the span of the strongest mention and adds up repeated mentions', () => {
    const text = 'JS daily; JavaScript and more JavaScript'
    const skill = vocabulary.extract(text).skills.find((found) => found.skill_id === 's-js')
    expect(skill?.span).toEqual({ start: 10, end: 20, text: 'JavaScript' })
    expect(skill?.mentions).toBe(3)
    const once = vocabulary.extract('JavaScript').skills[0]
    expect(skill?.score).toBeGreaterThan(once?.score ?? 1)
  })

  it('finds nothing in text without skills', () => {
    expect(ids('Moved to the Ghent office in March.')).toEqual([])
  })

  it('names skills in the requested vocabulary language, falling back to en_uk', () => {
    const skill = vocabulary.extract('Buchhaltung', { vocabLanguage: 'de' }).skills[0]
    expect(skill?.skill_name).toBe('Buchhaltung')
    expect(vocabulary.extract('JavaScript', { vocabLanguage: 'de' }).skills[0]?.skill_name).toBe('JavaScript')
  })
})

describe('language detection', () => {
  it.each([
    ['Responsible for the accounting and reporting of the subsidiaries', 'en'],
    ['Verantwoordelijk voor de boekhouding en de rapportering van de dochterondernemingen', 'nl'],
    ['Responsable de la comptabilité et du reporting des filiales', 'fr'],
    ['Verantwortlich für die Buchhaltung und das Berichtswesen der Tochtergesellschaften', 'de'],
    ['Fix SAP export', 'en'],
  ])('reads "%s" as %s', (text, language) => {
    expect(detectTextLanguage(text)).toBe(language)
  })
})

describe('the embedded default vocabulary', () => {
  it('finds the skills a reader would name in a work history', () => {
    const found = defaultExtractor()
      .extract(
        'Senior data engineer: ETL pipelines in Python and SQL on Azure, with dbt and Terraform; Kubernetes (K8s) for the platform.',
      )
      .skills.map((skill) => skill.skill_id)
    expect(found).toEqual(
      expect.arrayContaining([
        'skl-python',
        'skl-sql',
        'skl-dbt',
        'skl-terraform',
        'skl-kubernetes',
        'skl-microsoft-azure',
      ]),
    )
  })
})
