import { packArrays, unpackArrays } from '../util/packed-arrays.js'
import { type CompiledRanker, compileRanker } from './compile-ranker.js'
import type { TextLanguageCode } from './detect-language.js'
import { isUpperWord, LABEL_TEXT_LANGUAGE, normaliseWord, Stemmers, scanWords } from './text-tokens.js'
import { type LabelInput, type SkillFacts, TEXT_LANGUAGES } from './vocabulary-input.js'
/** Root nodes: the exact trie, the stemmed tries (one per text language), the one-word labels. */
export const EXACT_ROOT = 0
export const STEMMED_ROOT = 1
export const SINGLE_ROOT = 5
const ROOTS = 6
export const HAS_ENTRIES = 1
export const HAS_CHILDREN = 2
export const HAS_UPPER_ONLY = 4

/**
 * A compiled vocabulary: word tries as numbered nodes, in typed arrays on shared memory, so that
 * worker threads get it without compiling it again or copying it. A node's children are reached
 * by terms (a normalised word, a stem, or a hyphenated label written as one word), listed in term
 * order next to each other; a node's entries are the skills whose label ends there.
 */
export interface CompiledVocabulary {
  skillIds: string[]
  /** Per skill: its names as language, label, language, label… (first given first). */
  names: string[][]
  /** The text of each term, by term number. */
  terms: string[]
  /** Terms of the exact root's edges, sorted by their text: finds words that may begin a hyphenated label. */
  rootTerms: Int32Array
  /** Node n's children are childTerm/childNode[nodeChildren[n] … nodeChildren[n + 1]), by term. */
  nodeChildren: Int32Array
  childTerm: Int32Array
  childNode: Int32Array
  /** Node n's entries are entries nodeEntries[n] up to nodeEntries[n + 1]. */
  nodeEntries: Int32Array
  /** Per node: HAS_ENTRIES, HAS_CHILDREN, HAS_UPPER_ONLY (one of its entries is upper-only). */
  nodeFlags: Uint8Array
  entrySkill: Int32Array
  entryConfidence: Float64Array
  /** Short all-capital labels ("AP", "HR") match only all-capital text. */
  entryUpperOnly: Uint8Array
  /** Bit i set when the stemmed trie of TEXT_LANGUAGES[i] exists. */
  stemmedLanguages: number
  /** The ranker of skills a text implies (compile-ranker.ts, skill-ranker.ts), over the same skill numbers. */
  ranker: CompiledRanker
}

const STEMMED = 0.9
/** Limits that let a term and a node share one safe integer (see `childLists`). */
const MAX_TERMS = 2 ** 24
const MAX_NODES = 2 ** 29
/** Beyond this many skills at one node, finding a skill there goes through a map instead of the chain. */
const LONG_CHAIN = 32

/**
 * Compiles labels (of any size of vocabulary) into word tries: exact, hyphenated labels written
 * as one word, stemmed per language with Snowball, and the one-word labels that German and Dutch
 * compounds begin or end with. Each label's confidence: name 1, alias 0.95, stemmed ×0.9, times
 * its specificity (more words, rarer words: a word many skills' labels share is generic).
 */
