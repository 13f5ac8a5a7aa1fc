import { pickLanguage, type TextLanguageCode, wordLanguageWeights } from './detect-language.js'
import {
  forEachWord,
  isJoinedToPrevious,
  isUpperWord,
  normaliseWord,
  type Span,
  Stemmers,
  scanWords,
} from './text-tokens.js'

/** One label of the vocabulary: a skill's name or alias in one language. */
export interface LabelInput {
  skill_id: string
  language: string
  kind: 'name' | 'alias'
  label: string
}

export interface ExtractedSkill {
  skill_id: string
  skill_name: string
  score: number
  /** The strongest mention, as offsets into the text (end exclusive) and its text. */
  span: { start: number; end: number; text: string }
  mentions: number
}

export interface Extraction {
  language: TextLanguageCode
  skills: ExtractedSkill[]
}

export interface ExtractOptions {
  language?: 'auto' | TextLanguageCode
  /** Keep the best N skills (default: all above the threshold). */
  top?: number
  /** Vocabulary language of `skill_name` (default en_uk). */
  vocabLanguage?: string
  /** Minimum score (default 0.3). */
  minScore?: number
}

interface Entry {
  skill: number
  confidence: number
  /** Short all-capital labels ("AP", "HR") match only all-capital text. */
  upperOnly: boolean
}

/** A trie over words: a label ends where `entries` is set. */
interface Node {
  entries?: Entry[]
  children?: Map<string, Node>
}

/** What the extractor knows of one distinct word of the texts it has seen. */
interface Word {
  norm: string
  upper: boolean
  /** What the word says of the text's language (en, nl, fr, de), if anything. */
  languageWeights: number[] | undefined
  exact: Node | undefined
  /** Per text language: the stem and the trie node it starts, computed on first need. */
  stems: Partial<Record<TextLanguageCode, { stem: string; node: Node | undefined }>>
  /** The one-word label a long compound begins or ends with; null when none (computed on first need). */
  compound?: Entry[] | null
}

interface Token extends Span {
  word: Word
}

/**
 * The words seen so far, keyed by their text, found by a hash computed while scanning the text:
 * no substring is cut and no string hashed for a word already known.
 */
class WordTable {
  private hashes = new Int32Array(1 << 16)
  private entries: (Word & { raw: string })[] = []
  private slots: ((Word & { raw: string }) | undefined)[] = new Array(1 << 16)
  private mask = (1 << 16) - 1

  constructor(private readonly create: (raw: string) => Word) {}

  get size() {
    return this.entries.length
  }

  find(text: string, start: number, end: number, hash: number): Word {
    const length = end - start
    let slot = hash & this.mask
    for (;;) {
      const entry = this.slots[slot]
      if (entry === undefined) break
      if (this.hashes[slot] === hash && entry.raw.length === length && sameText(text, start, entry.raw))
        return entry
      slot = (slot + 1) & this.mask
    }
    const raw = text.slice(start, end)
    const word = Object.assign(this.create(raw), { raw })
    if (this.entries.length >= WORD_CACHE_LIMIT) this.clear()
    else if ((this.entries.length + 1) * 2 > this.slots.length) this.grow()
    this.place(word, hash)
    this.entries.push(word)
    return word
  }

  private place(word: Word & { raw: string }, hash: number) {
    let slot = hash & this.mask
    while (this.slots[slot] !== undefined) slot = (slot + 1) & this.mask
    this.slots[slot] = word
    this.hashes[slot] = hash
  }

  private grow() {
    const old = this.entries
    const capacity = this.slots.length * 2
    this.hashes = new Int32Array(capacity)
    this.slots = new Array(capacity)
    this.mask = capacity - 1
    for (const word of old) this.place(word, hashOf(word.raw, 0, word.raw.length))
  }

  private clear() {
    this.entries = []
    this.hashes = new Int32Array(1 << 16)
    this.slots = new Array(1 << 16)
    this.mask = (1 << 16) - 1
  }
}

function sameText(text: string, start: number, raw: string): boolean {
  for (let index = 0; index < raw.length; index++)
    if (text.charCodeAt(start + index) !== raw.charCodeAt(index)) return false
  return true
}

function hashOf(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193)
  return hash | 0
}

interface Candidate {
  start: number
  end: number
  entries: Entry[]
  confidence: number
  /** Found as the head or tail of a compound word, not as a word of its own. */
  compound?: boolean
}

