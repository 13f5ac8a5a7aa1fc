import {
  type CompiledVocabulary,
  compileVocabulary,
  EXACT_ROOT,
  HAS_CHILDREN,
  HAS_ENTRIES,
  HAS_UPPER_ONLY,
  SINGLE_ROOT,
  STEMMED_ROOT,
} from './compile-vocabulary.js'
import { pickLanguage, type TextLanguageCode, wordLanguageWeights } from './detect-language.js'
import { calibrated, SkillRanker } from './skill-ranker.js'
import {
  type ContextTokens,
  contextRole,
  FUNCTION_WORD,
  GENERIC_WORD,
  markSilentTokens,
} from './text-context.js'
import { isUpperWord, normaliseWord, Stemmers, WordScanner } from './text-tokens.js'
import { type LabelInput, type SkillFacts, TEXT_LANGUAGES } from './vocabulary-input.js'

export type { CompiledVocabulary, LabelInput, SkillFacts }

export interface ExtractedSkill {
  skill_id: string
  skill_name: string
  score: number
  /** The strongest mention, as offsets into the text (end exclusive) and its text. */
  span: { start: number; end: number; text: string }
  /** How often the text names the skill; 0 for a skill the text implies without naming it. */
  mentions: number
}

export interface Extraction {
  language: TextLanguageCode
  skills: ExtractedSkill[]
}

export interface ExtractOptions {
  language?: 'auto' | TextLanguageCode
  /**
   * Keep the best N skills (default: all above the threshold). With N, skills the text implies
   * fill the list below the named ones even when their score is under the threshold.
   */
  top?: number
  /** Vocabulary language of `skill_name` (default en_uk). */
  vocabLanguage?: string
  /** Minimum score (default 0.3). */
  minScore?: number
  /** Whether skills the text implies without naming them are ranked too (default true). */
  infer?: boolean
}

const COMPOUND_PART = 0.7
const MIN_SCORE = 0.3
/**
 * An implied skill's score is its ranker confidence times this: below the default threshold,
 * so that a skill the text only implies never counts as found by default, and always below a
 * skill the text names.
 */
export const IMPLIED_SCORE = 0.29
/** Implied skills below this score are not listed even to fill a top N. */
const IMPLIED_FLOOR = 0.01
/** Conjunctions of an elided compound ("heftruck- en reachtruckchauffeur", "Lager- und Versandlogistik"). */
const ELISION_CONJUNCTIONS = new Set(['en', 'of', 'and', 'or', 'und', 'oder', 'et', 'ou', 'bzw'])
/** Compound parts the ranker reads in a Dutch or German word: parts at least this long. */
const COMPOUND_PART_CHARS = 4
/** The distinct words remembered; beyond it the table starts again (checked between texts). */
const WORD_CACHE_LIMIT = 1_000_000
const UNKNOWN = -2

/**
 * Finds the skills of a vocabulary in free text. The vocabulary is compiled once into word tries
 * (exact, and stemmed per language with Snowball; see `compileVocabulary`); each distinct word of
 * the texts is looked up once and remembered with what it leads to in each trie, so that text
 * streams through with about one hash probe per word and no allocation per word. Handles case,
 * accents, punctuation and hyphenation ("front-end" = "frontend"), inflection, multi-word labels
 * and aliases, all-capital abbreviations, and German and Dutch compounds; where candidates
 * overlap the longest wins; scores favour specific skills (several words, rare words) over
 * generic ones. One extractor serves one thread: it keeps its scratch space between texts.
 */
export class SkillExtractor {
  readonly skillIds: string[]
  private readonly termNumbers = new Map<string, number>()
  private readonly nodeChildren: Int32Array
  private readonly childTerm: Int32Array
  private readonly childNode: Int32Array
  private readonly nodeEntries: Int32Array
  private readonly nodeFlags: Uint8Array
  private readonly entrySkill: Int32Array
  private readonly entryConfidence: Float64Array
  private readonly entryUpperOnly: Uint8Array
  private readonly words = new WordTable()
  private readonly scanner = new WordScanner()
  private readonly scores = new Float64Array(4)
  private readonly ranker: SkillRanker
  /** Per token of the current text: 1 when a context rule silences it (see text-context.ts). */
  private silent = new Uint8Array(256)
  private silentCount = 0
  private readonly context: ContextTokens

  // The current text: its tokens, the candidates found, the ones accepted, per-skill sums.
  private tokenStart = new Int32Array(256)
  private tokenEnd = new Int32Array(256)
  private tokenGap = new Int32Array(256)
  private tokenWord = new Int32Array(256)
  private taken = new Uint8Array(256)
  /** Per token: the exact candidates that start there (they are found start by start). */
  private exactFrom = new Int32Array(256)
  private exactTo = new Int32Array(256)
  private candidateCount = 0
  private candidateStart = new Int32Array(64)
  private candidateEnd = new Int32Array(64)
  private candidateFrom = new Int32Array(64)
  private candidateTo = new Int32Array(64)
  private candidateConfidence = new Float64Array(64)
  private candidateCompound = new Uint8Array(64)
  private order = new Int32Array(64)
  private acceptedCount = 0
  private accepted = new Int32Array(64)
  private entryCount = 0
  private entryList = new Int32Array(256)
  private stamp = 0
  private readonly skillStamp: Int32Array
  private readonly skillMiss: Float64Array
  private readonly skillBest: Float64Array
  private readonly skillFirst: Int32Array
  private readonly skillSpanStart: Int32Array
  private readonly skillSpanEnd: Int32Array
  private readonly skillMentions: Int32Array
  private readonly seenSkills: Int32Array
  private seenCount = 0