export function compileVocabulary(
  labels: readonly LabelInput[],
  stemmers: Stemmers = new Stemmers(),
  facts: readonly SkillFacts[] = [],
): CompiledVocabulary {
  const tries = new TrieBuilder()
  const table = new LabelTable(labels, tries)
  const documentFrequency = labelDocumentFrequency(table, tries.termCount)
  const skillTotal = Math.max(table.skillIds.length, 1)
  const stemTerms = TEXT_LANGUAGES.map(() => new Map<number, number>())
  for (let label = 0; label < table.labelSkill.length; label++) {
    const skill = table.labelSkill.at(label)
    const flags = table.labelFlags.at(label)
    const upper = (flags & UPPER) !== 0
    const norms = table.normsOf(label)
    const confidence = (flags & NAME ? 1 : 0.95) * specificity(norms, documentFrequency, skillTotal)
    tries.add(tries.path(EXACT_ROOT, norms), skill, confidence, upper)
    if (norms.length > 1) {
      const joined = tries.term(norms.map((norm) => tries.text(norm)).join(''))
      tries.add(tries.path(EXACT_ROOT, [joined]), skill, confidence, upper)
    }
    if (norms.length === 1 && tries.text(norms[0] as number).length >= 5)
      tries.add(tries.path(SINGLE_ROOT, norms), skill, confidence, upper)
    const stemLanguage = table.labelStem.at(label)
    if (stemLanguage >= 0 && !upper) {
      const stems = stemsOf(
        tries,
        norms,
        stemLanguage,
        stemTerms[stemLanguage] as Map<number, number>,
        stemmers,
      )
      tries.add(tries.path(STEMMED_ROOT + stemLanguage, stems), skill, confidence * STEMMED, upper)
    }
  }
  return tries.finish(
    table.skillIds,
    table.names.map((byLanguage) => [...byLanguage].flat()),
    compileRanker(labels, facts, table.skillIndex, stemmers),
  )
}

const NAME = 1
const UPPER = 2

/**
 * The skills of the labels, numbered as first met, with their names; and the labels that make
 * it into the tries, flat: skill, flags (NAME, UPPER), stem language, and their words as terms.
 */
class LabelTable {
  readonly skillIds: string[] = []
  readonly skillIndex = new Map<string, number>()
  /** Per skill: its name in each language. */
  readonly names: Map<string, string>[] = []
  readonly labelSkill = new IntList()
  readonly labelFlags = new IntList()
  readonly labelStem = new IntList()
  /** The words of label l: labelNorms[normsFrom[l] … normsFrom[l + 1]). */
  readonly labelNorms = new IntList()
  readonly normsFrom = new IntList()

  constructor(labels: readonly LabelInput[], tries: TrieBuilder) {
    const { skillIds, skillIndex, names, labelSkill, labelFlags, labelStem, labelNorms, normsFrom } = this
    for (const label of labels) {
      let skill = skillIndex.get(label.skill_id)
      if (skill === undefined) {
        skill = skillIds.push(label.skill_id) - 1
        skillIndex.set(label.skill_id, skill)
        names.push(new Map())
      }
      if (label.kind === 'name') names[skill]?.set(label.language, label.label)
      const words = scanWords(label.label).map((span) => label.label.slice(span.start, span.end))
      // One letter alone ("R", "C") is too ambiguous to find in text; its aliases carry it.
      if (words.length === 0) continue
      const first = normaliseWord(words[0] as string)
      if (words.length === 1 && first.length < 2) continue
      const upper = words.length === 1 && first.length <= 3 && isUpperWord(words[0] as string)
      labelSkill.push(skill)
      labelFlags.push((label.kind === 'name' ? NAME : 0) | (upper ? UPPER : 0))
      labelStem.push(LABEL_TEXT_LANGUAGE.get(label.language) ?? -1)
      normsFrom.push(labelNorms.length)
      labelNorms.push(tries.term(first))
      for (let index = 1; index < words.length; index++)
        labelNorms.push(tries.term(normaliseWord(words[index] as string)))
    }
    normsFrom.push(labelNorms.length)
  }

  /** The words of a label, as terms. */
  normsOf(label: number): number[] {
    return Array.from(this.labelNorms.array.subarray(this.normsFrom.at(label), this.normsFrom.at(label + 1)))
  }
}

/** How many skills have a label with each word, counted skill by skill. */
function labelDocumentFrequency(table: LabelTable, termCount: number): Int32Array {
  const { labelSkill, labelNorms, normsFrom, skillIds } = table
  const documentFrequency = new Int32Array(termCount)
  const lastSkill = new Int32Array(termCount).fill(-1)
  for (const label of bySkill(labelSkill, skillIds.length)) {
    const skill = labelSkill.at(label)
    for (let at = normsFrom.at(label); at < normsFrom.at(label + 1); at++) {
      const norm = labelNorms.at(at)
      if (lastSkill[norm] === skill) continue
      lastSkill[norm] = skill
      documentFrequency[norm] = (documentFrequency[norm] as number) + 1
    }
  }
  return documentFrequency
}

