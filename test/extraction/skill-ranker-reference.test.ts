import { describe, expect, it } from 'vitest'
import type { CompiledRanker } from '../../src/extraction/compile-ranker.js'
import type { TextLanguageCode } from '../../src/extraction/detect-language.js'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import { type LabelInput, SkillExtractor } from '../../src/extraction/skill-extractor.js'
import { RANKED_SKILLS, SkillRanker } from '../../src/extraction/skill-ranker.js'
import { contextRole, FUNCTION_WORD, GENERIC_WORD } from '../../src/extraction/text-context.js'
import { normaliseWord, scanWords } from '../../src/extraction/text-tokens.js'
import { TEXT_LANGUAGES } from '../../src/extraction/vocabulary-input.js'

const extractor = defaultExtractor()
const compiled = extractor.compiled.ranker

interface Ranked {
  skill: number
  score: number
  token: number
}

/** A term of a text and the token it stands at, as the extractor hands them to the ranker. */
interface TextTerm {
  term: number
  token: number
}

/** The terms of a text in a language: its words, normalised and stemmed, that some unit holds there. */
function termsOf(ranker: SkillRanker, text: string, language: number): TextTerm[] {
  const code = TEXT_LANGUAGES[language] as TextLanguageCode
  const terms: TextTerm[] = []
  for (const [token, span] of scanWords(text).entries()) {
    const norm = normaliseWord(text.slice(span.start, span.end))
    if (norm.length < 2 || contextRole(norm) & (FUNCTION_WORD | GENERIC_WORD)) continue
    const term = ranker.termOf(extractor.stems.stem(norm, code))
    if (term >= 0 && ranker.hasPostings(term, language)) terms.push({ term, token })
  }
  return terms
}

function rankWith(ranker: SkillRanker, language: number, terms: readonly TextTerm[]): Ranked[] {
  ranker.begin(language)
  for (const { term, token } of terms) ranker.addTerm(term, token)
  const count = ranker.finish()
  return Array.from({ length: count }, (_, index) => ({
    skill: ranker.ranked[index] as number,
    score: ranker.rankedScore[index] as number,
    token: ranker.rankedToken[index] as number,
  }))
}

/**
 * The ranker written plainly, with maps and sorts over the compiled arrays: each unit sums the
 * idf of the text's terms it holds (a term once) and keeps the token of its rarest one; a label
 * scores weight × coverage^1.5 × covered / (covered + 1), a description weight × covered /
 * (covered + 10); a skill scores its best label plus its descriptions and is evidenced by the
 * token of its best unit; the best 24 skills then gain 0.3 of the best score of the other
 * ranked skills of their cluster.
 */
function referenceRank(ranker: CompiledRanker, language: number, terms: readonly TextTerm[]): Ranked[] {
  const termCount = ranker.terms.length
  const unitCount = ranker.unitSkill.length
  const units = new Map<number, { covered: number; best: number; token: number }>()
  const seen = new Set<number>()
  for (const { term, token } of terms) {
    if (seen.has(term)) continue
    seen.add(term)
    const from = ranker.termStart[language * (termCount + 1) + term] as number
    const to = ranker.termStart[language * (termCount + 1) + term + 1] as number
    for (let at = from; at < to; at++) {
      const unit = ranker.postUnit[at] as number
      const idf = ranker.postIdf[at] as number
      const known = units.get(unit)
      if (!known) units.set(unit, { covered: idf, best: idf, token })
      else {
        known.covered += idf
        if (idf > known.best) Object.assign(known, { best: idf, token })
      }
    }
  }
  const skills = new Map<number, { descriptions: number; label: number; best: number; token: number }>()
  for (const [unit, { covered, token }] of units) {
    const weight = ranker.unitWeight[language * unitCount + unit] as number
    if (weight === 0) continue
    const description = ranker.unitDescription[unit] === 1
    const total = ranker.unitTotal[language * unitCount + unit] as number
    const score = description
      ? (weight * covered) / (covered + 10)
      : weight * (covered / total) ** 1.5 * (covered / (covered + 1))
    const skill = ranker.unitSkill[unit] as number
    const entry = skills.get(skill) ?? { descriptions: 0, label: 0, best: -1, token: -1 }
    skills.set(skill, entry)
    if (description) entry.descriptions += score
    else entry.label = Math.max(entry.label, score)
    if (score > entry.best) Object.assign(entry, { best: score, token })
  }
  const byScore = (a: Ranked, b: Ranked) => b.score - a.score || a.skill - b.skill
  const top = [...skills]
    .map(([skill, entry]) => ({ skill, score: entry.descriptions + entry.label, token: entry.token }))
    .sort(byScore)
    .slice(0, RANKED_SKILLS)
  const clusterOf = (entry: Ranked) => ranker.skillCluster[entry.skill] as number
  return top
    .map((entry) => {
      const others = top.filter(
        (other) => other !== entry && clusterOf(entry) >= 0 && clusterOf(other) === clusterOf(entry),
      )
      return { ...entry, score: entry.score + 0.3 * Math.max(0, ...others.map((other) => other.score)) }
    })
    .sort(byScore)
}

