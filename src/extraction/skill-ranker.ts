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
 * The items (units, or skills) the current text touched, in the order it touched them, each with
 * its sums in dense arrays indexed by that order (its slot), so that scoring reads them in a row.
 * An item's slot is found by one read of `mark`: `mark[item] - base` is the slot when it lies in
 * [0, count), else the item is untouched (marks of earlier texts lie below `base`).
 */
class TouchedItems {
  readonly mark: Int32Array
  base = 0
  count = 0
  item = new Int32Array(256)
  /** Units: idf covered; skills: description scores. */
  sum = new Float64Array(256)
  /** Units: the best idf; skills: the best label score. */
  best = new Float64Array(256)
  /** The best evidence's score (skills only) and its token. */
  bestScore = new Float64Array(256)
  token = new Int32Array(256)
  /** Units only: what `postingFacts` says of the unit (skill, field weight, description) and its total idf. */
  fact = new Int32Array(256)
  total = new Float64Array(256)

  constructor(items: number) {
    this.mark = new Int32Array(items).fill(-1)
  }

  /** Starts a text: the marks of the one before become stale. */
  reset(): void {
    this.base += this.count
    this.count = 0
    if (this.base > 0x3fffffff) {
      this.mark.fill(-1)
      this.base = 0
    }
  }

  /** A new slot for `item` (not touched yet in this text). */
  add(item: number): number {
    const slot = this.count++
    if (slot === this.item.length) this.grow()
    this.mark[item] = this.base + slot
    this.item[slot] = item
    return slot
  }

  private grow() {
    const size = this.item.length * 2
    this.item = grownInt32(this.item, size)
    this.token = grownInt32(this.token, size)
    this.fact = grownInt32(this.fact, size)
    this.total = grownFloat64(this.total, size)
    this.sum = grownFloat64(this.sum, size)
    this.best = grownFloat64(this.best, size)
    this.bestScore = grownFloat64(this.bestScore, size)
  }
}

/** `keepBest`'s score buckets: per point of raw score, and how many (higher scores share the last). */
const BUCKETS_PER_POINT = 64
const BUCKETS = 256

/** Beyond this many skills in the edge bucket, `edgeFloor` selects rather than sorts. */
const EDGE_INSERTION = 48

/** The bucket of a raw score (see `keepBest`). */
function bucketOf(score: number): number {
  const bucket = (score * BUCKETS_PER_POINT) | 0
  return bucket < BUCKETS ? bucket : BUCKETS - 1
}

