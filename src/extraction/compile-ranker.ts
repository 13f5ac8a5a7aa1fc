import type { TextLanguageCode } from './detect-language.js'
import { contextRole, FUNCTION_WORD, GENERIC_WORD } from './text-context.js'
import { LABEL_TEXT_LANGUAGE, normaliseWord, type Stemmers, scanWords } from './text-tokens.js'
import { type LabelInput, type SkillFacts, TEXT_LANGUAGES } from './vocabulary-input.js'

/** Field weights: a label in the text's language, an English label in another text, a description. */
const NAME_WEIGHT = 1
const ALIAS_WEIGHT = 0.9
const ENGLISH_LABEL_WEIGHT = 0.6
const DESCRIPTION_WEIGHT = 0.3
/**
 * Descriptions are read in English texts only (they are written in English in the default
 * vocabulary and in ESCO), and only by their words that at most this share of skills hold: a
 * common word says little about a skill there, and would make every text touch thousands of
 * descriptions.
 */
const DESCRIPTION_MAX_SHARE = 0.03

/**
 * The ranker's compiled form (read by `SkillRanker`, skill-ranker.ts): per text language,
 * postings from a term (a word stemmed in that language) to the units it occurs in (a label, or
 * a description) with the term's idf; per unit and language its total idf and field weight; the
 * skills' clusters. Typed arrays on shared memory, like the compiled vocabulary, so that worker
 * threads share them.
 */
export interface CompiledRanker {
  terms: string[]
  /** Postings of term t in language l: postUnit/postIdf[termStart[l * (T + 1) + t] … termStart[l * (T + 1) + t + 1]). */
  termStart: Int32Array
  postUnit: Int32Array
  postIdf: Float32Array
  unitSkill: Int32Array
  /** Per language and unit (l * U + u): the unit's total idf and field weight (0: not indexed there). */
  unitTotal: Float32Array
  unitWeight: Float32Array
  /** 1 for a description unit. */
  unitDescription: Uint8Array
  /** Skills of each cluster: clusterSkills[clusterStart[c] … clusterStart[c + 1]); per skill its cluster or -1. */
  skillCluster: Int32Array
  clusterStart: Int32Array
  clusterSkills: Int32Array
}

/**
 * Compiles the ranker of a vocabulary: `skillIndex` numbers the skills as the mention tries do.
 * Labels are indexed in their own language and, for the other text languages, English labels
 * too (tool names and English terms run through Dutch, French and German work texts), at a
 * lower weight; descriptions (written in English in the default vocabulary and in ESCO) at a
 * lower weight still. A vocabulary without descriptions or clusters compiles all the same.
 */
export function compileRanker(
  labels: readonly LabelInput[],
  facts: readonly SkillFacts[],
  skillIndex: ReadonlyMap<string, number>,
  stemmers: Stemmers,
): CompiledRanker {
  const skills = skillIndex.size
  const units = rankerUnits(labels, facts, skillIndex)
  const { skillCluster, clusterCount } = skillClusters(facts, skillIndex)
  const { terms, perLanguage } = unitTermsPerLanguage(units, stemmers)
  const postings = new PostingsBuilder(terms.length, units.length)
  for (const [language, unitTerms] of perLanguage.entries())
    indexLanguage(postings, language, unitTerms, units, skills)
  const unitSkill = sharedInt32(units.length)
  const unitDescription = new Uint8Array(new SharedArrayBuffer(units.length))
  for (const [index, unit] of units.entries()) {
    unitSkill[index] = unit.skill
    unitDescription[index] = unit.kind === 'description' ? 1 : 0
  }
  const postUnit = sharedInt32(postings.postUnits.length)
  postUnit.set(postings.postUnits)
  const postIdf = new Float32Array(new SharedArrayBuffer(postings.postIdfs.length * 4))
  postIdf.set(postings.postIdfs)
  return {
    terms,
    termStart: postings.termStart,
    postUnit,
    postIdf,
    unitSkill,
    unitTotal: postings.unitTotal,
    unitWeight: postings.unitWeight,
    unitDescription,
    skillCluster,
    ...clusterMembers(skillCluster, clusterCount),
  }
}

/** A text the ranker indexes: a label or a description of a skill. */
interface RankerUnit {
  skill: number
  text: string
  /** Label language number (0 en … 3 de), -1 another language; description: 0. */
  language: number
  kind: 'name' | 'alias' | 'description'
}

