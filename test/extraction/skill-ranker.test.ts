import { describe, expect, it } from 'vitest'
import { deserialiseVocabulary, serialiseVocabulary } from '../../src/extraction/compile-vocabulary.js'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import { IMPLIED_SCORE, type LabelInput, SkillExtractor } from '../../src/extraction/skill-extractor.js'
import { labelsOfVocabulary } from '../../src/extraction/vocabulary-labels.js'
import { loadDefaultVocabulary } from '../../src/tenants/initialise-tenant.js'

const extractor = defaultExtractor()
type Language = 'auto' | 'en' | 'nl' | 'fr' | 'de'
const named = (text: string, language: Language = 'auto') =>
  extractor.extract(text, { language }).skills.map((skill) => skill.skill_id)
const ranked = (text: string, language: Language = 'auto', top = 10) =>
  extractor.extract(text, { language, top }).skills

describe('the skill ranker', () => {
  it('lists skills a text implies below the named ones, with the words that evidence them as span', () => {
    const text = 'Every morning I drew blood from the patients on the ward.'
    const skills = ranked(text, 'en')
    const phlebotomy = skills.find((skill) => skill.skill_id === 'skl-phlebotomy')
    expect(phlebotomy).toBeDefined()
    expect(phlebotomy?.mentions).toBe(0)
    expect(phlebotomy?.score).toBeLessThan(IMPLIED_SCORE)
    expect(text.slice(phlebotomy?.span.start, phlebotomy?.span.end)).toBe(phlebotomy?.span.text)
    expect(phlebotomy?.span.text.length).toBeGreaterThan(0)
    // By default only what the text names is found: an implied skill stays under the threshold.
    expect(named(text, 'en')).not.toContain('skl-phlebotomy')
    const scores = skills.map((skill) => skill.score)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))
  })

  it('keeps the mention finder alone when asked not to infer', () => {
    const text = 'Verantwoordelijk voor de maandafsluiting en de btw-aangiftes van drie vennootschappen.'
    const mentions = extractor.extract(text, { language: 'nl', top: 10, infer: false }).skills
    expect(mentions.every((skill) => skill.mentions > 0)).toBe(true)
    expect(ranked(text, 'nl').length).toBeGreaterThan(mentions.length)
  })

  it('ranks from labels alone when the vocabulary has no descriptions or clusters', () => {
    const bare = SkillExtractor.compile(labelsOfVocabulary(loadDefaultVocabulary()))
    const skills = bare.extract('Planned the delivery routes of thirty vans every morning', {
      language: 'en',
      top: 5,
    })
    expect(skills.skills.map((skill) => skill.skill_id)).toContain('skl-route-planning')
  })

  it('ranks the same after its compiled form is kept and read back', () => {
    const labels: LabelInput[] = labelsOfVocabulary(loadDefaultVocabulary())
    const compiled = SkillExtractor.compile(labels, [
      {
        skill_id: 'skl-phlebotomy',
        description: 'Taking blood samples from veins for testing.',
        cluster: 'c1',
      },
    ]).compiled
    const again = deserialiseVocabulary(serialiseVocabulary(compiled, 'stamp'), 'stamp')
    expect(again).toBeDefined()
    const text = 'Took blood samples from veins of outpatients'
    const before = SkillExtractor.load(compiled).extract(text, { language: 'en', top: 5 })
    const after = SkillExtractor.load(again as typeof compiled).extract(text, { language: 'en', top: 5 })
    expect(after).toEqual(before)
  })
})

describe('context rules of extraction', () => {
  it('takes nothing from an employer or benefits section', () => {
    const ad =
      'Je stuurt de ploeg van het magazijn aan.\n\nWat mag je verwachten?\n- Een groepsverzekering en maaltijdcheques.\n\nInteresse? Solliciteer hieronder.'
    expect(ranked(ad, 'nl', 20).map((skill) => skill.skill_id)).not.toContain('skl-pension-administration')
    expect(
      named('You lead the payroll team. What we offer: pension administration by our HR team.', 'en'),
    ).not.toContain('skl-pension-administration')
    expect(
      named('Sie leiten das Lager. Wir bieten: betriebliche Altersvorsorge, Jobrad.', 'de'),
    ).not.toContain('skl-pension-administration')
    // Outside such a section the same words count.
    expect(named('Verantwoordelijk voor de groepsverzekering van 400 medewerkers.', 'nl')).toContain(
      'skl-pension-administration',
    )
  })

  it('takes nothing from a negated clause, but counts the rest of the sentence', () => {
    const text =
      'You answer supplier questions about invoices; no experience with payroll administration is required.'
    const found = ranked(text, 'en', 20).map((skill) => skill.skill_id)
    expect(found).not.toContain('skl-payroll-administration')
    expect(named('Geen ervaring met boekhouding nodig, wel met Excel.', 'nl')).toEqual(
      expect.not.arrayContaining(['skl-bookkeeping', 'skl-accounting']),
    )
    expect(named('Keine Erfahrung mit Buchhaltung, aber sehr gute SAP-Kenntnisse.', 'de')).not.toContain(
      'skl-accounting',
    )
    expect(named("Vous n'avez pas de connaissances en comptabilité.", 'fr')).not.toContain('skl-accounting')
    expect(named('Not only Python but also SQL', 'en')).toEqual(
      expect.arrayContaining(['skl-python', 'skl-sql']),
    )
  })

  it('never takes a pronoun or function word for a skill', () => {
    const found = ranked('Daarom zoeken we een collega voor onze klanten in Antwerpen.', 'nl', 20)
    expect(found.map((skill) => skill.skill_id)).not.toContain('skl-building-services-engineering')
    expect(found.every((skill) => !['we', 'een', 'voor', 'in'].includes(skill.span.text.toLowerCase()))).toBe(
      true,
    )
  })

  it('reads an elided compound for each of its parts', () => {
    expect(named('Wij zoeken een heftruck- en reachtruckchauffeur.', 'nl')).toEqual(
      expect.arrayContaining(['skl-forklift-operation', 'skl-reach-truck-operation']),
    )
  })
})

describe('extraction of bad input', () => {
  it('answers an empty or wordless text with no skills', () => {
    expect(extractor.extract('', { top: 10 }).skills).toEqual([])
    expect(extractor.extract(' \n\t…— ', { top: 10 }).skills).toEqual([])
  })

  it('reads a text of a megabyte whole', () => {
    const line = 'Planned delivery routes, negotiated with carriers and kept the warehouse stock in SAP. '
    const text = line.repeat(Math.ceil(1_000_000 / line.length))
    const skills = extractor.extract(text, { language: 'auto', top: 10 }).skills
    expect(skills.map((skill) => skill.skill_id)).toEqual(
      expect.arrayContaining(['skl-negotiation', 'skl-route-planning']),
    )
    expect(skills.length).toBe(10)
  })

  it('reads binary garbage without failing', () => {
    let garbage = ''
    let seed = 7
    for (let index = 0; index < 50_000; index++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      garbage += String.fromCharCode(seed % 0xffff)
    }
    const result = extractor.extract(garbage, { top: 10 })
    expect(Array.isArray(result.skills)).toBe(true)
    for (const skill of result.skills) expect(skill.score).toBeGreaterThan(0)
  })

  it('finds the skills of each language in a text that mixes them', () => {
    const found = named(
      'Experienced in Python and SQL. Ervaring met boekhouding. Expérience en comptabilité. Erfahrung in Buchhaltung.',
    )
    expect(found).toEqual(expect.arrayContaining(['skl-python', 'skl-sql']))
  })
})