/** Text language of a vocabulary language, for stemming; the others are matched exactly only. */
const STEM_LANGUAGE: Record<string, TextLanguageCode> = {
  en_uk: 'en',
  en_us: 'en',
  en: 'en',
  nl: 'nl',
  fr: 'fr',
  de: 'de',
}
const STEMMED = 0.9
const COMPOUND_PART = 0.7
const WORD_CACHE_LIMIT = 1_000_000

/**
 * Finds the skills of a vocabulary in free text. The vocabulary is compiled once into word tries
 * (exact, and stemmed per language with Snowball); each distinct word of the texts is looked up
 * once and remembered, so that text streams through with about one hash lookup per word.
 * Handles case, accents, punctuation and hyphenation ("front-end" = "frontend"), inflection,
 * multi-word labels and aliases, all-capital abbreviations, and German and Dutch compounds;
 * where candidates overlap the longest wins; scores favour specific skills (several words, rare
 * words) over generic ones.
 */
export class SkillExtractor {
  private readonly exact = new Map<string, Node>()
  private readonly stemmed = new Map<TextLanguageCode, Map<string, Node>>()
  private readonly singleWords = new Map<string, Entry[]>()
  private readonly names: Map<string, string>[] = []
  private readonly stemmers = new Stemmers()
  private readonly words = new WordTable((raw) => {
    const norm = normaliseWord(raw)
    return {
      norm,
      upper: isUpperWord(raw),
      languageWeights: wordLanguageWeights(raw.toLowerCase()),
      exact: this.exact.get(norm),
      stems: {},
    }
  })
  readonly skillIds: string[] = []

  private constructor() {}

  /** Compiles labels (of any size of vocabulary) into an extractor. */
  static compile(labels: readonly LabelInput[]): SkillExtractor {
    const extractor = new SkillExtractor()
    extractor.build(labels)
    return extractor
  }

  get skillCount(): number {
    return this.skillIds.length
  }

  private build(labels: readonly LabelInput[]) {
    const skillIndex = new Map<string, number>()
    const prepared: { skill: number; label: LabelInput; norms: string[]; upper: boolean }[] = []
    const documentFrequency = new Map<string, Set<number>>()
    for (const label of labels) {
      let skill = skillIndex.get(label.skill_id)
      if (skill === undefined) {
        skill = this.skillIds.push(label.skill_id) - 1
        skillIndex.set(label.skill_id, skill)
        this.names.push(new Map())
      }
      if (label.kind === 'name') this.names[skill]?.set(label.language, label.label)
      const spans = scanWords(label.label)
      const words = spans.map((span) => label.label.slice(span.start, span.end))
      const norms = words.map(normaliseWord)
      // One letter alone ("R", "C") is too ambiguous to find in text; its aliases carry it.
      if (norms.length === 0 || (norms.length === 1 && (norms[0] as string).length < 2)) continue
      const upper = norms.length === 1 && (norms[0] as string).length <= 3 && isUpperWord(words[0] as string)
      prepared.push({ skill, label, norms, upper })
      for (const norm of new Set(norms)) {
        let skills = documentFrequency.get(norm)
        if (!skills) documentFrequency.set(norm, (skills = new Set()))
        skills.add(skill)
      }
    }
    const skillTotal = Math.max(this.skillIds.length, 1)
    for (const { skill, label, norms, upper } of prepared) {
      // Specific: more words, rarer words. A lone word that many skills' labels share is generic.
      const rarity = Math.min(
        ...norms.map(
          (norm) =>
            1 - Math.min(0.5, ((documentFrequency.get(norm)?.size ?? 1) - 1) / (skillTotal * 0.01 + 4)),
        ),
      )
      const specificity = Math.min(1, 0.7 + 0.15 * (norms.length - 1)) * rarity
      const entry: Entry = {
        skill,
        confidence: (label.kind === 'name' ? 1 : 0.95) * specificity,
        upperOnly: upper,
      }
      insert(this.exact, norms, entry)
      if (norms.length > 1) insert(this.exact, [norms.join('')], entry)
      if (norms.length === 1 && (norms[0] as string).length >= 5)
        addEntry(this.singleWords, norms[0] as string, entry)
      const stemLanguage = STEM_LANGUAGE[label.language]
      if (stemLanguage && !upper) {
        let trie = this.stemmed.get(stemLanguage)
        if (!trie) this.stemmed.set(stemLanguage, (trie = new Map()))
        insert(
          trie,
          norms.map((norm) => this.stemmers.stem(norm, stemLanguage)),
          { ...entry, confidence: entry.confidence * STEMMED },
        )
      }
    }
  }