/** The units of a vocabulary: the labels of its numbered skills, then their descriptions. */
function rankerUnits(
  labels: readonly LabelInput[],
  facts: readonly SkillFacts[],
  skillIndex: ReadonlyMap<string, number>,
): RankerUnit[] {
  const units: RankerUnit[] = []
  for (const label of labels) {
    const skill = skillIndex.get(label.skill_id)
    if (skill === undefined) continue
    units.push({
      skill,
      text: label.label,
      language: LABEL_TEXT_LANGUAGE.get(label.language) ?? -1,
      kind: label.kind,
    })
  }
  for (const fact of facts) {
    const skill = skillIndex.get(fact.skill_id)
    if (skill === undefined) continue
    if (fact.description) units.push({ skill, text: fact.description, language: 0, kind: 'description' })
  }
  return units
}

/** Each numbered skill's cluster (-1: none), clusters numbered in the order the facts name them. */
function skillClusters(
  facts: readonly SkillFacts[],
  skillIndex: ReadonlyMap<string, number>,
): { skillCluster: Int32Array; clusterCount: number } {
  const clusterNumbers = new Map<string, number>()
  const skillCluster = sharedInt32(skillIndex.size).fill(-1)
  for (const fact of facts) {
    const skill = skillIndex.get(fact.skill_id)
    if (skill === undefined || !fact.cluster) continue
    let cluster = clusterNumbers.get(fact.cluster)
    if (cluster === undefined) clusterNumbers.set(fact.cluster, (cluster = clusterNumbers.size))
    skillCluster[skill] = cluster
  }
  return { skillCluster, clusterCount: clusterNumbers.size }
}

/** A unit's field weight in texts of language `language` (0 en … 3 de); 0: not indexed there. */
function fieldWeight(unit: RankerUnit, language: number): number {
  if (unit.kind === 'description') return language === 0 ? DESCRIPTION_WEIGHT : 0
  if (unit.language === language) return unit.kind === 'name' ? NAME_WEIGHT : ALIAS_WEIGHT
  return unit.language === 0 ? ENGLISH_LABEL_WEIGHT : 0
}

/** The units' terms in one text language (term numbers; none where the unit is not indexed) and weights. */
interface LanguageUnitTerms {
  unitTermLists: number[][]
  weights: Float32Array
}

/** Per text language, each unit's terms and weight; terms numbered as first met, language by language. */
function unitTermsPerLanguage(
  units: readonly RankerUnit[],
  stemmers: Stemmers,
): { terms: string[]; perLanguage: LanguageUnitTerms[] } {
  const termNumbers = new Map<string, number>()
  const terms: string[] = []
  const termOf = (text: string) => {
    let term = termNumbers.get(text)
    if (term === undefined) termNumbers.set(text, (term = terms.push(text) - 1))
    return term
  }
  const perLanguage = TEXT_LANGUAGES.map((language, number) => {
    const unitTermLists: number[][] = []
    const weights = new Float32Array(units.length)
    for (const [index, unit] of units.entries()) {
      const weight = fieldWeight(unit, number)
      weights[index] = weight
      unitTermLists.push(weight > 0 ? unitTerms(unit.text, language, stemmers).map(termOf) : [])
    }
    return { unitTermLists, weights }
  })
  return { terms, perLanguage }
}

/** The terms of a unit's text in a language: normalised, stemmed, without function and generic words. */
function unitTerms(text: string, language: TextLanguageCode, stemmers: Stemmers): string[] {
  const terms: string[] = []
  for (const span of scanWords(text)) {
    const norm = normaliseWord(text.slice(span.start, span.end))
    if (norm.length < 2 || contextRole(norm) & (FUNCTION_WORD | GENERIC_WORD)) continue
    const term = stemmers.stem(norm, language)
    if (!terms.includes(term)) terms.push(term)
  }
  return terms
}

/** The postings of all languages as they are appended, language after language. */
class PostingsBuilder {
  readonly termStart: Int32Array
  readonly unitTotal: Float32Array
  readonly unitWeight: Float32Array
  readonly postUnits: number[] = []
  readonly postIdfs: number[] = []