  private constructor(
    private readonly vocabulary: CompiledVocabulary,
    private readonly stemmers: Stemmers,
  ) {
    this.skillIds = vocabulary.skillIds
    for (let term = 0; term < vocabulary.terms.length; term++)
      this.termNumbers.set(vocabulary.terms[term] as string, term)
    this.nodeChildren = vocabulary.nodeChildren
    this.childTerm = vocabulary.childTerm
    this.childNode = vocabulary.childNode
    this.nodeEntries = vocabulary.nodeEntries
    this.nodeFlags = vocabulary.nodeFlags
    this.entrySkill = vocabulary.entrySkill
    this.entryConfidence = vocabulary.entryConfidence
    this.entryUpperOnly = vocabulary.entryUpperOnly
    const skills = this.skillIds.length
    this.skillStamp = new Int32Array(skills)
    this.skillMiss = new Float64Array(skills)
    this.skillBest = new Float64Array(skills)
    this.skillFirst = new Int32Array(skills)
    this.skillSpanStart = new Int32Array(skills)
    this.skillSpanEnd = new Int32Array(skills)
    this.skillMentions = new Int32Array(skills)
    this.seenSkills = new Int32Array(skills)
    this.ranker = new SkillRanker(vocabulary.ranker)
    const extractor = this
    this.context = {
      count: 0,
      get start() {
        return extractor.tokenStart
      },
      get end() {
        return extractor.tokenEnd
      },
      get gap() {
        return extractor.tokenGap
      },
      role: (token) => this.words.role[this.tokenWord[token] as number] as number,
      norm: (token) => this.words.norm[this.tokenWord[token] as number] as string,
    }
  }

  /**
   * Compiles labels (of any size of vocabulary) into an extractor; `facts` (descriptions and
   * clusters) let it rank skills the text implies, and may be left out.
   */
  static compile(labels: readonly LabelInput[], facts: readonly SkillFacts[] = []): SkillExtractor {
    const stemmers = new Stemmers()
    return new SkillExtractor(compileVocabulary(labels, stemmers, facts), stemmers)
  }

  /** The stems this extractor remembers (see `Stemmers`: kept across processes and threads). */
  get stems(): Stemmers {
    return this.stemmers
  }

  /** An extractor of a vocabulary compiled elsewhere, e.g. by the thread that hands work to this one. */
  static load(vocabulary: CompiledVocabulary): SkillExtractor {
    return new SkillExtractor(vocabulary, new Stemmers())
  }

  /** The compiled vocabulary: its arrays are shared memory, so a worker thread gets them without a copy. */
  get compiled(): CompiledVocabulary {
    return this.vocabulary
  }

  get skillCount(): number {
    return this.skillIds.length
  }

  /** The skills found in `text`, best first (ties by position, then id). */
  extract(text: string, options: ExtractOptions = {}): Extraction {
    const minScore = options.minScore ?? MIN_SCORE
    // Implied skills are listed to fill a top N, or when the threshold admits their scores.
    const infer = (options.infer ?? true) && (options.top !== undefined || minScore < IMPLIED_SCORE)
    const language = this.analyse(text, options.language ?? 'auto', infer)
    const impliedMin = options.top ? Math.min(minScore, IMPLIED_FLOOR) : minScore
    const vocabLanguage = options.vocabLanguage ?? 'en_uk'
    const skills: (ExtractedSkill & { first: number })[] = []
    for (let index = 0; index < this.seenCount; index++) {
      const skill = this.seenSkills[index] as number
      const score = this.scoreOf(skill)
      if (score < minScore) continue
      const start = this.skillSpanStart[skill] as number
      const end = this.skillSpanEnd[skill] as number
      skills.push({
        skill_id: this.skillIds[skill] as string,
        skill_name: this.nameOf(skill, vocabLanguage),
        score,
        span: { start, end, text: text.slice(start, end) },
        mentions: this.skillMentions[skill] as number,
        first: this.skillFirst[skill] as number,
      })
    }
    if (infer) {
      const ranker = this.ranker
      for (let index = 0; index < ranker.rankedCount; index++) {
        const skill = ranker.ranked[index] as number
        if (this.skillStamp[skill] === this.stamp) continue
        const score = impliedScore(ranker.rankedScore[index] as number)
        if (score < impliedMin) continue
        const token = ranker.rankedToken[index] as number
        const start = this.tokenStart[token] as number
        const end = this.tokenEnd[token] as number
        skills.push({
          skill_id: this.skillIds[skill] as string,
          skill_name: this.nameOf(skill, vocabLanguage),
          score,
          span: { start, end, text: text.slice(start, end) },
          mentions: 0,
          first: start,
        })
      }
    }
    skills.sort((a, b) => b.score - a.score || a.first - b.first || (a.skill_id < b.skill_id ? -1 : 1))
    const ranked = skills.map(({ first: _first, ...skill }) => skill)
    return { language, skills: options.top ? ranked.slice(0, options.top) : ranked }
  }

