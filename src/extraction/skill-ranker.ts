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
 * A text touches a few hundred of the vocabulary's units, scattered over tens of thousands, and
 * the ranker's time went in cache misses on per-unit arrays. So each posting carries what scoring
 * needs of its unit (read in order with the postings), and the units a text touches are summed in
 * a small open-addressing table that stays in cache from text to text.
 *
 * A posting, five 32-bit slots: the unit, the term's idf, the unit's skill (its complement, ~skill,
 * for a description), the unit's field weight and total idf in the postings' language (float32,
 * as compiled).
 */
const POST_UNIT = 0
const POST_IDF = 1
const POST_SKILL = 2
const POST_WEIGHT = 3
const POST_TOTAL = 4
const POST_SLOTS = 5
/**
 * A touched unit's record in the table, 32 bytes: the idf it covers (float64 slot 0), and in
 * 32-bit slots its number + 1 (0: a free record), the best idf of a term covering it, that
 * term's token, and its posting's skill, weight and total.
 */
const TOUCHED_KEY = 2
const TOUCHED_BEST = 3
const TOUCHED_TOKEN = 4
const TOUCHED_SKILL = 5
const TOUCHED_WEIGHT = 6
const TOUCHED_TOTAL = 7
/** Records of the touched-unit table at first; it doubles when half full. */
const TOUCHED_RECORDS = 1024
/**
 * A skill's record for the current text, 32 bytes: its description score, best label score and
 * best unit score (float64 slots 0–2), the stamp of the text that last touched it and the token
 * of its best unit (int32 slots 6 and 7).
 */
const SKILL_DESCRIPTION = 0
const SKILL_LABEL = 1
const SKILL_BEST = 2
const SKILL_STAMP = 6
const SKILL_TOKEN = 7

/**
 * Scores a vocabulary's skills for one text at a time from the terms the extractor hands it:
 * fielded lexical retrieval (BM25F-like: each unit's share of idf covered, saturated, weighted by
 * its field; a skill by its best label plus its description), then expansion to the skills of
 * the same cluster as the best evidenced ones. Keeps its scratch space between texts (nothing is
 * allocated per text); one ranker serves one thread.
 */