/** Specific: more words, rarer words. A lone word that many skills' labels share is generic. */
function specificity(norms: readonly number[], documentFrequency: Int32Array, skillTotal: number): number {
  let rarity = Infinity
  for (const norm of norms) {
    const frequency = documentFrequency[norm] as number
    rarity = Math.min(rarity, 1 - Math.min(0.5, (frequency - 1) / (skillTotal * 0.01 + 4)))
  }
  return Math.min(1, 0.7 + 0.15 * (norms.length - 1)) * rarity
}

/** A label's words stemmed in text language `stemLanguage`, each word stemmed once per language (`known`). */
function stemsOf(
  tries: TrieBuilder,
  norms: readonly number[],
  stemLanguage: number,
  known: Map<number, number>,
  stemmers: Stemmers,
): number[] {
  const code = TEXT_LANGUAGES[stemLanguage] as TextLanguageCode
  tries.stemmedLanguages |= 1 << stemLanguage
  return norms.map((norm) => {
    let stem = known.get(norm)
    if (stem === undefined) known.set(norm, (stem = tries.term(stemmers.stem(tries.text(norm), code))))
    return stem
  })
}

/** The positions of the labels ordered by skill (a counting sort). */
function bySkill(labelSkill: IntList, skills: number): Int32Array {
  const start = new Int32Array(skills + 1)
  for (let label = 0; label < labelSkill.length; label++) {
    const next = labelSkill.at(label) + 1
    start[next] = (start[next] as number) + 1
  }
  for (let skill = 0; skill < skills; skill++)
    start[skill + 1] = (start[skill + 1] as number) + (start[skill] as number)
  const order = new Int32Array(labelSkill.length)
  for (let label = 0; label < labelSkill.length; label++)
    order[(start[labelSkill.at(label)] as number)++] = label
  return order
}

/**
 * Builds the tries: terms by number, edges in an open-addressing table of their own, each node's
 * entries as a chain in label order, all in growable typed arrays (a vocabulary of half a
 * million labels makes millions of them); `finish` lays them out for the extractor.
 */
class TrieBuilder {
  private readonly termNumbers = new Map<string, number>()
  private readonly terms: string[] = []
  private readonly edgeParent = new IntList()
  private readonly edgeTerm = new IntList()
  private readonly edgeChild = new IntList()
  private slots: Int32Array = new Int32Array(1 << 12)
  /** Per node: its first and last entry (-1 when none) and how many. */
  private readonly nodeFirst = new IntList()
  private readonly nodeLast = new IntList()
  private readonly nodeLength = new IntList()
  private readonly longChains = new Map<number, Map<number, number>>()
  private readonly entryNext = new IntList()
  private readonly entrySkill = new IntList()
  private readonly entryConfidence: number[] = []
  private readonly entryUpperOnly = new IntList()
  stemmedLanguages = 0

  constructor() {
    for (let root = 0; root < ROOTS; root++) this.newNode()
  }

  get termCount(): number {
    return this.terms.length
  }

  /** The number of a term, given one on first sight. */
  term(text: string): number {
    let term = this.termNumbers.get(text)
    if (term === undefined) {
      term = this.terms.push(text) - 1
      if (term >= MAX_TERMS) throw new Error(`a vocabulary holds at most ${MAX_TERMS} distinct words`)
      this.termNumbers.set(text, term)
    }
    return term
  }

  text(term: number): string {
    return this.terms[term] as string
  }

  /** The node reached from `root` by the terms, created as needed. */
  path(root: number, terms: readonly number[]): number {
    let node = root
    for (const term of terms) node = this.child(node, term)
    return node
  }