  /**
   * The skills and scores `extract` finds (those of at least `minScore`), handed to `visit` in no
   * particular order and without spans or names: what derivation needs, at a fraction of the
   * cost. `language` is a text language or `auto`; another value is matched exactly only.
   * `visit` must not call the extractor.
   */
  visitSkills(
    text: string,
    language: string,
    visit: (skillId: string, score: number) => void,
    minScore = MIN_SCORE,
    implied?: { visit: (skillId: string, confidence: number) => void; best: number; minConfidence: number },
  ): void {
    this.analyse(text, language, implied !== undefined)
    for (let index = 0; index < this.seenCount; index++) {
      const skill = this.seenSkills[index] as number
      const score = this.scoreOf(skill)
      if (score >= minScore) visit(this.skillIds[skill] as string, score)
    }
    if (!implied) return
    // The best implied skills not named in the text, with their ranker confidence (0–1).
    const ranker = this.ranker
    let given = 0
    for (let index = 0; index < ranker.rankedCount && given < implied.best; index++) {
      const skill = ranker.ranked[index] as number
      if (this.skillStamp[skill] === this.stamp) continue
      const confidence = calibrated(ranker.rankedScore[index] as number)
      if (confidence < implied.minConfidence) break
      implied.visit(this.skillIds[skill] as string, Math.round(confidence * 10_000) / 10_000)
      given++
    }
  }

  /** Display name in a vocabulary language: en_us falls back to en_uk, others to en_uk, then to any. */
  nameOf(skill: number | string, language = 'en_uk'): string {
    const index = typeof skill === 'number' ? skill : this.skillIds.indexOf(skill)
    const names = this.vocabulary.names[index]
    if (!names) return String(skill)
    return labelIn(names, language) ?? labelIn(names, 'en_uk') ?? names[1] ?? this.skillIds[index] ?? ''
  }

  /** Tokens, language, candidates, overlaps and per-skill sums of one text; returns its language. */
  private analyse<L extends string>(
    text: string,
    requested: L | 'auto',
    infer = false,
  ): L | TextLanguageCode {
    if (this.words.count >= WORD_CACHE_LIMIT) this.words.clear()
    const tokens = this.tokenize(text)
    const language = requested && requested !== 'auto' ? requested : this.languageOf(tokens)
    this.context.count = tokens
    if (this.silent.length < tokens) this.silent = new Uint8Array(this.tokenStart.length)
    this.silentCount = markSilentTokens(text, this.context, this.silent)
    this.candidateCount = 0
    this.entryCount = 0
    this.scanExact(text, tokens)
    const stemLanguage = languageNumber(language)
    if (stemLanguage >= 0 && (this.vocabulary.stemmedLanguages >> stemLanguage) & 1)
      this.scanStemmed(tokens, stemLanguage)
    if (language === 'de' || language === 'nl') this.compounds(tokens)
    this.elidedCompounds(text, tokens, language === 'de' || language === 'nl')
    this.resolveOverlaps(tokens)
    this.sumBySkill()
    if (infer) this.rank(tokens, stemLanguage < 0 ? 0 : stemLanguage)
    return language
  }

  /** Hands the words of the text that may evidence a skill to the ranker and scores it. */
  private rank(tokens: number, language: number) {
    const ranker = this.ranker
    const words = this.words
    ranker.begin(language)
    for (let token = 0; token < tokens; token++) {
      if (this.silentCount > 0 && this.silent[token] === 1) continue
      const word = this.tokenWord[token] as number
      if ((words.role[word] as number) & (FUNCTION_WORD | GENERIC_WORD)) continue
      const slot = word * 4 + language
      if (words.rankTerm[slot] === UNKNOWN) this.describeForRanker(word, language)
      const term = words.rankTerm[slot] as number
      if (term >= 0) ranker.addTerm(term, token)
      const part = words.rankPart[slot] as number
      if (part >= 0) ranker.addTerm(part, token)
    }
    ranker.finish()
  }

  /**
   * The ranker's terms of a word in a language, on first need: its stem; for a Dutch or German
   * compound whose stem no label holds, the two parts (each stemmed) that labels hold
   * ("Lieferantenbewertung": lieferant, bewertung).
   */
  private describeForRanker(word: number, language: number) {
    const words = this.words
    const slot = word * 4 + language
    const norm = words.norm[word] as string
    const code = TEXT_LANGUAGES[language] as TextLanguageCode
    const ranker = this.ranker
    const term = norm.length < 2 ? -1 : ranker.termOf(this.stemmers.stem(norm, code))
    words.rankTerm[slot] = term >= 0 && ranker.hasPostings(term, language) ? term : -1
    words.rankPart[slot] = -1
    if (
      words.rankTerm[slot] >= 0 ||
      (code !== 'de' && code !== 'nl') ||
      norm.length < 2 * COMPOUND_PART_CHARS
    )
      return
    for (let cut = norm.length - COMPOUND_PART_CHARS; cut >= COMPOUND_PART_CHARS; cut--) {
      const head = this.rankerTermOf(norm.slice(0, cut), code, language)
      if (head < 0) continue
      // A linking -s-, -e- or -en- may stand between the parts ("Lieferantenbewertung").
      for (const link of ['', 's', 'e', 'en', 'n']) {
        if (!norm.startsWith(link, cut)) continue
        const tail = this.rankerTermOf(norm.slice(cut + link.length), code, language)
        if (tail < 0) continue
        words.rankTerm[slot] = head
        words.rankPart[slot] = tail
        return
      }
    }
  }