  /** The skills found in `text`, best first (ties by position, then id). */
  extract(text: string, options: ExtractOptions = {}): Extraction {
    const tokens = this.tokens(text)
    const language = options.language && options.language !== 'auto' ? options.language : languageOf(tokens)
    const candidates: Candidate[] = []
    this.scanExact(text, tokens, candidates)
    if (this.stemmed.has(language)) this.scanStemmed(tokens, language, candidates)
    if (language === 'de' || language === 'nl') this.compounds(tokens, candidates)
    return { language, skills: this.rank(text, resolveOverlaps(candidates), tokens, options) }
  }

  /** The words of a text (as `scanWords` finds them), each looked up in the word table once. */
  private tokens(text: string): Token[] {
    const tokens: Token[] = []
    forEachWord(text, (start, end, gapStart, hash) => {
      tokens.push({ start, end, gapStart, word: this.words.find(text, start, end, hash) })
    })
    return tokens
  }

  private scanExact(text: string, tokens: Token[], out: Candidate[]) {
    for (let start = 0; start < tokens.length; start++) {
      const first = tokens[start] as Token
      this.descend(first.word.exact, tokens, start, start + 1, out)
      // Hyphenated or slashed words written as one word in a label: "front-end" for "frontend".
      let joined = first.word.norm
      for (let end = start + 1; end < tokens.length && end - start < 4; end++) {
        const next = tokens[end] as Token
        if (!isJoinedToPrevious(text, next)) break
        joined += next.word.norm
        this.descend(this.exact.get(joined), tokens, start, end + 1, out)
      }
    }
  }

  /** From a trie node reached by tokens[start..end), accepts every label that ends on the way down. */
  private descend(node: Node | undefined, tokens: Token[], start: number, end: number, out: Candidate[]) {
    let current = node
    let position = end
    while (current) {
      if (current.entries) this.accept(tokens, start, position, current.entries, out)
      const next = tokens[position]
      if (!next || !current.children) break
      current = current.children.get(next.word.norm)
      position++
    }
  }

  private scanStemmed(tokens: Token[], language: TextLanguageCode, out: Candidate[]) {
    const trie = this.stemmed.get(language) as Map<string, Node>
    const stemOf = (word: Word) => {
      let known = word.stems[language]
      if (!known) {
        const stem = this.stemmers.stem(word.norm, language)
        known = { stem, node: trie.get(stem) }
        word.stems[language] = known
      }
      return known
    }
    for (let start = 0; start < tokens.length; start++) {
      let node = stemOf((tokens[start] as Token).word).node
      let end = start + 1
      while (node) {
        if (node.entries) this.accept(tokens, start, end, node.entries, out)
        const next = tokens[end]
        if (!next || !node.children) break
        node = node.children.get(stemOf(next.word).stem)
        end++
      }
    }
  }

  private accept(tokens: Token[], start: number, end: number, entries: Entry[], out: Candidate[]) {
    let usable = entries
    if (entries.some((entry) => entry.upperOnly)) {
      const upper = end - start === 1 && (tokens[start] as Token).word.upper
      usable = entries.filter((entry) => !entry.upperOnly || upper)
      if (usable.length === 0) return
    }
    let confidence = 0
    for (const entry of usable) confidence = Math.max(confidence, entry.confidence)
    out.push({ start, end, entries: usable, confidence })
  }

  /** German and Dutch compounds: a long word that begins or ends with a one-word label. */
  private compounds(tokens: Token[], out: Candidate[]) {
    for (let index = 0; index < tokens.length; index++) {
      const word = (tokens[index] as Token).word
      if (word.norm.length < 10) continue
      if (word.compound === undefined) word.compound = this.compoundOf(word.norm)
      if (word.compound)
        out.push({
          start: index,
          end: index + 1,
          entries: word.compound,
          confidence: COMPOUND_PART,
          compound: true,
        })
    }
  }

  private compoundOf(norm: string): Entry[] | null {
    for (let cut = norm.length - 3; cut >= 5; cut--) {
      const entries =
        this.singleWords.get(norm.slice(0, cut)) ?? this.singleWords.get(norm.slice(norm.length - cut))
      if (entries) return entries
    }
    return null
  }