  private newNode(): number {
    const node = this.nodeFirst.push(-1)
    if (node >= MAX_NODES) throw new Error(`a vocabulary compiles to at most ${MAX_NODES} trie nodes`)
    this.nodeLast.push(-1)
    this.nodeLength.push(0)
    return node
  }

  private child(parent: number, term: number): number {
    const mask = this.slots.length - 1
    let slot = edgeHash(parent, term) & mask
    for (;;) {
      const edge = (this.slots[slot] as number) - 1
      if (edge < 0) break
      if (this.edgeParent.at(edge) === parent && this.edgeTerm.at(edge) === term)
        return this.edgeChild.at(edge)
      slot = (slot + 1) & mask
    }
    const child = this.newNode()
    const edge = this.edgeChild.push(child)
    this.edgeParent.push(parent)
    this.edgeTerm.push(term)
    this.slots[slot] = edge + 1
    if (this.edgeChild.length * 2 > this.slots.length)
      this.slots = edgeTable(this.edgeParent, this.edgeTerm, this.slots.length * 2)
    return child
  }

  /** Adds a skill to a node; the same skill there twice (its name and an alias) keeps the stronger. */
  add(node: number, skill: number, confidence: number, upperOnly: boolean) {
    const known = this.find(node, skill)
    if (known >= 0) {
      if ((this.entryConfidence[known] as number) < confidence) {
        this.entryConfidence[known] = confidence
        this.entryUpperOnly.set(known, upperOnly ? 1 : 0)
      }
      return
    }
    const entry = this.entrySkill.push(skill)
    this.entryConfidence.push(confidence)
    this.entryUpperOnly.push(upperOnly ? 1 : 0)
    this.entryNext.push(-1)
    const last = this.nodeLast.at(node)
    if (last < 0) this.nodeFirst.set(node, entry)
    else this.entryNext.set(last, entry)
    this.nodeLast.set(node, entry)
    const length = this.nodeLength.at(node) + 1
    this.nodeLength.set(node, length)
    if (length === LONG_CHAIN) {
      const bySkill = new Map<number, number>()
      for (let at = this.nodeFirst.at(node); at >= 0; at = this.entryNext.at(at))
        bySkill.set(this.entrySkill.at(at), at)
      this.longChains.set(node, bySkill)
    } else if (length > LONG_CHAIN) this.longChains.get(node)?.set(skill, entry)
  }

  /** The entry of a skill at a node, or -1. */
  private find(node: number, skill: number): number {
    if (this.nodeLength.at(node) >= LONG_CHAIN) return this.longChains.get(node)?.get(skill) ?? -1
    for (let at = this.nodeFirst.at(node); at >= 0; at = this.entryNext.at(at))
      if (this.entrySkill.at(at) === skill) return at
    return -1
  }

  finish(skillIds: string[], names: string[][], ranker: CompiledRanker): CompiledVocabulary {
    const nodes = this.nodeFirst.length
    const nodeEntries = sharedInt32(nodes + 1)
    const nodeFlags = new Uint8Array(new SharedArrayBuffer(nodes))
    const entries = this.entrySkill.length
    const entrySkill = sharedInt32(entries)
    const entryConfidence = new Float64Array(new SharedArrayBuffer(entries * 8))
    const entryUpperOnly = new Uint8Array(new SharedArrayBuffer(entries))
    let at = 0
    for (let node = 0; node < nodes; node++) {
      nodeEntries[node] = at
      for (let entry = this.nodeFirst.at(node); entry >= 0; entry = this.entryNext.at(entry)) {
        entrySkill[at] = this.entrySkill.at(entry)
        entryConfidence[at] = this.entryConfidence[entry] as number
        entryUpperOnly[at] = this.entryUpperOnly.at(entry)
        nodeFlags[node] =
          (nodeFlags[node] as number) | HAS_ENTRIES | (this.entryUpperOnly.at(entry) ? HAS_UPPER_ONLY : 0)
        at++
      }
    }
    nodeEntries[nodes] = at
    const rootTerms: number[] = []
    for (let edge = 0; edge < this.edgeParent.length; edge++) {
      const parent = this.edgeParent.at(edge)
      nodeFlags[parent] = (nodeFlags[parent] as number) | HAS_CHILDREN
      if (parent === EXACT_ROOT) rootTerms.push(this.edgeTerm.at(edge))
    }
    rootTerms.sort((a, b) => {
      const left = this.terms[a] as string
      const right = this.terms[b] as string
      return left < right ? -1 : left > right ? 1 : 0
    })
    return {
      skillIds,
      names,
      terms: this.terms,
      rootTerms: sharedInt32From(rootTerms),
      ...childLists(this.edgeParent, this.edgeTerm, this.edgeChild, nodes),
      nodeEntries,
      nodeFlags,
      entrySkill,
      entryConfidence,
      entryUpperOnly,
      stemmedLanguages: this.stemmedLanguages,
      ranker,
    }
  }
}