  private rankerTermOf(part: string, code: TextLanguageCode, language: number): number {
    if (part.length < COMPOUND_PART_CHARS || contextRole(part) & (FUNCTION_WORD | GENERIC_WORD)) return -1
    const term = this.ranker.termOf(this.stemmers.stem(part, code))
    return term >= 0 && this.ranker.hasPostings(term, language) ? term : -1
  }

  /**
   * Elided compounds: "heftruck- en reachtruckchauffeur" holds "heftruckchauffeur", "Lager- und
   * Versandlogistik" holds "Lagerlogistik". A word written with a trailing hyphen before a
   * conjunction takes the longest ending of the compound after the conjunction that makes a
   * label with it (or, in Dutch and German, a compound that holds one).
   */
  private elidedCompounds(text: string, tokens: number, compoundLanguage: boolean) {
    for (let index = 0; index + 2 < tokens; index++) {
      const end = this.tokenEnd[index] as number
      if (text.charCodeAt(end) !== 45 || this.tokenStart[index + 1] === end + 1) continue
      if (this.silentCount > 0 && this.silent[index] === 1) continue
      const conjunction = this.words.norm[this.tokenWord[index + 1] as number] as string
      if (!ELISION_CONJUNCTIONS.has(conjunction)) continue
      const head = this.words.norm[this.tokenWord[index] as number] as string
      const compound = this.words.norm[this.tokenWord[index + 2] as number] as string
      for (let cut = 1; cut <= compound.length - 3; cut++) {
        const joined = head + compound.slice(cut)
        const term = this.termNumbers.get(joined)
        const node = term === undefined ? -1 : this.child(EXACT_ROOT, term)
        if (node >= 0 && (this.nodeFlags[node] as number) & HAS_ENTRIES) {
          this.accept(index, index + 1, node, this.nodeFlags[node] as number, false)
          break
        }
        if (compoundLanguage && joined.length >= 10) {
          const part = this.compoundOf(joined)
          if (part >= 0) {
            const from = this.entryCount
            for (
              let entry = this.nodeEntries[part] as number;
              entry < (this.nodeEntries[part + 1] as number);
              entry++
            )
              this.pushEntry(entry)
            this.pushCandidate(index, index + 1, COMPOUND_PART, true, from)
            break
          }
        }
      }
    }
  }