/** Numbers per posting in `SkillRanker.postings`: unit, idf, the unit's total idf, its fact. */
const POSTING = 4

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
  /**
   * The postings with what scoring their unit reads beside them, so that a text's units are
   * scored from the postings it read in a row rather than from four arrays at random places: per
   * posting its unit, idf, the unit's total idf in the language and its fact (skill << 4 | field
   * weight number << 1 | 1 for a description). `postingInts` is the same memory.
   */
  private readonly postings: Float32Array
  private readonly postingInts: Int32Array
  /** The field weights by number (see `postings`). */
  private readonly weights: Float64Array
  /** The units the current text touched, each with the idf of the text's terms it covers. */
  private readonly units: TouchedItems
  /** The skills of the touched units, each with its description score and best label score. */
  private readonly skills: TouchedItems
  /** The current text's stamp (of its terms). */
  private stamp = 0
  private language = 0
  /** The best skills of the last text, best first. */
  readonly ranked = new Int32Array(RANKED_SKILLS)
  readonly rankedScore = new Float64Array(RANKED_SKILLS)
  readonly rankedToken = new Int32Array(RANKED_SKILLS)
  rankedCount = 0
  private readonly gains = new Float64Array(RANKED_SKILLS)
  /** Scratch of `keepBest`: skills per score bucket, and the skills of the edge bucket and their scores. */
  private readonly histogram = new Int32Array(BUCKETS)
  private edgeSlots = new Int32Array(256)
  private edgeScores = new Float64Array(256)
  private readonly clusterStamp: Int32Array
  private readonly clusterFirst: Float64Array
  private readonly clusterSecond: Float64Array

  constructor(private readonly compiled: CompiledRanker) {
    for (let term = 0; term < compiled.terms.length; term++)
      this.termNumbers.set(compiled.terms[term] as string, term)
    this.termCount = compiled.terms.length
    this.unitCount = compiled.unitSkill.length
    this.termStamp = new Int32Array(this.termCount)
    ;({ postings: this.postings, weights: this.weights } = postingsWithFacts(compiled))
    this.postingInts = new Int32Array(this.postings.buffer)
    this.units = new TouchedItems(this.unitCount)
    this.skills = new TouchedItems(compiled.skillCluster.length)
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
      this.clusterStamp.fill(0)
      this.stamp = 1
    }
    this.language = language
    this.units.reset()
    this.rankedCount = 0
  }

  /** Adds a term of the text found at token `token`; a term counts once per text. */
  addTerm(term: number, token: number): void {
    const stamp = this.stamp
    if (this.termStamp[term] === stamp) return
    this.termStamp[term] = stamp
    const termStart = this.compiled.termStart
    const { postings, postingInts } = this
    const units = this.units
    const { mark, base } = units
    const at = this.language * (this.termCount + 1) + term
    const last = (termStart[at + 1] as number) * POSTING
    for (let post = (termStart[at] as number) * POSTING; post < last; post += POSTING) {
      const unit = postingInts[post] as number
      const idf = postings[post + 1] as number
      const slot = (mark[unit] as number) - base
      if (slot < 0 || slot >= units.count) {
        const fresh = units.add(unit)
        units.sum[fresh] = idf
        units.best[fresh] = idf
        units.token[fresh] = token
        units.total[fresh] = postings[post + 2] as number
        units.fact[fresh] = postingInts[post + 3] as number
      } else {
        ;(units.sum[slot] as number) += idf
        if (idf > (units.best[slot] as number)) {
          units.best[slot] = idf
          units.token[slot] = token
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
    const weights = this.weights
    const units = this.units
    const { sum: covers, token: unitToken, fact: facts, total: totals, count } = units
    const skills = this.skills
    skills.reset()
    const { mark } = skills
    for (let slot = 0; slot < count; slot++) {
      const fact = facts[slot] as number
      const weight = weights[(fact >> 1) & 7] as number
      if (weight === 0) continue
      const covered = covers[slot] as number
      const description = (fact & 1) === 1
      let score: number
      if (description) score = (weight * covered) / (covered + DESCRIPTION_HALF)
      else {
        const coverage = covered / (totals[slot] as number)
        // The covered share to the power 1.5 (a label covered whole stands out); sqrt is far cheaper than pow.
        score = weight * coverage * Math.sqrt(coverage) * (covered / (covered + LABEL_HALF))
      }
      const skill = fact >> 4
      let own = (mark[skill] as number) - skills.base
      if (own < 0 || own >= skills.count) {
        own = skills.add(skill)
        skills.sum[own] = 0
        skills.best[own] = 0
        skills.bestScore[own] = -1
      }
      if (description) (skills.sum[own] as number) += score
      else if (score > (skills.best[own] as number)) skills.best[own] = score
      if (score > (skills.bestScore[own] as number)) {
        skills.bestScore[own] = score
        skills.token[own] = unitToken[slot] as number
      }
    }
    const { sum, best } = skills
    for (let slot = 0; slot < skills.count; slot++) (sum[slot] as number) += best[slot] as number
    this.keepBest()
    this.expandClusters()
    return this.rankedCount
  }

  /**
   * The best `RANKED_SKILLS` skills into `ranked`, in no order yet (`expandClusters` sorts them).
   * Scores are counted in buckets of 1/`BUCKETS_PER_POINT` first: the skills of the buckets above
   * the one that holds the `RANKED_SKILLS`-th best score are in, and only that bucket's few
   * skills are compared (comparing every skill with the others mispredicts a branch each time,
   * and cost more than all the scoring). When skills tie at the last place, a bounded insertion
   * of those at or above it, in the order the text touched them, chooses as inserting every
   * skill did.
   */
  private keepBest() {
    const { ranked, rankedScore, rankedToken, histogram } = this
    const { item: touched, sum: skillScore, token: skillToken, count: touchedCount } = this.skills
    let count = 0
    if (touchedCount <= RANKED_SKILLS) {
      for (let slot = 0; slot < touchedCount; slot++) {
        ranked[count] = touched[slot] as number
        rankedScore[count] = skillScore[slot] as number
        rankedToken[count++] = skillToken[slot] as number
      }
      this.rankedCount = count
      return
    }
    if (this.edgeSlots.length < touchedCount) {
      this.edgeSlots = new Int32Array(touched.length)
      this.edgeScores = new Float64Array(touched.length)
    }
    histogram.fill(0)
    for (let slot = 0; slot < touchedCount; slot++)
      (histogram[bucketOf(skillScore[slot] as number)] as number)++
    let edge = BUCKETS - 1
    let above = 0
    while (above + (histogram[edge] as number) < RANKED_SKILLS) above += histogram[edge--] as number
    // The skills above the edge bucket are in; those in it wait in `edgeSlots`.
    let waiting = 0
    const { edgeSlots } = this
    for (let slot = 0; slot < touchedCount; slot++) {
      const bucket = bucketOf(skillScore[slot] as number)
      if (bucket > edge) {
        ranked[count] = touched[slot] as number
        rankedScore[count] = skillScore[slot] as number
        rankedToken[count++] = skillToken[slot] as number
      } else if (bucket === edge) edgeSlots[waiting++] = slot
    }
    const floor = this.edgeFloor(waiting, RANKED_SKILLS - above)
    for (let index = 0; index < waiting; index++) {
      const slot = edgeSlots[index] as number
      const score = skillScore[slot] as number
      if (score < floor) continue
      ranked[count] = touched[slot] as number
      rankedScore[count] = score
      rankedToken[count++] = skillToken[slot] as number
    }
    // More skills than places at or above the floor: some tie at it.
    if (count > RANKED_SKILLS) return this.insertBest(floor)
    this.rankedCount = count
  }

  /**
   * The `place`-th best score of the `waiting` skills in `edgeSlots`: an insertion sort when they
   * are few (as they are when scores spread over the buckets), else a quickselect (when most
   * scores fall in one bucket, as they may with a large vocabulary).
   */
  private edgeFloor(waiting: number, place: number): number {
    const { edgeSlots } = this
    const scores = this.edgeScores
    const skillScore = this.skills.sum
    if (waiting > EDGE_INSERTION) {
      for (let index = 0; index < waiting; index++)
        scores[index] = skillScore[edgeSlots[index] as number] as number
      return kthLargest(scores, waiting, place)
    }
    for (let index = 0; index < waiting; index++) {
      const score = skillScore[edgeSlots[index] as number] as number
      let at = index
      while (at > 0 && (scores[at - 1] as number) < score) {
        scores[at] = scores[at - 1] as number
        at--
      }
      scores[at] = score
    }
    return scores[place - 1] as number
  }

  /** `keepBest` when skills tie at the floor: an insertion of those at or above it, best first. */
  private insertBest(floor: number) {
    const { ranked, rankedScore: scores, rankedToken: tokens } = this
    const { item: touched, sum: skillScore, token: skillToken, count: touchedCount } = this.skills
    let count = 0
    for (let slot = 0; slot < touchedCount; slot++) {
      const score = skillScore[slot] as number
      if (score < floor || (count === RANKED_SKILLS && score <= (scores[count - 1] as number))) continue
      const skill = touched[slot] as number
      let at = count < RANKED_SKILLS ? count++ : count - 1
      while (at > 0 && before(score, skill, scores[at - 1] as number, ranked[at - 1] as number)) {
        ranked[at] = ranked[at - 1] as number
        scores[at] = scores[at - 1] as number
        tokens[at] = tokens[at - 1] as number
        at--
      }
      ranked[at] = skill
      scores[at] = score
      tokens[at] = skillToken[slot] as number
    }
    this.rankedCount = count
  }

  /**
   * A skill gains a share of the best evidence of the other skills of its cluster among the
   * ranked ones: several neighbours evidenced at once point at the cluster. Then the ranked
   * skills are sorted by score (ties by skill number).
   */
  private expandClusters() {
    const { skillCluster } = this.compiled
    const { ranked, rankedScore, rankedToken, gains, clusterStamp, clusterFirst, clusterSecond } = this
    const count = this.rankedCount
    // The best and second best score of each cluster among the ranked skills (clusters by stamp).
    const stamp = this.stamp
    for (let index = 0; index < count; index++) {
      const cluster = skillCluster[ranked[index] as number] as number
      if (cluster < 0) continue
      const score = rankedScore[index] as number
      if (clusterStamp[cluster] !== stamp) {
        clusterStamp[cluster] = stamp
        clusterFirst[cluster] = score
        clusterSecond[cluster] = 0
      } else if (score > (clusterFirst[cluster] as number)) {
        clusterSecond[cluster] = clusterFirst[cluster] as number
        clusterFirst[cluster] = score
      } else if (score > (clusterSecond[cluster] as number)) clusterSecond[cluster] = score
    }
    for (let index = 0; index < count; index++) {
      const cluster = skillCluster[ranked[index] as number] as number
      gains[index] = 0
      if (cluster < 0) continue
      const first = clusterFirst[cluster] as number
      // The best of the others: the second best when this skill is the best.
      gains[index] =
        CLUSTER_SHARE *
        ((rankedScore[index] as number) === first ? (clusterSecond[cluster] as number) : first)
    }
    for (let index = 0; index < count; index++) (rankedScore[index] as number) += gains[index] as number
    // Insertion sort of the few ranked skills by their new scores (ties by skill number).
    for (let index = 1; index < count; index++) {
      const skill = ranked[index] as number
      const score = rankedScore[index] as number
      const token = rankedToken[index] as number
      let at = index - 1
      while (at >= 0 && before(score, skill, rankedScore[at] as number, ranked[at] as number)) {
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

/** Whether a skill ranks before another: a higher score, or the same and a lower number. */
function before(score: number, skill: number, otherScore: number, other: number): boolean {
  return score > otherScore || (score === otherScore && skill < other)
}

/** A raw ranker score as a confidence in [0, 1). */
export function calibrated(raw: number): number {
  return 1 - Math.exp(-raw / 0.6)
}

/**
 * The `k`-th largest of values[0 … count) (1 ≤ k ≤ count), reordering them: a quickselect,
 * linear on average.
 */
function kthLargest(values: Float64Array, count: number, k: number): number {
  const target = k - 1
  let low = 0
  let high = count - 1
  while (low < high) {
    const pivot = values[(low + high) >>> 1] as number
    let left = low
    let right = high
    // Hoare's partition, largest first: [low, right] ≥ pivot ≥ [left, high].
    while (left <= right) {
      while ((values[left] as number) > pivot) left++
      while ((values[right] as number) < pivot) right--
      if (left <= right) {
        const swap = values[left] as number
        values[left++] = values[right] as number
        values[right--] = swap
      }
    }
    if (target <= right) high = right
    else if (target >= left) low = left
    else return pivot
  }
  return values[target] as number
}

/** The compiled postings with their units' facts beside them (see `SkillRanker.postings`). */
function postingsWithFacts(compiled: CompiledRanker): { postings: Float32Array; weights: Float64Array } {
  const { termStart, postUnit, postIdf, unitSkill, unitTotal, unitWeight, unitDescription } = compiled
  const units = unitSkill.length
  const termsPlusOne = compiled.terms.length + 1
  const postings = new Float32Array(postUnit.length * POSTING)
  const ints = new Int32Array(postings.buffer)
  const weights: number[] = []
  for (let language = 0; language * termsPlusOne < termStart.length; language++) {
    const first = termStart[language * termsPlusOne] as number
    const last = termStart[(language + 1) * termsPlusOne - 1] as number
    for (let post = first; post < last; post++) {
      const unit = postUnit[post] as number
      const weight = unitWeight[language * units + unit] as number
      let number = weights.indexOf(weight)
      if (number < 0) number = weights.push(weight) - 1
      ints[post * POSTING] = unit
      postings[post * POSTING + 1] = postIdf[post] as number
      postings[post * POSTING + 2] = unitTotal[language * units + unit] as number
      ints[post * POSTING + 3] =
        ((unitSkill[unit] as number) << 4) | (number << 1) | (unitDescription[unit] as number)
    }
  }
  if (weights.length > 8) throw new Error(`the ranker has ${weights.length} field weights, at most 8 fit`)
  return { postings, weights: Float64Array.from(weights) }
}

function grownInt32(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(size)
  bigger.set(array)
  return bigger
}

function grownFloat64(array: Float64Array, size: number): Float64Array<ArrayBuffer> {
  const bigger = new Float64Array(size)
  bigger.set(array)
  return bigger
}
