import type { LabelInput } from './compile-vocabulary.js'
import type { TextLanguageCode } from './detect-language.js'
import { contextRole, FUNCTION_WORD, GENERIC_WORD } from './text-context.js'
import { LABEL_TEXT_LANGUAGE, normaliseWord, type Stemmers, scanWords } from './text-tokens.js'

/** What the ranker knows of a skill besides its labels: its description and its place in the tree. */
export interface SkillFacts {
  skill_id: string
  description?: string | null | undefined
  /** The skill cluster it belongs to; the subdomain when it has no cluster. */
  cluster?: string | null | undefined
}

const LANGUAGES: readonly TextLanguageCode[] = ['en', 'nl', 'fr', 'de']

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
/** A description's covered idf saturates: half its weight at this much idf. */
const DESCRIPTION_HALF = 10
/** A label's covered idf saturates as well (a label of one common word is weak evidence). */
const LABEL_HALF = 1
/** Share of the best neighbours' evidence a skill of the same cluster gains. */
const CLUSTER_SHARE = 0.3
/** Skills kept per text after scoring (the fused list never needs more). */
export const RANKED_SKILLS = 24

/**
 * The ranker's compiled form: per text language, postings from a term (a word stemmed in that
 * language) to the units it occurs in (a label, or a description) with the term's idf; per unit
 * and language its total idf and field weight; the skills' clusters. Typed arrays on shared
 * memory, like the compiled vocabulary, so that worker threads share them.
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
  interface Unit {
    skill: number
    text: string
    /** Label language number (0 en … 3 de), -1 another language; description: 0. */
    language: number
    kind: 'name' | 'alias' | 'description'
  }
  const units: Unit[] = []
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
  const clusterNumbers = new Map<string, number>()
  const skillCluster = sharedInt32(skills).fill(-1)
  for (const fact of facts) {
    const skill = skillIndex.get(fact.skill_id)
    if (skill === undefined) continue
    if (fact.description) units.push({ skill, text: fact.description, language: 0, kind: 'description' })
    if (fact.cluster) {
      let cluster = clusterNumbers.get(fact.cluster)
      if (cluster === undefined) clusterNumbers.set(fact.cluster, (cluster = clusterNumbers.size))
      skillCluster[skill] = cluster
    }
  }
  const termNumbers = new Map<string, number>()
  const terms: string[] = []
  const termOf = (text: string) => {
    let term = termNumbers.get(text)
    if (term === undefined) termNumbers.set(text, (term = terms.push(text) - 1))
    return term
  }
  // Per language: each unit's terms and weight, then document frequencies by skill.
  const perLanguage = LANGUAGES.map((language, number) => {
    const unitTermLists: number[][] = []
    const weights = new Float32Array(units.length)
    for (const [index, unit] of units.entries()) {
      const weight =
        unit.kind === 'description'
          ? number === 0
            ? DESCRIPTION_WEIGHT
            : 0
          : unit.language === number
            ? unit.kind === 'name'
              ? NAME_WEIGHT
              : ALIAS_WEIGHT
            : unit.language === 0
              ? ENGLISH_LABEL_WEIGHT
              : 0
      weights[index] = weight
      unitTermLists.push(weight > 0 ? unitTerms(unit.text, language, stemmers).map(termOf) : [])
    }
    return { unitTermLists, weights }
  })
  const termCount = terms.length
  const unitCount = units.length
  const termStart = sharedInt32(LANGUAGES.length * (termCount + 1))
  const unitTotal = new Float32Array(new SharedArrayBuffer(LANGUAGES.length * unitCount * 4))
  const unitWeight = new Float32Array(new SharedArrayBuffer(LANGUAGES.length * unitCount * 4))
  const postUnits: number[] = []
  const postIdfs: number[] = []
  for (const [number, { unitTermLists, weights }] of perLanguage.entries()) {
    const frequency = new Int32Array(termCount)
    const lastSkill = new Int32Array(termCount).fill(-1)
    // Units are grouped by skill only loosely (labels, then descriptions): count skills per term with a set.
    const seen = new Set<number>()
    for (const [index, list] of unitTermLists.entries()) {
      const skill = (units[index] as Unit).skill
      for (const term of list) {
        const key = term * (skills + 1) + skill
        if (lastSkill[term] === skill || seen.has(key)) continue
        seen.add(key)
        lastSkill[term] = skill
        frequency[term] = (frequency[term] as number) + 1
      }
    }
    const idf = (term: number) => {
      const df = frequency[term] as number
      return Math.log(1 + (skills - df + 0.5) / (df + 0.5))
    }
    const lists: number[][] = Array.from({ length: termCount }, () => [])
    const common = Math.max(20, skills * DESCRIPTION_MAX_SHARE)
    for (const [index, list] of unitTermLists.entries()) {
      let total = 0
      const description = (units[index] as Unit).kind === 'description'
      for (const term of list) {
        if (description && (frequency[term] as number) > common) continue
        total += idf(term)
        ;(lists[term] as number[]).push(index)
      }
      unitTotal[number * unitCount + index] = total
      unitWeight[number * unitCount + index] = list.length > 0 ? (weights[index] as number) : 0
    }
    const base = number * (termCount + 1)
    for (let term = 0; term < termCount; term++) {
      termStart[base + term] = postUnits.length
      const weight = idf(term)
      for (const unit of lists[term] as number[]) {
        postUnits.push(unit)
        postIdfs.push(weight)
      }
    }
    termStart[base + termCount] = postUnits.length
  }
  const clusterStart = sharedInt32(clusterNumbers.size + 1)
  for (let skill = 0; skill < skills; skill++) {
    const cluster = skillCluster[skill] as number
    if (cluster >= 0) clusterStart[cluster + 1] = (clusterStart[cluster + 1] as number) + 1
  }
  for (let cluster = 0; cluster < clusterNumbers.size; cluster++)
    clusterStart[cluster + 1] = (clusterStart[cluster + 1] as number) + (clusterStart[cluster] as number)
  const clusterSkills = sharedInt32(clusterStart[clusterNumbers.size] as number)
  const fill = clusterStart.slice(0, clusterNumbers.size)
  for (let skill = 0; skill < skills; skill++) {
    const cluster = skillCluster[skill] as number
    if (cluster >= 0) clusterSkills[(fill[cluster] as number)++] = skill
  }
  const unitSkill = sharedInt32(unitCount)
  const unitDescription = new Uint8Array(new SharedArrayBuffer(unitCount))
  for (const [index, unit] of units.entries()) {
    unitSkill[index] = unit.skill
    unitDescription[index] = unit.kind === 'description' ? 1 : 0
  }
  const postUnit = sharedInt32(postUnits.length)
  postUnit.set(postUnits)
  const postIdf = new Float32Array(new SharedArrayBuffer(postIdfs.length * 4))
  postIdf.set(postIdfs)
  return {
    terms,
    termStart,
    postUnit,
    postIdf,
    unitSkill,
    unitTotal,
    unitWeight,
    unitDescription,
    skillCluster,
    clusterStart,
    clusterSkills,
  }
}