  /**
   * The tokens of a text (words as `WordScanner` finds them, text-tokens.ts), each found in the
   * word table by its FNV-1a hash without cutting a substring; returns how many.
   */
  private tokenize(text: string): number {
    const words = this.words
    let { slots, mask, hash: hashes, charStart, chars } = words
    let starts = this.tokenStart
    let ends = this.tokenEnd
    let gaps = this.tokenGap
    let tokenWords = this.tokenWord
    let count = 0
    let previousEnd = 0
    const scanner = this.scanner.reset(text)
    while (scanner.next()) {
      const start = scanner.start
      const index = scanner.end
      const hash = scanner.hash
      // The word, by its hash and then its characters; described on first sight.
      const size = index - start
      let word = -1
      for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
        const known = (slots[slot] as number) - 1
        if (known < 0) break
        if (hashes[known] !== hash) continue
        const from = charStart[known] as number
        if ((charStart[known + 1] as number) - from !== size) continue
        let at = 0
        while (at < size && text.charCodeAt(start + at) === chars[from + at]) at++
        if (at === size) {
          word = known
          break
        }
      }
      if (word < 0) {
        word = this.describe(text, start, index, hash)
        ;({ slots, mask, hash: hashes, charStart, chars } = words)
      }
      if (count === starts.length) {
        this.growTokens()
        starts = this.tokenStart
        ends = this.tokenEnd
        gaps = this.tokenGap
        tokenWords = this.tokenWord
      }
      starts[count] = start
      ends[count] = index
      gaps[count] = previousEnd
      tokenWords[count] = word
      count++
      previousEnd = index
    }
    // The scanner would otherwise hold the text until the next one.
    scanner.reset('')
    return count
  }

  /** Adds a word seen for the first time to the word table, with what it leads to in the tries. */
  private describe(text: string, start: number, end: number, hash: number): number {
    const words = this.words
    const word = words.add(text, start, end, hash)
    // A copy of the word, not a slice that would keep the whole text alive as long as the word is known.
    const raw = ` ${text.slice(start, end)}`.slice(1)
    const norm = normaliseWord(raw)
    words.norm[word] = norm
    words.upper[word] = isUpperWord(raw) ? 1 : 0
    words.role[word] = contextRole(norm)
    const weights = wordLanguageWeights(raw.toLowerCase())
    if (weights) {
      words.weighted[word] = 1
      words.weights.set(weights, word * 4)
    }
    const term = this.termNumbers.get(norm) ?? -1
    words.normTerm[word] = term
    words.exactNode[word] = term >= 0 ? this.child(EXACT_ROOT, term) : -1
    words.joinStart[word] = this.beginsRootTerm(norm) ? 1 : 0
    return word
  }

  /** Whether some term of the exact root begins with `norm`: only then can joined words spell a label. */
  private beginsRootTerm(norm: string): boolean {
    const keys = this.vocabulary.rootTerms
    const terms = this.vocabulary.terms
    let low = 0
    let high = keys.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((terms[keys[middle] as number] as string) < norm) low = middle + 1
      else high = middle
    }
    return low < keys.length && (terms[keys[low] as number] as string).startsWith(norm)
  }

  /**
   * The child of `parent` by `term`, or -1: a scan of its few children (most nodes have one to
   * three, next to each other in memory), a binary search for the many of a root.
   */
  private child(parent: number, term: number): number {
    const terms = this.childTerm
    let low = this.nodeChildren[parent] as number
    let high = this.nodeChildren[parent + 1] as number
    if (high - low <= 8) {
      for (; low < high; low++) {
        const found = terms[low] as number
        if (found === term) return this.childNode[low] as number
        if (found > term) return -1
      }
      return -1
    }
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((terms[middle] as number) < term) low = middle + 1
      else high = middle
    }
    return terms[low] === term ? (this.childNode[low] as number) : -1
  }

  /** The text's language from its words' weights (the first 80 words are plenty). */
  private languageOf(tokens: number): TextLanguageCode {
    const scores = this.scores
    scores.fill(0)
    const { weighted, weights } = this.words
    for (let index = 0; index < tokens && index < 80; index++) {
      const word = this.tokenWord[index] as number
      if (weighted[word] === 1)
        for (let language = 0; language < 4; language++)
          (scores[language] as number) += weights[word * 4 + language] as number
    }
    return pickLanguage(scores)
  }

  /** Whether nothing, a hyphen or a slash separates token `index` from the previous one ("front-end"). */
  private joinedToPrevious(text: string, index: number): boolean {
    const gapStart = this.tokenGap[index] as number
    const gap = (this.tokenStart[index] as number) - gapStart
    if (gap === 0) return true
    if (gap !== 1) return false
    const code = text.charCodeAt(gapStart)
    return code === 45 || code === 47
  }

  private scanExact(text: string, tokens: number) {
    const { exactNode, joinStart, norm } = this.words
    for (let start = 0; start < tokens; start++) {
      this.exactFrom[start] = this.candidateCount
      const word = this.tokenWord[start] as number
      const node = exactNode[word] as number
      if (node >= 0) this.descendExact(node, start, start + 1, tokens)
      // Hyphenated or slashed words written as one word in a label: "front-end" for "frontend".
      if (joinStart[word] === 1) {
        let joined = norm[word] as string
        for (let end = start + 1; end < tokens && end - start < 4; end++) {
          if (!this.joinedToPrevious(text, end)) break
          joined += norm[this.tokenWord[end] as number]
          const term = this.termNumbers.get(joined)
          if (term === undefined) continue
          const root = this.child(EXACT_ROOT, term)
          if (root >= 0) this.descendExact(root, start, end + 1, tokens)
        }
      }
      this.exactTo[start] = this.candidateCount
    }
  }

  /** From a node reached by tokens [start, end), accepts every label that ends on the way down. */
  private descendExact(node: number, start: number, end: number, tokens: number) {
    const nodeFlags = this.nodeFlags
    const normTerm = this.words.normTerm
    let current = node
    let position = end
    for (;;) {
      const flags = nodeFlags[current] as number
      if (flags & HAS_ENTRIES) this.accept(start, position, current, flags, false)
      if (!(flags & HAS_CHILDREN) || position >= tokens) return
      const term = normTerm[this.tokenWord[position] as number] as number
      if (term < 0) return
      current = this.child(current, term)
      if (current < 0) return
      position++
    }
  }

  private scanStemmed(tokens: number, language: number) {
    const nodeFlags = this.nodeFlags
    for (let start = 0; start < tokens; start++) {
      const first = this.stemmed(this.tokenWord[start] as number, language)
      let node = this.words.stemNode[first] as number
      let end = start + 1
      while (node >= 0) {
        const flags = nodeFlags[node] as number
        if (flags & HAS_ENTRIES) this.accept(start, end, node, flags, true)
        if (!(flags & HAS_CHILDREN) || end >= tokens) break
        const term = this.words.stemTerm[this.stemmed(this.tokenWord[end] as number, language)] as number
        if (term < 0) break
        node = this.child(node, term)
        end++
      }
    }
  }

  /** The slot of a word's stem in a language (its term and trie node), stemmed on first need. */
  private stemmed(word: number, language: number): number {
    const slot = word * 4 + language
    const words = this.words
    if (words.stemTerm[slot] === UNKNOWN) {
      const stem = this.stemmers.stem(
        words.norm[word] as string,
        TEXT_LANGUAGES[language] as TextLanguageCode,
      )
      const term = this.termNumbers.get(stem) ?? -1
      words.stemTerm[slot] = term
      words.stemNode[slot] = term >= 0 ? this.child(STEMMED_ROOT + language, term) : -1
    }
    return slot
  }

  /** German and Dutch compounds: a long word that begins or ends with a one-word label. */
  private compounds(tokens: number) {
    const words = this.words
    const nodeEntries = this.nodeEntries
    for (let index = 0; index < tokens; index++) {
      const word = this.tokenWord[index] as number
      const norm = words.norm[word] as string
      if (norm.length < 10) continue
      let node = words.compound[word] as number
      if (node === UNKNOWN) words.compound[word] = node = this.compoundOf(norm)
      if (node < 0 || this.silenced(index, index + 1)) continue
      const from = this.entryCount
      for (let entry = nodeEntries[node] as number; entry < (nodeEntries[node + 1] as number); entry++)
        this.pushEntry(entry)
      this.pushCandidate(index, index + 1, COMPOUND_PART, true, from)
    }
  }

  /**
   * Whether tokens [start, end) may not evidence a skill: a context rule silences one of them, or
   * all of them are function words not written in capitals ("we" is no abbreviation; "WE" may be).
   */
  private silenced(start: number, end: number): boolean {
    let functionWords = true
    for (let index = start; index < end; index++) {
      if (this.silentCount > 0 && this.silent[index] === 1) return true
      const word = this.tokenWord[index] as number
      if (!((this.words.role[word] as number) & FUNCTION_WORD) || this.words.upper[word] === 1)
        functionWords = false
    }
    return functionWords
  }

  private compoundOf(norm: string): number {
    for (let cut = norm.length - 3; cut >= 5; cut--) {
      const head = this.singleWord(norm.slice(0, cut))
      if (head >= 0) return head
      const tail = this.singleWord(norm.slice(norm.length - cut))
      if (tail >= 0) return tail
    }
    return -1
  }

  private singleWord(text: string): number {
    const term = this.termNumbers.get(text)
    return term === undefined ? -1 : this.child(SINGLE_ROOT, term)
  }

  /** A candidate for the node's labels over tokens [start, end); short all-capital labels need capitals. */
  private accept(start: number, end: number, node: number, flags: number, stemmed: boolean) {
    if (this.silenced(start, end)) return
    const entryUpperOnly = this.entryUpperOnly
    const entryConfidence = this.entryConfidence
    const first = this.nodeEntries[node] as number
    const last = this.nodeEntries[node + 1] as number
    const upperOnly = (flags & HAS_UPPER_ONLY) !== 0
    const upper = upperOnly && end - start === 1 && this.words.upper[this.tokenWord[start] as number] === 1
    const from = this.entryCount
    let confidence = 0
    for (let entry = first; entry < last; entry++) {
      if (upperOnly && entryUpperOnly[entry] === 1 && !upper) continue
      this.pushEntry(entry)
      confidence = Math.max(confidence, entryConfidence[entry] as number)
    }
    if (this.entryCount === from) return
    if (stemmed && this.coveredByExact(start, end, confidence, from)) this.entryCount = from
    else this.pushCandidate(start, end, confidence, false, from)
  }

  /**
   * Whether an exact candidate over the same tokens, at least as confident, already names every
   * skill of the stemmed candidate whose entries start at `from`. Such a stemmed candidate can
   * change nothing: the exact one sorts before it, so it is either accepted (and the stemmed one
   * would only add its skills, which it has) or loses its tokens to a candidate that the stemmed
   * one would lose them to as well. Dropping it early spares sorting and resolving it.
   */
  private coveredByExact(start: number, end: number, confidence: number, from: number): boolean {
    const entrySkill = this.entrySkill
    const list = this.entryList
    for (
      let candidate = this.exactFrom[start] as number;
      candidate < (this.exactTo[start] as number);
      candidate++
    ) {
      if (
        this.candidateEnd[candidate] !== end ||
        (this.candidateConfidence[candidate] as number) < confidence
      )
        continue
      const first = this.candidateFrom[candidate] as number
      const last = this.candidateTo[candidate] as number
      let all = true
      for (let at = from; at < this.entryCount && all; at++) {
        const skill = entrySkill[list[at] as number]
        let found = false
        for (let other = first; other < last; other++)
          if (entrySkill[list[other] as number] === skill) {
            found = true
            break
          }
        all = found
      }
      if (all) return true
    }
    return false
  }

  private pushEntry(entry: number) {
    if (this.entryCount === this.entryList.length) this.entryList = grown(this.entryList)
    this.entryList[this.entryCount++] = entry
  }

  private pushCandidate(start: number, end: number, confidence: number, compound: boolean, from: number) {
    const index = this.candidateCount++
    if (index === this.candidateStart.length) this.growCandidates()
    this.candidateStart[index] = start
    this.candidateEnd[index] = end
    this.candidateConfidence[index] = confidence
    this.candidateCompound[index] = compound ? 1 : 0
    this.candidateFrom[index] = from
    this.candidateTo[index] = this.entryCount
  }

  /** Longest candidate first (then most confident, then first); a candidate overlapping an accepted one is dropped. */
  private resolveOverlaps(tokens: number) {
    const count = this.candidateCount
    const order = this.order
    for (let index = 0; index < count; index++) order[index] = index
    this.sortCandidates(count)
    const taken = this.taken
    taken.fill(0, 0, tokens)
    this.acceptedCount = 0
    for (let rank = 0; rank < count; rank++) {
      const candidate = order[rank] as number
      const start = this.candidateStart[candidate] as number
      const end = this.candidateEnd[candidate] as number
      let free = true
      for (let index = start; index < end; index++) if (taken[index] === 1) free = false
      if (!free) {
        // The same span found again (exact and stemmed) adds its skills when they are new.
        for (let index = 0; index < this.acceptedCount; index++) {
          const same = this.accepted[index] as number
          if (this.candidateStart[same] === start && this.candidateEnd[same] === end) {
            this.mergeInto(same, candidate)
            break
          }
        }
        continue
      }
      for (let index = start; index < end; index++) taken[index] = 1
      this.accepted[this.acceptedCount++] = candidate
    }
  }

  /** Stable sort of `order` by the overlap rule: insertion sort for the few candidates of most texts. */
  private sortCandidates(count: number) {
    const order = this.order
    if (count <= 32) {
      for (let index = 1; index < count; index++) {
        const candidate = order[index] as number
        let at = index - 1
        while (at >= 0 && this.compareCandidates(order[at] as number, candidate) > 0) {
          order[at + 1] = order[at] as number
          at--
        }
        order[at + 1] = candidate
      }
      return
    }
    const sorted = Array.from(order.subarray(0, count)).sort((a, b) => this.compareCandidates(a, b))
    order.set(sorted)
  }

  private compareCandidates(a: number, b: number): number {
    const startA = this.candidateStart[a] as number
    const startB = this.candidateStart[b] as number
    return (
      (this.candidateEnd[b] as number) - startB - ((this.candidateEnd[a] as number) - startA) ||
      (this.candidateConfidence[b] as number) - (this.candidateConfidence[a] as number) ||
      startA - startB
    )
  }

  /** Appends the candidate's skills that `target` lacks to `target`'s entries (moved to the end of the list first). */
  private mergeInto(target: number, candidate: number) {
    const entrySkill = this.entrySkill
    for (
      let at = this.candidateFrom[candidate] as number;
      at < (this.candidateTo[candidate] as number);
      at++
    ) {
      const entry = this.entryList[at] as number
      const skill = entrySkill[entry]
      let known = false
      for (
        let other = this.candidateFrom[target] as number;
        other < (this.candidateTo[target] as number);
        other++
      )
        if (entrySkill[this.entryList[other] as number] === skill) known = true
      if (known) continue
      if (this.candidateTo[target] !== this.entryCount) {
        const from = this.entryCount
        for (
          let other = this.candidateFrom[target] as number;
          other < (this.candidateTo[target] as number);
          other++
        )
          this.pushEntry(this.entryList[other] as number)
        this.candidateFrom[target] = from
      }
      this.pushEntry(entry)
      this.candidateTo[target] = this.entryCount
    }
  }

  /**
   * Per skill, over the accepted candidates in order: mentions, the strongest mention's span, and
   * the product of (1 − strength); a label shared by several skills ("GCP") is evidence for each,
   * but weaker.
   */
  private sumBySkill() {
    const entrySkill = this.entrySkill
    const entryConfidence = this.entryConfidence
    if (++this.stamp === 0x7fffffff) {
      this.skillStamp.fill(0)
      this.stamp = 1
    }
    const stamp = this.stamp
    this.seenCount = 0
    for (let index = 0; index < this.acceptedCount; index++) {
      const candidate = this.accepted[index] as number
      const from = this.candidateFrom[candidate] as number
      const to = this.candidateTo[candidate] as number
      const share = 1 / (to - from)
      const compound = this.candidateCompound[candidate] === 1
      const spanStart = this.tokenStart[this.candidateStart[candidate] as number] as number
      const spanEnd = this.tokenEnd[(this.candidateEnd[candidate] as number) - 1] as number
      for (let at = from; at < to; at++) {
        const entry = this.entryList[at] as number
        const skill = entrySkill[entry] as number
        const confidence = entryConfidence[entry] as number
        const strength = (compound ? COMPOUND_PART * confidence : confidence) * share
        if (this.skillStamp[skill] !== stamp) {
          this.skillStamp[skill] = stamp
          this.skillMiss[skill] = 1 - strength
          this.skillBest[skill] = strength
          this.skillFirst[skill] = spanStart
          this.skillSpanStart[skill] = spanStart
          this.skillSpanEnd[skill] = spanEnd
          this.skillMentions[skill] = 1
          this.seenSkills[this.seenCount++] = skill
        } else {
          ;(this.skillMiss[skill] as number) *= 1 - strength
          ;(this.skillMentions[skill] as number)++
          if (strength > (this.skillBest[skill] as number)) {
            this.skillBest[skill] = strength
            this.skillSpanStart[skill] = spanStart
            this.skillSpanEnd[skill] = spanEnd
          }
        }
      }
    }
  }

  /** Several mentions add up (noisy-or), below certainty; four decimals. */
  private scoreOf(skill: number): number {
    return Math.round(Math.min(0.99, 1 - (this.skillMiss[skill] as number)) * 10_000) / 10_000
  }

  private growTokens() {
    this.tokenStart = grown(this.tokenStart)
    this.tokenEnd = grown(this.tokenEnd)
    this.tokenGap = grown(this.tokenGap)
    this.tokenWord = grown(this.tokenWord)
    this.taken = new Uint8Array(this.tokenStart.length)
    this.exactFrom = new Int32Array(this.tokenStart.length)
    this.exactTo = new Int32Array(this.tokenStart.length)
  }

  private growCandidates() {
    this.candidateStart = grown(this.candidateStart)
    this.candidateEnd = grown(this.candidateEnd)
    this.candidateFrom = grown(this.candidateFrom)
    this.candidateTo = grown(this.candidateTo)
    this.order = grown(this.order)
    this.accepted = grown(this.accepted)
    const confidence = new Float64Array(this.candidateConfidence.length * 2)
    confidence.set(this.candidateConfidence)
    this.candidateConfidence = confidence
    const compound = new Uint8Array(this.candidateCompound.length * 2)
    compound.set(this.candidateCompound)
    this.candidateCompound = compound
  }
}

