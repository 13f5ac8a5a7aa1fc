import { describe, expect, it } from 'vitest'
import { type CompiledRanker, compileRanker } from '../../src/extraction/compile-ranker.js'
import { SkillRanker } from '../../src/extraction/skill-ranker.js'
import { Stemmers } from '../../src/extraction/text-tokens.js'
import type { LabelInput, SkillFacts } from '../../src/extraction/vocabulary-input.js'

const label = (skill_id: string, language: string, kind: 'name' | 'alias', text: string): LabelInput => ({
  skill_id,
  language,
  kind,
  label: text,
})

/** Units in label order, then descriptions: 0-2 forklift's labels, 3 pallet's, 4 bookkeeping's, 5-6 descriptions. */
const LABELS: LabelInput[] = [
  label('skl-forklift', 'en_uk', 'name', 'Forklift operation'),
  label('skl-forklift', 'en_uk', 'alias', 'Reach truck'),
  label('skl-forklift', 'nl', 'name', 'Heftruck besturen'),
  label('skl-ghost', 'en_uk', 'name', 'Ghost skill'),
  label('skl-pallet', 'en_uk', 'name', 'Pallet stacking'),
  label('skl-bookkeeping', 'en_uk', 'name', 'Bookkeeping'),
]
const facts = (clusters: boolean): SkillFacts[] => [
  {
    skill_id: 'skl-forklift',
    description: 'Driving forklift trucks and moving pallets in warehouses.',
    cluster: clusters ? 'c-logistics' : null,
  },
  {
    skill_id: 'skl-pallet',
    description: 'Stacking pallets safely.',
    cluster: clusters ? 'c-logistics' : null,
  },
  { skill_id: 'skl-bookkeeping', description: null, cluster: null },
]
const SKILLS = new Map([
  ['skl-forklift', 0],
  ['skl-pallet', 1],
  ['skl-bookkeeping', 2],
])
const stemmers = new Stemmers()
const compile = (clusters = true) => compileRanker(LABELS, facts(clusters), SKILLS, stemmers)

/** The units holding a word in language `language` (0 en … 3 de), with the word's idf there. */
function postings(ranker: CompiledRanker, word: string, language: number, code: 'en' | 'nl') {
  const term = ranker.terms.indexOf(stemmers.stem(word, code))
  expect(term, word).toBeGreaterThanOrEqual(0)
  const base = language * (ranker.terms.length + 1)
  const from = ranker.termStart[base + term] as number
  const to = ranker.termStart[base + term + 1] as number
  return { units: Array.from(ranker.postUnit.subarray(from, to)), idf: ranker.postIdf[from] as number }
}

/** Field weights of the units in one language, rounded (they are 32-bit floats). */
const weights = (ranker: CompiledRanker, language: number) => {
  const units = ranker.unitSkill.length
  return Array.from(ranker.unitWeight.subarray(language * units, (language + 1) * units), (weight) =>
    Number(weight.toFixed(2)),
  )
}

describe('the compiled ranker', () => {
  it('indexes labels of numbered skills only, then descriptions, each unit with its skill', () => {
    const ranker = compile()
    expect(Array.from(ranker.unitSkill)).toEqual([0, 0, 0, 1, 2, 0, 1])
    expect(Array.from(ranker.unitDescription)).toEqual([0, 0, 0, 0, 0, 1, 1])
  })

  it('weighs a label in its own language above an English label in another, and reads descriptions in English only', () => {
    const ranker = compile()
    // English texts: names 1, the alias 0.9, the Dutch name not at all, descriptions 0.3.
    expect(weights(ranker, 0)).toEqual([1, 0.9, 0, 1, 1, 0.3, 0.3])
    // Dutch texts: the Dutch name 1, English labels 0.6, no description.
    expect(weights(ranker, 1)).toEqual([0.6, 0.6, 1, 0.6, 0.6, 0, 0])
    // French texts hold no French label: English labels only.
    expect(weights(ranker, 2)).toEqual([0.6, 0.6, 0, 0.6, 0.6, 0, 0])
  })

  it('posts a word to the units that hold it, with a higher idf the fewer skills hold it', () => {
    const ranker = compile()
    const forklift = postings(ranker, 'forklift', 0, 'en')
    const pallet = postings(ranker, 'pallet', 0, 'en')
    expect(forklift.units).toEqual([0, 5])
    expect(pallet.units).toEqual([3, 5, 6])
    // Three skills: one holds "forklift" (its name and description count once), two hold "pallet".
    expect(forklift.idf).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 6)
    expect(pallet.idf).toBeCloseTo(Math.log(1 + 1.5 / 2.5), 6)
    expect(postings(ranker, 'heftruck', 1, 'nl').units).toEqual([2])
    expect(ranker.terms).not.toContain(stemmers.stem('ghost', 'en'))
  })

  it('lists the skills of each cluster together; a skill of no cluster has none', () => {
    const ranker = compile()
    expect(Array.from(ranker.skillCluster)).toEqual([0, 0, -1])
    expect(Array.from(ranker.clusterStart)).toEqual([0, 2])
    expect(Array.from(ranker.clusterSkills)).toEqual([0, 1])
    const bare = compile(false)
    expect(Array.from(bare.skillCluster)).toEqual([-1, -1, -1])
    expect(Array.from(bare.clusterStart)).toEqual([0])
  })
})

describe('the skill ranker over a compiled ranker', () => {
  /** Ranks an English text given as words; returns the ranked skills with their scores. */
  const rank = (ranker: SkillRanker, words: readonly string[]) => {
    ranker.begin(0)
    for (const [token, word] of words.entries()) {
      const term = ranker.termOf(stemmers.stem(word, 'en'))
      if (term >= 0 && ranker.hasPostings(term, 0)) ranker.addTerm(term, token)
    }
    const count = ranker.finish()
    return Array.from({ length: count }, (_, index) => ({
      skill: ranker.ranked[index] as number,
      score: ranker.rankedScore[index] as number,
      token: ranker.rankedToken[index] as number,
    }))
  }

  it('ranks first the skill whose label the text covers whole, evidenced by its rarest word', () => {
    const ranked = rank(new SkillRanker(compile(false)), ['forklift', 'operation', 'pallets'])
    expect(ranked.map((entry) => entry.skill)).toEqual([0, 1])
    expect(ranked[0]?.token).toBe(0)
    expect(ranked[1]?.token).toBe(2)
  })

  it('gives each ranked skill a share of the best evidence of the other skills of its cluster', () => {
    const words = ['forklift', 'pallets', 'stacking']
    const alone = rank(new SkillRanker(compile(false)), words)
    const clustered = rank(new SkillRanker(compile(true)), words)
    const score = (entries: typeof alone, skill: number) =>
      entries.find((entry) => entry.skill === skill)?.score as number
    expect(score(clustered, 0)).toBeCloseTo(score(alone, 0) + 0.3 * score(alone, 1), 12)
    expect(score(clustered, 1)).toBeCloseTo(score(alone, 1) + 0.3 * score(alone, 0), 12)
  })

  it('starts every text afresh: a second text is ranked as if it were the first', () => {
    const ranker = new SkillRanker(compile())
    const first = rank(ranker, ['bookkeeping'])
    rank(ranker, ['forklift', 'pallets'])
    expect(rank(ranker, ['bookkeeping'])).toEqual(first)
    expect(first.map((entry) => entry.skill)).toEqual([2])
  })
})