/** A growable array of 32-bit integers: half the memory of an array of numbers, and no garbage per push. */
class IntList {
  array = new Int32Array(1024)
  length = 0

  /** Appends a value; returns its position. */
  push(value: number): number {
    if (this.length === this.array.length) {
      const bigger = new Int32Array(this.array.length * 2)
      bigger.set(this.array)
      this.array = bigger
    }
    this.array[this.length] = value
    return this.length++
  }

  at(index: number): number {
    return this.array[index] as number
  }

  set(index: number, value: number) {
    this.array[index] = value
  }
}

/** The children of each node, next to each other and in term order (a counting sort by parent, then by term). */
function childLists(parents: IntList, terms: IntList, children: IntList, nodes: number) {
  const nodeChildren = sharedInt32(nodes + 1)
  for (let edge = 0; edge < parents.length; edge++) {
    const parent = parents.at(edge)
    nodeChildren[parent + 1] = (nodeChildren[parent + 1] as number) + 1
  }
  for (let node = 0; node < nodes; node++)
    nodeChildren[node + 1] = (nodeChildren[node + 1] as number) + (nodeChildren[node] as number)
  const childTerm = sharedInt32(parents.length)
  const childNode = sharedInt32(parents.length)
  const fill = nodeChildren.slice(0, nodes)
  for (let edge = 0; edge < parents.length; edge++) {
    const at = (fill[parents.at(edge)] as number)++
    childTerm[at] = terms.at(edge)
    childNode[at] = children.at(edge)
  }
  for (let node = 0; node < nodes; node++) {
    const from = nodeChildren[node] as number
    const to = nodeChildren[node + 1] as number
    if (to - from < 2) continue
    // Terms and nodes stay below MAX_TERMS and MAX_NODES: one safe integer holds both, sorting by term.
    const pairs = new Float64Array(to - from)
    for (let at = from; at < to; at++)
      pairs[at - from] = (childTerm[at] as number) * MAX_NODES + (childNode[at] as number)
    pairs.sort()
    for (let at = from; at < to; at++) {
      const pair = pairs[at - from] as number
      childTerm[at] = Math.floor(pair / MAX_NODES)
      childNode[at] = pair % MAX_NODES
    }
  }
  return { nodeChildren, childTerm, childNode }
}

/** An open-addressing table of edges by (parent, term): edge number + 1 per slot, 0 when empty. */
function edgeTable(parents: IntList, terms: IntList, capacity: number): Int32Array {
  const slots = new Int32Array(capacity)
  const mask = capacity - 1
  for (let edge = 0; edge < parents.length; edge++) {
    let slot = edgeHash(parents.at(edge), terms.at(edge)) & mask
    while (slots[slot] !== 0) slot = (slot + 1) & mask
    slots[slot] = edge + 1
  }
  return slots
}

/** Slot of an edge in the builder's table (before masking). */
function edgeHash(parent: number, term: number): number {
  let hash = Math.imul(parent, 0x9e3779b1) ^ Math.imul(term + 0x7f4a7c15, 0x85ebca77)
  hash ^= hash >>> 15
  hash = Math.imul(hash, 0x2c1b3c6d)
  return (hash ^ (hash >>> 13)) >>> 0
}