/**
 * The distinct words of the texts seen, by number, in parallel arrays: the characters (in one
 * pool) and FNV-1a hash (an open-addressing table finds a word by it), its normal form, whether
 * it is written in capitals, its language weights, and what it leads to in the tries: its term
 * and exact node, whether a hyphenated label may begin with it, its stem term and node per
 * language, and the one-word label a long compound holds (the last two on first need).
 */
class WordTable {
  count = 0
  mask = 0
  slots = new Int32Array(0)
  hash = new Int32Array(0)
  charStart = new Int32Array(1)
  chars = new Uint16Array(0)
  norm: string[] = []
  upper = new Uint8Array(0)
  weighted = new Uint8Array(0)
  weights = new Float64Array(0)
  normTerm = new Int32Array(0)
  exactNode = new Int32Array(0)
  joinStart = new Uint8Array(0)
  stemTerm = new Int32Array(0)
  stemNode = new Int32Array(0)
  compound = new Int32Array(0)
  role = new Uint8Array(0)
  rankTerm = new Int32Array(0)
  rankPart = new Int32Array(0)

  constructor() {
    this.clear()
  }

  /** Forgets every word. */
  clear() {
    this.count = 0
    this.norm = []
    this.chars = new Uint16Array(1 << 16)
    this.allocate(1 << 13)
  }