const sharedInt32 = (length: number) => new Int32Array(new SharedArrayBuffer(length * 4))

/**
 * Scores a vocabulary's skills for one text at a time from the terms the extractor hands it:
 * fielded lexical retrieval (BM25F-like: each unit's share of idf covered, saturated, weighted by
 * its field; a skill by its best label plus its description), then expansion to the skills of
 * the same cluster as the best evidenced ones. Keeps its scratch space between texts; one ranker
 * serves one thread.
 */
export class SkillRanker {
  private readonly termNumbers = new Map<string, number>()
  private readonly termCount: number
  private readonly unitCount: number
  private readonly unitCovered: Float64Array
  private readonly unitBest: Float64Array
  private readonly unitToken: Int32Array
  private readonly unitStamp: Int32Array
  private touchedUnits: Int32Array = new Int32Array(256)
  private touchedCount = 0
  private readonly termStamp: Int32Array
  private readonly skillScore: Float64Array
  private readonly skillLabel: Float64Array
  private readonly skillToken: Int32Array
  private readonly skillBest: Float64Array
  private readonly skillStamp: Int32Array
  private touchedSkills: Int32Array = new Int32Array(256)
  private skillCount = 0
  private stamp = 0
  private language = 0
  /** The best skills of the last text, best first. */
  readonly ranked = new Int32Array(RANKED_SKILLS)
  readonly rankedScore = new Float64Array(RANKED_SKILLS)
  readonly rankedToken = new Int32Array(RANKED_SKILLS)
  rankedCount = 0
  private readonly gains = new Float64Array(RANKED_SKILLS)
  private readonly clusterStamp: Int32Array
  private readonly clusterFirst: Float64Array
  private readonly clusterSecond: Float64Array