  private rank(
    text: string,
    accepted: Candidate[],
    tokens: Token[],
    options: ExtractOptions,
  ): ExtractedSkill[] {
    const bySkill = new Map<
      number,
      { miss: number; best: number; first: number; span: [number, number]; mentions: number }
    >()
    for (const candidate of accepted) {
      // A label shared by several skills ("GCP") is evidence for each, but weaker.
      const share = 1 / candidate.entries.length
      const span: [number, number] = [
        (tokens[candidate.start] as Token).start,
        (tokens[candidate.end - 1] as Token).end,
      ]
      for (const entry of candidate.entries) {
        const strength = (candidate.compound ? COMPOUND_PART * entry.confidence : entry.confidence) * share
        const seen = bySkill.get(entry.skill)
        if (!seen) {
          bySkill.set(entry.skill, { miss: 1 - strength, best: strength, first: span[0], span, mentions: 1 })
        } else {
          seen.miss *= 1 - strength
          seen.mentions++
          if (strength > seen.best) {
            seen.best = strength
            seen.span = span
          }
        }
      }
    }
    const minScore = options.minScore ?? 0.3
    const language = options.vocabLanguage ?? 'en_uk'
    const skills: (ExtractedSkill & { first: number })[] = []
    for (const [skill, found] of bySkill) {
      // Several mentions add up (noisy-or), below certainty.
      const score = Math.round(Math.min(0.99, 1 - found.miss) * 10_000) / 10_000
      if (score < minScore) continue
      skills.push({
        skill_id: this.skillIds[skill] as string,
        skill_name: this.nameOf(skill, language),
        score,
        span: { start: found.span[0], end: found.span[1], text: text.slice(found.span[0], found.span[1]) },
        mentions: found.mentions,
        first: found.first,
      })
    }
    skills.sort((a, b) => b.score - a.score || a.first - b.first || (a.skill_id < b.skill_id ? -1 : 1))
    const ranked = skills.map(({ first: _first, ...skill }) => skill)
    return options.top ? ranked.slice(0, options.top) : ranked
  }

  /** Display name in a vocabulary language: en_us falls back to en_uk, others to en_uk, then to any. */
  nameOf(skill: number | string, language = 'en_uk'): string {
    const index = typeof skill === 'number' ? skill : this.skillIds.indexOf(skill)
    const names = this.names[index]
    if (!names) return String(skill)
    return (
      names.get(language) ?? names.get('en_uk') ?? names.values().next().value ?? this.skillIds[index] ?? ''
    )
  }
}

/** The text's language from its words' weights (the first 80 words are plenty). */
function languageOf(tokens: Token[]): TextLanguageCode {
  const scores = [0, 0, 0, 0]
  for (let index = 0; index < tokens.length && index < 80; index++) {
    const weights = (tokens[index] as Token).word.languageWeights
    if (weights)
      for (let language = 0; language < 4; language++)
        (scores[language] as number) += weights[language] as number
  }
  return pickLanguage(scores)
}

function addEntry(map: Map<string, Entry[]>, key: string, entry: Entry) {
  const list = map.get(key)
  if (!list) {
    map.set(key, [entry])
    return
  }
  // The same skill under one key twice (its name and an alias): keep the stronger.
  const index = list.findIndex((existing) => existing.skill === entry.skill)
  if (index < 0) list.push(entry)
  else if ((list[index] as Entry).confidence < entry.confidence) list[index] = entry
}

function insert(trie: Map<string, Node>, words: string[], entry: Entry) {
  let children = trie
  let node: Node | undefined
  words.forEach((word, index) => {
    node = children.get(word)
    if (!node) children.set(word, (node = {}))
    if (index < words.length - 1) {
      if (!node.children) node.children = new Map()
      children = node.children
    }
  })
  const target = node as Node | undefined
  if (!target) return
  if (!target.entries) {
    target.entries = [entry]
    return
  }
  // The same skill under one label twice (its name and an alias): keep the stronger.
  const index = target.entries.findIndex((existing) => existing.skill === entry.skill)
  if (index < 0) target.entries.push(entry)
  else if ((target.entries[index] as Entry).confidence < entry.confidence) target.entries[index] = entry
}

/** Longest candidate first; a candidate overlapping an accepted one is dropped. */
function resolveOverlaps(candidates: Candidate[]): Candidate[] {
  const sorted = [...candidates].sort(
    (a, b) => b.end - b.start - (a.end - a.start) || b.confidence - a.confidence || a.start - b.start,
  )
  const taken: boolean[] = []
  const accepted: Candidate[] = []
  for (const candidate of sorted) {
    let free = true
    for (let index = candidate.start; index < candidate.end; index++) if (taken[index]) free = false
    if (!free) {
      // The same span found again (exact and stemmed) adds its skills when they are new.
      const same = accepted.find((other) => other.start === candidate.start && other.end === candidate.end)
      if (same) {
        for (const entry of candidate.entries) {
          if (!same.entries.some((known) => known.skill === entry.skill))
            same.entries = [...same.entries, entry]
        }
      }
      continue
    }
    for (let index = candidate.start; index < candidate.end; index++) taken[index] = true
    accepted.push(candidate)
  }
  return accepted
}