  /** A new word (text[start, end)) and its number; its other fields are the caller's to fill. */
  add(text: string, start: number, end: number, hash: number): number {
    if (this.count === this.hash.length) this.allocate(this.hash.length * 2)
    const word = this.count++
    this.hash[word] = hash
    const from = this.charStart[word] as number
    if (from + end - start > this.chars.length) {
      const chars = new Uint16Array(Math.max(this.chars.length * 2, from + end - start))
      chars.set(this.chars)
      this.chars = chars
    }
    for (let index = start; index < end; index++) this.chars[from + index - start] = text.charCodeAt(index)
    this.charStart[word + 1] = from + end - start
    let slot = hash & this.mask
    while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask
    this.slots[slot] = word + 1
    return word
  }

  private allocate(capacity: number) {
    const count = this.count
    function copy<T extends Int32Array | Uint8Array | Float64Array>(old: T, fresh: T, width = 1): T {
      fresh.set(old.subarray(0, count * width))
      return fresh
    }
    this.hash = copy(this.hash, new Int32Array(capacity))
    const charStart = new Int32Array(capacity + 1)
    charStart.set(this.charStart.subarray(0, count + 1))
    this.charStart = charStart
    this.upper = copy(this.upper, new Uint8Array(capacity))
    this.weighted = copy(this.weighted, new Uint8Array(capacity))
    this.weights = copy(this.weights, new Float64Array(capacity * 4), 4)
    this.normTerm = copy(this.normTerm, new Int32Array(capacity))
    this.exactNode = copy(this.exactNode, new Int32Array(capacity))
    this.joinStart = copy(this.joinStart, new Uint8Array(capacity))
    this.compound = copy(this.compound, new Int32Array(capacity))
    this.compound.fill(UNKNOWN, count)
    this.stemTerm = copy(this.stemTerm, new Int32Array(capacity * 4), 4)
    this.stemTerm.fill(UNKNOWN, count * 4)
    this.stemNode = copy(this.stemNode, new Int32Array(capacity * 4), 4)
    this.role = copy(this.role, new Uint8Array(capacity))
    this.rankTerm = copy(this.rankTerm, new Int32Array(capacity * 4), 4)
    this.rankTerm.fill(UNKNOWN, count * 4)
    this.rankPart = copy(this.rankPart, new Int32Array(capacity * 4), 4)
    this.slots = new Int32Array(capacity * 2)
    this.mask = capacity * 2 - 1
    for (let word = 0; word < count; word++) {
      let slot = (this.hash[word] as number) & this.mask
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask
      this.slots[slot] = word + 1
    }
  }
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}

/** en 0, nl 1, fr 2, de 3 (the order of the stemmed tries); -1 for any other language. */
function languageNumber(language: string): number {
  switch (language) {
    case 'en':
      return 0
    case 'nl':
      return 1
    case 'fr':
      return 2
    case 'de':
      return 3
    default:
      return -1
  }
}

/** The label of a vocabulary language in a skill's names (language, label, language, label…). */
function labelIn(names: readonly string[], language: string): string | undefined {
  for (let index = 0; index < names.length; index += 2) if (names[index] === language) return names[index + 1]
  return undefined
}

/** An implied skill's score from its raw ranker score (see `IMPLIED_SCORE`). */
function impliedScore(raw: number): number {
  return Math.round(IMPLIED_SCORE * calibrated(raw) * 10_000) / 10_000
}