  constructor(private readonly compiled: CompiledRanker) {
    for (let term = 0; term < compiled.terms.length; term++)
      this.termNumbers.set(compiled.terms[term] as string, term)
    this.termCount = compiled.terms.length
    this.unitCount = compiled.unitSkill.length
    this.unitCovered = new Float64Array(this.unitCount)
    this.unitBest = new Float64Array(this.unitCount)
    this.unitToken = new Int32Array(this.unitCount)
    this.unitStamp = new Int32Array(this.unitCount)
    this.termStamp = new Int32Array(this.termCount)
    const skills = compiled.skillCluster.length
    this.skillScore = new Float64Array(skills)
    this.skillLabel = new Float64Array(skills)
    this.skillToken = new Int32Array(skills)
    this.skillBest = new Float64Array(skills)
    this.skillStamp = new Int32Array(skills)
    const clusters = compiled.clusterStart.length - 1
    this.clusterStamp = new Int32Array(clusters)
    this.clusterFirst = new Float64Array(clusters)
    this.clusterSecond = new Float64Array(clusters)
  }

  /** The number of a term (a stem), or -1 when no unit holds it. */
  termOf(stem: string): number {
    return this.termNumbers.get(stem) ?? -1
  }

  /** Whether term `term` has postings in language `language`. */
  hasPostings(term: number, language: number): boolean {
    const base = language * (this.termCount + 1)
    return (
      (this.compiled.termStart[base + term + 1] as number) > (this.compiled.termStart[base + term] as number)
    )
  }

  /** Starts a text in a language (0 en … 3 de). */
  begin(language: number): void {
    if (++this.stamp === 0x7fffffff) {
      this.unitStamp.fill(0)
      this.termStamp.fill(0)
      this.skillStamp.fill(0)
      this.clusterStamp.fill(0)
      this.stamp = 1
    }
    this.language = language
    this.touchedCount = 0
    this.skillCount = 0
    this.rankedCount = 0
  }

  /** Adds a term of the text found at token `token`; a term counts once per text. */
  addTerm(term: number, token: number): void {
    const stamp = this.stamp
    if (this.termStamp[term] === stamp) return
    this.termStamp[term] = stamp
    const { termStart, postUnit, postIdf } = this.compiled
    const { unitStamp, unitCovered, unitBest, unitToken } = this
    const base = this.language * (this.termCount + 1)
    const last = termStart[base + term + 1] as number
    let touched = this.touchedUnits
    let count = this.touchedCount
    for (let at = termStart[base + term] as number; at < last; at++) {
      const unit = postUnit[at] as number
      const idf = postIdf[at] as number
      if (unitStamp[unit] !== stamp) {
        unitStamp[unit] = stamp
        unitCovered[unit] = idf
        unitBest[unit] = idf
        unitToken[unit] = token
        if (count === touched.length) this.touchedUnits = touched = grown(touched)
        touched[count++] = unit
      } else {
        ;(unitCovered[unit] as number) += idf
        if (idf > (unitBest[unit] as number)) {
          unitBest[unit] = idf
          unitToken[unit] = token
        }
      }
    }
    this.touchedCount = count
  }

  /**
   * Scores the skills of the terms added since `begin` and keeps the best `RANKED_SKILLS` in
   * `ranked`, `rankedScore` (raw scores, see `calibrated`) and `rankedToken` (the token of the
   * word that evidences the skill most).
   */
  finish(): number {
    const { unitSkill, unitTotal, unitWeight, unitDescription } = this.compiled
    const {
      unitCovered,
      unitToken,
      touchedUnits,
      skillStamp,
      skillScore,
      skillLabel,
      skillBest,
      skillToken,
    } = this
    const offset = this.language * this.unitCount
    const stamp = this.stamp
    let touchedSkills = this.touchedSkills
    let skills = 0
    for (let index = 0; index < this.touchedCount; index++) {
      const unit = touchedUnits[index] as number
      const weight = unitWeight[offset + unit] as number
      if (weight === 0) continue
      const covered = unitCovered[unit] as number
      const description = unitDescription[unit] === 1
      let score: number
      if (description) score = (weight * covered) / (covered + DESCRIPTION_HALF)
      else {
        const coverage = covered / (unitTotal[offset + unit] as number)
        // The covered share to the power 1.5 (a label covered whole stands out); sqrt is far cheaper than pow.
        score = weight * coverage * Math.sqrt(coverage) * (covered / (covered + LABEL_HALF))
      }
      const skill = unitSkill[unit] as number
      if (skillStamp[skill] !== stamp) {
        skillStamp[skill] = stamp
        skillScore[skill] = 0
        skillLabel[skill] = 0
        skillBest[skill] = -1
        if (skills === touchedSkills.length) this.touchedSkills = touchedSkills = grown(touchedSkills)
        touchedSkills[skills++] = skill
      }
      if (description) (skillScore[skill] as number) += score
      else if (score > (skillLabel[skill] as number)) skillLabel[skill] = score
      if (score > (skillBest[skill] as number)) {
        skillBest[skill] = score
        skillToken[skill] = unitToken[unit] as number
      }
    }
    for (let index = 0; index < skills; index++) {
      const skill = touchedSkills[index] as number
      ;(skillScore[skill] as number) += skillLabel[skill] as number
    }
    this.skillCount = skills
    this.keepBest()
    this.expandClusters()
    return this.rankedCount
  }