export class SkillRanker {
  private readonly termNumbers = new Map<string, number>()
  private readonly termCount: number
  private readonly termStamp: Int32Array
  /** The postings (see `POST_SLOTS`), as integers and as floats over the same memory. */
  private readonly postInt: Int32Array
  private readonly postFloat: Float32Array
  /** The touched-unit table (see `TOUCHED_KEY`) as float64, int32 and float32 over the same memory. */
  private touchedCovered = new Float64Array(0)
  private touchedInt = new Int32Array(0)
  private touchedFloat = new Float32Array(0)
  private touchedMask = 0
  /** The table records in use, in the order their units were first touched. */
  private touchedRecords: Int32Array = new Int32Array(256)
  private touchedCount = 0
  /** Per-text skill records (see `SKILL_DESCRIPTION`) over the same memory. */
  private readonly skillFloat: Float64Array
  private readonly skillInt: Int32Array
  /** The skills the current text touched: touchedSkills[0 … skillCount). */
  private touchedSkills: Int32Array = new Int32Array(256)
  private skillCount = 0
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
    this.termStamp = new Int32Array(this.termCount)
    const posts = new ArrayBuffer(compiled.postUnit.length * POST_SLOTS * 4)
    this.postInt = new Int32Array(posts)
    this.postFloat = new Float32Array(posts)
    packPostings(compiled, this.postInt, this.postFloat)
    this.allocateTouched(TOUCHED_RECORDS)
    const skillRecords = new ArrayBuffer(compiled.skillCluster.length * 32)
    this.skillFloat = new Float64Array(skillRecords)
    this.skillInt = new Int32Array(skillRecords)
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
      this.termStamp.fill(0)
      for (let skill = 0; skill < this.compiled.skillCluster.length; skill++)
        this.skillInt[skill * 8 + SKILL_STAMP] = 0
      this.clusterStamp.fill(0)
      this.stamp = 1
    }
    // Records of a text that was not finished are freed here; `finish` frees the others.
    for (let index = 0; index < this.touchedCount; index++)
      this.touchedInt[(this.touchedRecords[index] as number) * 8 + TOUCHED_KEY] = 0
    this.touchedCount = 0
    this.language = language
    this.skillCount = 0
    this.rankedCount = 0
  }

  /** Adds a term of the text found at token `token`; a term counts once per text. */
  addTerm(term: number, token: number): void {
    if (this.termStamp[term] === this.stamp) return
    this.termStamp[term] = this.stamp
    const { termStart } = this.compiled
    const { postInt, postFloat } = this
    const base = this.language * (this.termCount + 1)
    const last = (termStart[base + term + 1] as number) * POST_SLOTS
    for (let post = (termStart[base + term] as number) * POST_SLOTS; post < last; post += POST_SLOTS) {
      const key = (postInt[post + POST_UNIT] as number) + 1
      const idf = postFloat[post + POST_IDF] as number
      let record = Math.imul(key, 0x9e3779b1) & this.touchedMask
      let at = record * 8
      while (this.touchedInt[at + TOUCHED_KEY] !== key && this.touchedInt[at + TOUCHED_KEY] !== 0) {
        record = (record + 1) & this.touchedMask
        at = record * 8
      }
      if (this.touchedInt[at + TOUCHED_KEY] === 0) {
        this.touchedInt[at + TOUCHED_KEY] = key
        this.touchedCovered[record * 4] = idf
        this.touchedFloat[at + TOUCHED_BEST] = idf
        this.touchedInt[at + TOUCHED_TOKEN] = token
        this.touchedInt[at + TOUCHED_SKILL] = postInt[post + POST_SKILL] as number
        this.touchedFloat[at + TOUCHED_WEIGHT] = postFloat[post + POST_WEIGHT] as number
        this.touchedFloat[at + TOUCHED_TOTAL] = postFloat[post + POST_TOTAL] as number
        this.noteTouched(record)
      } else {
        ;(this.touchedCovered[record * 4] as number) += idf
        if (idf > (this.touchedFloat[at + TOUCHED_BEST] as number)) {
          this.touchedFloat[at + TOUCHED_BEST] = idf
          this.touchedInt[at + TOUCHED_TOKEN] = token
        }
      }
    }
  }

  /**
   * Scores the skills of the terms added since `begin` and keeps the best `RANKED_SKILLS` in
   * `ranked`, `rankedScore` (raw scores, see `calibrated`) and `rankedToken` (the token of the
   * word that evidences the skill most).
   */
  finish(): number {
    // A text with no evidence (no term any unit holds) ranks nothing.
    if (this.touchedCount === 0) return 0
    this.scoreSkills()
    this.keepBest()
    this.expandClusters()
    return this.rankedCount
  }

  /** Lists a newly used record; doubles the table when half of it is in use. */
  private noteTouched(record: number) {
    if (this.touchedCount === this.touchedRecords.length) this.touchedRecords = grown(this.touchedRecords)
    this.touchedRecords[this.touchedCount++] = record
    if (this.touchedCount * 2 > this.touchedMask) this.allocateTouched((this.touchedMask + 1) * 2)
  }

  /** A table of `size` records (a power of two) holding the records in use, in the same order. */
  private allocateTouched(size: number) {
    // The float32 slots move with the int32 view's copy of their bits.
    const { touchedCovered, touchedInt } = this
    const buffer = new ArrayBuffer(size * 32)
    this.touchedCovered = new Float64Array(buffer)
    this.touchedInt = new Int32Array(buffer)
    this.touchedFloat = new Float32Array(buffer)
    this.touchedMask = size - 1
    for (let index = 0; index < this.touchedCount; index++) {
      const old = this.touchedRecords[index] as number
      let record = Math.imul(touchedInt[old * 8 + TOUCHED_KEY] as number, 0x9e3779b1) & this.touchedMask
      while (this.touchedInt[record * 8 + TOUCHED_KEY] !== 0) record = (record + 1) & this.touchedMask
      this.touchedCovered[record * 4] = touchedCovered[old * 4] as number
      for (let slot = TOUCHED_KEY; slot <= TOUCHED_TOTAL; slot++)
        this.touchedInt[record * 8 + slot] = touchedInt[old * 8 + slot] as number
      this.touchedRecords[index] = record
    }
  }

  /** Each touched skill's score: its best label score plus its description scores; frees the records. */
  private scoreSkills() {
    const { touchedCovered, touchedInt, touchedFloat, touchedRecords, skillFloat, skillInt, stamp } = this
    let touchedSkills = this.touchedSkills
    let skills = 0
    for (let index = 0; index < this.touchedCount; index++) {
      const record = touchedRecords[index] as number
      const at = record * 8
      touchedInt[at + TOUCHED_KEY] = 0
      const weight = touchedFloat[at + TOUCHED_WEIGHT] as number
      if (weight === 0) continue
      const covered = touchedCovered[record * 4] as number
      const posted = touchedInt[at + TOUCHED_SKILL] as number
      const description = posted < 0
      let score: number
      if (description) score = (weight * covered) / (covered + DESCRIPTION_HALF)
      else {
        const coverage = covered / (touchedFloat[at + TOUCHED_TOTAL] as number)
        // The covered share to the power 1.5 (a label covered whole stands out); sqrt is far cheaper than pow.
        score = weight * coverage * Math.sqrt(coverage) * (covered / (covered + LABEL_HALF))
      }
      const skill = description ? ~posted : posted
      const base = skill * 4
      if (skillInt[base * 2 + SKILL_STAMP] !== stamp) {
        skillInt[base * 2 + SKILL_STAMP] = stamp
        skillFloat[base + SKILL_DESCRIPTION] = 0
        skillFloat[base + SKILL_LABEL] = 0
        skillFloat[base + SKILL_BEST] = -1
        if (skills === touchedSkills.length) this.touchedSkills = touchedSkills = grown(touchedSkills)
        touchedSkills[skills++] = skill
      }
      if (description) (skillFloat[base + SKILL_DESCRIPTION] as number) += score
      else if (score > (skillFloat[base + SKILL_LABEL] as number)) skillFloat[base + SKILL_LABEL] = score
      if (score > (skillFloat[base + SKILL_BEST] as number)) {
        skillFloat[base + SKILL_BEST] = score
        skillInt[base * 2 + SKILL_TOKEN] = touchedInt[at + TOUCHED_TOKEN] as number
      }
    }
    this.touchedCount = 0
    this.skillCount = skills
  }

  /** The best skills by score into `ranked` (a bounded insertion: texts touch few hundred skills). */
  private keepBest() {
    let count = 0
    const { ranked, rankedScore: scores, touchedSkills, skillFloat, skillInt } = this
    for (let index = 0; index < this.skillCount; index++) {
      const skill = touchedSkills[index] as number
      const score =
        (skillFloat[skill * 4 + SKILL_DESCRIPTION] as number) +
        (skillFloat[skill * 4 + SKILL_LABEL] as number)
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
      this.rankedToken[index] = skillInt[(ranked[index] as number) * 8 + SKILL_TOKEN] as number
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

/** The postings of every text language with what scoring needs of their units (see `POST_SLOTS`). */
function packPostings(compiled: CompiledRanker, postInt: Int32Array, postFloat: Float32Array): void {
  const { termStart, postUnit, postIdf, unitSkill, unitWeight, unitTotal, unitDescription } = compiled
  const units = unitSkill.length
  const terms = compiled.terms.length
  for (let language = 0; language * (terms + 1) < termStart.length; language++) {
    const from = termStart[language * (terms + 1)] as number
    const to = termStart[language * (terms + 1) + terms] as number
    for (let at = from; at < to; at++) {
      const unit = postUnit[at] as number
      const post = at * POST_SLOTS
      const skill = unitSkill[unit] as number
      postInt[post + POST_UNIT] = unit
      postFloat[post + POST_IDF] = postIdf[at] as number
      postInt[post + POST_SKILL] = unitDescription[unit] === 1 ? ~skill : skill
      postFloat[post + POST_WEIGHT] = unitWeight[language * units + unit] as number
      postFloat[post + POST_TOTAL] = unitTotal[language * units + unit] as number
    }
  }
}

function grown(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}
