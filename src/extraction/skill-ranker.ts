import type { CompiledRanker } from './compile-ranker.js'

/** A description's covered idf saturates: half its weight at this much idf. */
const DESCRIPTION_HALF = 10
/** A label's covered idf saturates as well (a label of one common word is weak evidence). */
const LABEL_HALF = 1
/** Share of the best neighbours' evidence a skill of the same cluster gains. */
const CLUSTER_SHARE = 0.3
/** Skills kept per text after scoring (the fused list never needs more). */
export const RANKED_SKILLS = 24

/**
 * Scratch space over numbered items (the ranker's units, or its skills), kept between texts:
 * per item the stamp of the last text that touched it (a value of an older text is stale), its
 * best evidence in that text and the token of it; and the items the current text touched, in
 * the order it touched them.
 */
class TouchedItems {
  readonly stamps: Int32Array
  readonly best: Float64Array
  readonly token: Int32Array
  /** The items the current text touched: list[0 … count). */
  list: Int32Array = new Int32Array(256)
  count = 0

  constructor(items: number) {
    this.stamps = new Int32Array(items)
    this.best = new Float64Array(items)
    this.token = new Int32Array(items)
  }
}

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
  private readonly termStamp: Int32Array
  /** The units the current text touched, each with the idf of the text's terms it covers. */
  private readonly units: TouchedItems
  private readonly unitCovered: Float64Array
  /** The skills of the touched units, each with its description score and best label score. */
  private readonly skills: TouchedItems
  private readonly skillScore: Float64Array
  private readonly skillLabel: Float64Array
  /** The current text's stamp. */
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
    this.termStamp = new Int32Array(this.termCount)
    this.units = new TouchedItems(this.unitCount)
    this.unitCovered = new Float64Array(this.unitCount)
    const skills = compiled.skillCluster.length
    this.skills = new TouchedItems(skills)
    this.skillScore = new Float64Array(skills)
    this.skillLabel = new Float64Array(skills)
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
      this.units.stamps.fill(0)
      this.termStamp.fill(0)
      this.skills.stamps.fill(0)
      this.clusterStamp.fill(0)
      this.stamp = 1
    }
    this.language = language
    this.units.count = 0
    this.skills.count = 0
    this.rankedCount = 0
  }

  /** Adds a term of the text found at token `token`; a term counts once per text. */
  addTerm(term: number, token: number): void {
    const stamp = this.stamp
    if (this.termStamp[term] === stamp) return
    this.termStamp[term] = stamp
    const { termStart, postUnit, postIdf } = this.compiled
    const units = this.units
    const { stamps: unitStamp, best: unitBest, token: unitToken } = units
    const unitCovered = this.unitCovered
    const base = this.language * (this.termCount + 1)
    const last = termStart[base + term + 1] as number
    let touched = units.list
    let count = units.count
    for (let at = termStart[base + term] as number; at < last; at++) {
      const unit = postUnit[at] as number
      const idf = postIdf[at] as number
      if (unitStamp[unit] !== stamp) {
        unitStamp[unit] = stamp
        unitCovered[unit] = idf
        unitBest[unit] = idf
        unitToken[unit] = token
        if (count === touched.length) units.list = touched = grown(touched)
        touched[count++] = unit
      } else {
        ;(unitCovered[unit] as number) += idf
        if (idf > (unitBest[unit] as number)) {
          unitBest[unit] = idf
          unitToken[unit] = token
        }
      }
    }
    units.count = count
  }

  /**
   * Scores the skills of the terms added since `begin` and keeps the best `RANKED_SKILLS` in
   * `ranked`, `rankedScore` (raw scores, see `calibrated`) and `rankedToken` (the token of the
   * word that evidences the skill most).
   */
  finish(): number {
    const { unitSkill, unitTotal, unitWeight, unitDescription } = this.compiled
    const { unitCovered, skillScore, skillLabel } = this
    const { token: unitToken, list: touchedUnits, count: touchedCount } = this.units
    const skillItems = this.skills
    const { stamps: skillStamp, best: skillBest, token: skillToken } = skillItems
    const offset = this.language * this.unitCount
    const stamp = this.stamp
    let touchedSkills = skillItems.list
    let skills = 0
    for (let index = 0; index < touchedCount; index++) {
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
        if (skills === touchedSkills.length) skillItems.list = touchedSkills = grown(touchedSkills)
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
    skillItems.count = skills
    this.keepBest()
    this.expandClusters()
    return this.rankedCount
  }

  /** The best skills by score into `ranked` (a bounded insertion: texts touch few hundred skills). */
  private keepBest() {
    let count = 0
    const ranked = this.ranked
    const scores = this.rankedScore
    const { list: touchedSkills, count: touchedCount, token: skillToken } = this.skills
    for (let index = 0; index < touchedCount; index++) {
      const skill = touchedSkills[index] as number
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
      this.rankedToken[index] = skillToken[this.ranked[index] as number] as number
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