const TEXTS: [string, number][] = [
  ['Every morning I drew blood from the patients on the ward.', 0],
  ['Planned the delivery routes of thirty vans and negotiated rates with carriers.', 0],
  ['Kept the books of three companies, prepared VAT returns and the monthly close.', 0],
  ['Built REST services in Python and Java, tested them with pytest and kept them in Docker.', 0],
  ['Taught a class of twenty pupils; planned lessons and marked exams.', 0],
  ['Verantwoordelijk voor de maandafsluiting en de btw-aangiftes van drie vennootschappen.', 1],
  ['Heftruckchauffeur in een magazijn: laden, lossen en orderpicking.', 1],
  ['Responsable de la comptabilité fournisseurs et du rapprochement bancaire.', 2],
  ['Soins infirmiers aux patients, prises de sang et suivi des traitements.', 2],
  ['Verantwortlich für die Lieferantenbewertung und den Einkauf von Rohstoffen.', 3],
  ['Buchhaltung, Lohnabrechnung und Jahresabschluss für kleine Unternehmen.', 3],
  ['Nothing here names any trade at all.', 0],
]

describe('the skill ranker against its plain formulation', () => {
  it('ranks every text as the plain formulation does: the same skills, order, scores and tokens', () => {
    const ranker = new SkillRanker(compiled)
    for (const [text, language] of TEXTS) {
      const terms = termsOf(ranker, text, language)
      const ours = rankWith(ranker, language, terms)
      const plain = referenceRank(compiled, language, terms)
      expect(
        ours.map((entry) => [entry.skill, entry.token]),
        text,
      ).toEqual(plain.map((entry) => [entry.skill, entry.token]))
      for (const [index, entry] of ours.entries())
        expect(entry.score, text).toBeCloseTo((plain[index] as Ranked).score, 12)
    }
  })

  it('ranks a text that touches thousands of units, and the texts after it, as the plain formulation does', () => {
    const ranker = new SkillRanker(compiled)
    const everything = TEXTS.filter(([, language]) => language === 0)
      .map(([text]) => text)
      .join(' ')
    const all = compiled.terms
      .map((_, term) => ({ term, token: term }))
      .filter(({ term }) => ranker.hasPostings(term, 0))
    expect(all.length).toBeGreaterThan(1000)
    for (const terms of [all, termsOf(ranker, everything, 0), all.slice(0, 300)])
      expect(rankWith(ranker, 0, terms).map((entry) => entry.skill)).toEqual(
        referenceRank(compiled, 0, terms).map((entry) => entry.skill),
      )
  })

  it('starts a text afresh after one that was begun and never finished', () => {
    const ranker = new SkillRanker(compiled)
    const [text, language] = TEXTS[1] as [string, number]
    const terms = termsOf(ranker, text, language)
    ranker.begin(0)
    for (const { term, token } of termsOf(ranker, (TEXTS[2] as [string, number])[0], 0))
      ranker.addTerm(term, token)
    expect(rankWith(ranker, language, terms)).toEqual(rankWith(new SkillRanker(compiled), language, terms))
    expect(rankWith(ranker, language, []).length).toBe(0)
  })
})

describe('the skill ranker where skills tie for the last places', () => {
  // n skills numbered s00 … by their names; each holds "forklift" in an alias of its own, listed
  // from the last down, so that the word touches them from the last down: n equal scores.
  function tiedRanker(n: number) {
    const skills = Array.from({ length: n }, (_, index) => `s${String(index).padStart(2, '0')}`)
    const labels: LabelInput[] = [
      ...skills.map((skill) => ({
        skill_id: skill,
        language: 'en',
        kind: 'name' as const,
        label: `${skill}name`,
      })),
      ...skills.toReversed().map((skill) => ({
        skill_id: skill,
        language: 'en',
        kind: 'alias' as const,
        label: `forklift ${skill}x`,
      })),
      { skill_id: 'top', language: 'en', kind: 'name', label: 'forklift' },
    ]
    return new SkillRanker(SkillExtractor.compile(labels).compiled.ranker)
  }

  it.each([30, 60])('keeps those the text touched first of %i, as inserting each skill in turn does', (n) => {
    const ranker = tiedRanker(n)
    const ranked = rankWith(ranker, 0, [{ term: ranker.termOf('forklift'), token: 0 }])
    expect(ranked.length).toBe(RANKED_SKILLS)
    // The last 24 were touched first and took every place; "top" (the word whole) came last,
    // ranks first and pushed out the last of them.
    expect(ranked[0]?.skill).toBe(n)
    expect(ranked.slice(1).map((entry) => entry.skill)).toEqual(
      Array.from({ length: 23 }, (_, index) => n - 24 + index),
    )
    expect(new Set(ranked.slice(1).map((entry) => entry.score)).size).toBe(1)
  })
})