  /** The best skills by score into `ranked` (a bounded insertion: texts touch few hundred skills). */
  private keepBest() {
    let count = 0
    const ranked = this.ranked
    const scores = this.rankedScore
    for (let index = 0; index < this.skillCount; index++) {
      const skill = this.touchedSkills[index] as number
      const score = this.skillScore[skill] as number
      if (count === RANKED_SKILLS && score <= (scores[count - 1] as number)) continue
      let at = count < RANKED_SKILLS ? count++ : count - 1
      while (
        at > 0 &&
        ((scores[at - 1] as number) < score ||
          (scores[at - 1] === score && (ranked[at - 1] as number) > skill))
      ) {
        ranked[at] = ranked[at - 1] as number
        scores[at] = scores[at - 1] as number
        at--
      }
      ranked[at] = skill
      scores[at] = score
    }
    for (let index = 0; index < count; index++)
      this.rankedToken[index] = this.skillToken[this.ranked[index] as number] as number
    this.rankedCount = count
  }

  /**
   * A skill gains a share of the best evidence of the other skills of its cluster among the
   * ranked ones: several neighbours evidenced at once point at the cluster.
   */
  private expandClusters() {
    const { skillCluster } = this.compiled
    const count = this.rankedCount
    if (count < 2) return
    // The best and second best score of each cluster among the ranked skills (clusters by stamp).
    const gains = this.gains
    const stamp = this.stamp
    for (let index = 0; index < count; index++) {
      const cluster = skillCluster[this.ranked[index] as number] as number
      if (cluster < 0) continue
      const score = this.rankedScore[index] as number
      if (this.clusterStamp[cluster] !== stamp) {
        this.clusterStamp[cluster] = stamp
        this.clusterFirst[cluster] = score
        this.clusterSecond[cluster] = 0
      } else if (score > (this.clusterFirst[cluster] as number)) {
        this.clusterSecond[cluster] = this.clusterFirst[cluster] as number
        this.clusterFirst[cluster] = score
      } else if (score > (this.clusterSecond[cluster] as number)) this.clusterSecond[cluster] = score
    }
    let gained = false
    for (let index = 0; index < count; index++) {
      const cluster = skillCluster[this.ranked[index] as number] as number
      gains[index] = 0
      if (cluster < 0) continue
      const first = this.clusterFirst[cluster] as number
      // The best of the others: the second best when this skill is the best.
      const best =
        (this.rankedScore[index] as number) === first ? (this.clusterSecond[cluster] as number) : first
      gains[index] = CLUSTER_SHARE * best
      if (best > 0) gained = true
    }
    if (!gained) return
    for (let index = 0; index < count; index++) (this.rankedScore[index] as number) += gains[index] as number
    // Insertion sort of the few ranked skills by their new scores (ties by skill number).
    const { ranked, rankedScore, rankedToken } = this
    for (let index = 1; index < count; index++) {
      const skill = ranked[index] as number
      const score = rankedScore[index] as number
      const token = rankedToken[index] as number
      let at = index - 1
      while (
        at >= 0 &&
        ((rankedScore[at] as number) < score || (rankedScore[at] === score && (ranked[at] as number) > skill))
      ) {
        ranked[at + 1] = ranked[at] as number
        rankedScore[at + 1] = rankedScore[at] as number
        rankedToken[at + 1] = rankedToken[at] as number
        at--
      }
      ranked[at + 1] = skill
      rankedScore[at + 1] = score
      rankedToken[at + 1] = token
    }
  }
}

/** A raw ranker score as a confidence in [0, 1). */
export function calibrated(raw: number): number {
  return 1 - Math.exp(-raw / 0.6)
}

function grown(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}