const sharedInt32 = (length: number) => new Int32Array(new SharedArrayBuffer(length * 4))
function sharedInt32From(values: readonly number[]): Int32Array {
  const array = sharedInt32(values.length)
  array.set(values)
  return array
}

/** The typed arrays of a compiled vocabulary, in the order `serialiseVocabulary` writes them. */
const ARRAYS = [
  ['rootTerms', Int32Array],
  ['nodeChildren', Int32Array],
  ['childTerm', Int32Array],
  ['childNode', Int32Array],
  ['nodeEntries', Int32Array],
  ['nodeFlags', Uint8Array],
  ['entrySkill', Int32Array],
  ['entryConfidence', Float64Array],
  ['entryUpperOnly', Uint8Array],
] as const
type ArrayName = (typeof ARRAYS)[number][0]
const RANKER_ARRAYS = [
  ['termStart', Int32Array],
  ['postUnit', Int32Array],
  ['postIdf', Float32Array],
  ['unitSkill', Int32Array],
  ['unitTotal', Float32Array],
  ['unitWeight', Float32Array],
  ['unitDescription', Uint8Array],
  ['skillCluster', Int32Array],
  ['clusterStart', Int32Array],
  ['clusterSkills', Int32Array],
] as const
type RankerArrayName = (typeof RANKER_ARRAYS)[number][0]

/**
 * A compiled vocabulary as bytes, to keep it for another process (packed-arrays.ts): the strings
 * and `stamp` (what the reader checks it against) in the header, then the arrays.
 */
export function serialiseVocabulary(vocabulary: CompiledVocabulary, stamp: string): Buffer {
  const header = {
    stamp,
    skillIds: vocabulary.skillIds,
    names: vocabulary.names,
    terms: vocabulary.terms,
    stemmedLanguages: vocabulary.stemmedLanguages,
    rankerTerms: vocabulary.ranker.terms,
  }
  return Buffer.concat(
    packArrays(header, [
      ...ARRAYS.map(([name]) => vocabulary[name]),
      ...RANKER_ARRAYS.map(([name]) => vocabulary.ranker[name]),
    ]),
  )
}

/** The compiled vocabulary of `serialiseVocabulary`'s bytes, on shared memory; undefined when `stamp` differs. */
export function deserialiseVocabulary(bytes: Uint8Array, stamp: string): CompiledVocabulary | undefined {
  const unpacked = unpackArrays(bytes)
  if (
    !unpacked ||
    unpacked.header.stamp !== stamp ||
    unpacked.arrays.length !== ARRAYS.length + RANKER_ARRAYS.length
  )
    return undefined
  const header = unpacked.header as {
    skillIds: string[]
    names: string[][]
    terms: string[]
    stemmedLanguages: number
    rankerTerms: string[]
  }
  const arrays = {} as Record<ArrayName, Int32Array | Uint8Array | Float64Array>
  for (const [index, [name, Type]] of ARRAYS.entries()) {
    const array = unpacked.arrays[index]
    if (!(array instanceof Type)) return undefined
    arrays[name] = array
  }
  const rankerArrays = {} as Record<RankerArrayName, Int32Array | Uint8Array | Float32Array>
  for (const [index, [name, Type]] of RANKER_ARRAYS.entries()) {
    const array = unpacked.arrays[ARRAYS.length + index]
    if (!(array instanceof Type)) return undefined
    rankerArrays[name] = array
  }
  if (!Array.isArray(header.rankerTerms)) return undefined
  return {
    skillIds: header.skillIds,
    names: header.names,
    terms: header.terms,
    stemmedLanguages: header.stemmedLanguages,
    ...(arrays as Pick<CompiledVocabulary, ArrayName>),
    ranker: { terms: header.rankerTerms, ...(rankerArrays as Omit<CompiledRanker, 'terms'>) },
  }
}