  constructor(
    readonly termCount: number,
    readonly unitCount: number,
  ) {
    this.termStart = sharedInt32(TEXT_LANGUAGES.length * (termCount + 1))
    this.unitTotal = new Float32Array(new SharedArrayBuffer(TEXT_LANGUAGES.length * unitCount * 4))
    this.unitWeight = new Float32Array(new SharedArrayBuffer(TEXT_LANGUAGES.length * unitCount * 4))
  }
}

/**
 * Indexes the units in text language `number`: each unit's total idf and weight, and each term's
 * postings with its idf. A description leaves out its common words (see `DESCRIPTION_MAX_SHARE`).
 */
function indexLanguage(
  postings: PostingsBuilder,
  number: number,
  { unitTermLists, weights }: LanguageUnitTerms,
  units: readonly RankerUnit[],
  skills: number,
): void {
  const { termCount, unitCount, termStart, unitTotal, unitWeight, postUnits, postIdfs } = postings
  const frequency = skillFrequencies(unitTermLists, units, skills, termCount)
  const lists: number[][] = Array.from({ length: termCount }, () => [])
  const common = Math.max(20, skills * DESCRIPTION_MAX_SHARE)
  for (const [index, list] of unitTermLists.entries()) {
    let total = 0
    const description = (units[index] as RankerUnit).kind === 'description'
    for (const term of list) {
      if (description && (frequency[term] as number) > common) continue
      total += idf(frequency[term] as number, skills)
      ;(lists[term] as number[]).push(index)
    }
    unitTotal[number * unitCount + index] = total
    unitWeight[number * unitCount + index] = list.length > 0 ? (weights[index] as number) : 0
  }
  const base = number * (termCount + 1)
  for (let term = 0; term < termCount; term++) {
    termStart[base + term] = postUnits.length
    const weight = idf(frequency[term] as number, skills)
    for (const unit of lists[term] as number[]) {
      postUnits.push(unit)
      postIdfs.push(weight)
    }
  }
  termStart[base + termCount] = postUnits.length
}

/** How many skills hold each term in one language: a skill counts once, however many of its units hold it. */
function skillFrequencies(
  unitTermLists: readonly number[][],
  units: readonly RankerUnit[],
  skills: number,
  termCount: number,
): Int32Array {
  const frequency = new Int32Array(termCount)
  const lastSkill = new Int32Array(termCount).fill(-1)
  // Units are grouped by skill only loosely (labels, then descriptions): count skills per term with a set.
  const seen = new Set<number>()
  for (const [index, list] of unitTermLists.entries()) {
    const skill = (units[index] as RankerUnit).skill
    for (const term of list) {
      const key = term * (skills + 1) + skill
      if (lastSkill[term] === skill || seen.has(key)) continue
      seen.add(key)
      lastSkill[term] = skill
      frequency[term] = (frequency[term] as number) + 1
    }
  }
  return frequency
}

/** The idf of a term that `df` of `skills` skills hold (BM25's, kept positive). */
function idf(df: number, skills: number): number {
  return Math.log(1 + (skills - df + 0.5) / (df + 0.5))
}

/** The skills of each cluster, next to each other in skill order (a counting sort by cluster). */
function clusterMembers(
  skillCluster: Int32Array,
  clusterCount: number,
): { clusterStart: Int32Array; clusterSkills: Int32Array } {
  const skills = skillCluster.length
  const clusterStart = sharedInt32(clusterCount + 1)
  for (let skill = 0; skill < skills; skill++) {
    const cluster = skillCluster[skill] as number
    if (cluster >= 0) clusterStart[cluster + 1] = (clusterStart[cluster + 1] as number) + 1
  }
  for (let cluster = 0; cluster < clusterCount; cluster++)
    clusterStart[cluster + 1] = (clusterStart[cluster + 1] as number) + (clusterStart[cluster] as number)
  const clusterSkills = sharedInt32(clusterStart[clusterCount] as number)
  const fill = clusterStart.slice(0, clusterCount)
  for (let skill = 0; skill < skills; skill++) {
    const cluster = skillCluster[skill] as number
    if (cluster >= 0) clusterSkills[(fill[cluster] as number)++] = skill
  }
  return { clusterStart, clusterSkills }
}

const sharedInt32 = (length: number) => new Int32Array(new SharedArrayBuffer(length * 4))
