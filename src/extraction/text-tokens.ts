import snowball from 'snowball-stemmers'
import type { TextLanguageCode } from './detect-language.js'

/** A word of a text: where it stands (end exclusive) and where the gap before it starts. */
export interface Span {
  start: number
  end: number
  gapStart: number
}

// Character classes of the BMP, computed on first sight: 1 word character, 2 not, 0 unknown yet.
const CLASS = new Uint8Array(65536)
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u
export function isWordChar(code: number): boolean {
  if (code < 128)
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57)
  let kind = CLASS[code]
  if (kind === 0) {
    kind = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2
    CLASS[code] = kind
  }
  return kind === 1
}

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * Scans the words of a text one at a time: letters, digits and marks, with a leading dot kept
 * before a letter (".NET", ".js") and trailing + or # kept ("C++", "C#"), with an FNV-1a hash of
 * each word's characters computed on the way (the extractor finds known words by it without
 * cutting substrings). A hand-written scanner: it runs over every byte of every skill event, and
 * a Unicode regex is several times slower. One scanner serves text after text (`reset`), so that
 * scanning allocates nothing.
 */
export class WordScanner {
  /** The current word: text[start, end) and the FNV-1a hash of its characters. */
  start = 0
  end = 0
  hash = 0
  private text = ''
  private at = 0

  /** Starts on `text`, before its first word. */
  reset(text: string): this {
    this.text = text
    this.at = 0
    this.start = 0
    this.end = 0
    return this
  }

  /** Moves to the next word; false when the text has no more. */
  next(): boolean {
    const text = this.text
    const length = text.length
    let index = this.at
    while (index < length && !isWordChar(text.charCodeAt(index))) index++
    if (index >= length) {
      this.at = length
      return false
    }
    let start = index
    let hash = FNV_OFFSET
    if (
      start > 0 &&
      text.charCodeAt(start - 1) === 46 &&
      (start < 2 || !isWordChar(text.charCodeAt(start - 2)))
    ) {
      start--
      hash = Math.imul(hash ^ 46, FNV_PRIME)
    }
    let code = 0
    while (index < length && isWordChar((code = text.charCodeAt(index)))) {
      hash = Math.imul(hash ^ code, FNV_PRIME)
      index++
    }
    while (index < length && ((code = text.charCodeAt(index)) === 43 || code === 35)) {
      hash = Math.imul(hash ^ code, FNV_PRIME)
      index++
    }
    this.start = start
    this.end = index
    this.hash = hash | 0
    this.at = index
    return true
  }
}

/** The words of a text as spans (see `WordScanner`). */
export function scanWords(text: string): Span[] {
  const spans: Span[] = []
  const scanner = new WordScanner().reset(text)
  let previousEnd = 0
  while (scanner.next()) {
    spans.push({ start: scanner.start, end: scanner.end, gapStart: previousEnd })
    previousEnd = scanner.end
  }
  return spans
}

/** Lower case without accents: "Comptabilité" → "comptabilite". */
export function normaliseWord(word: string): string {
  // ASCII words (the vast majority) need no Unicode decomposition.
  for (let index = 0; index < word.length; index++) {
    if (word.charCodeAt(index) > 127) return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
  }
  return word.toLowerCase()
}

/** Whether a word is written in capitals ("AP", "SQL"). */
export function isUpperWord(word: string): boolean {
  return word === word.toUpperCase() && word !== word.toLowerCase()
}

/**
 * The text language (0 en, 1 nl, 2 fr, 3 de: the order of the stemmed tries) of a vocabulary
 * language, for stemming its labels; the other vocabulary languages are matched exactly only.
 */
export const LABEL_TEXT_LANGUAGE: ReadonlyMap<string, number> = new Map([
  ['en_uk', 0],
  ['en_us', 0],
  ['en', 0],
  ['nl', 1],
  ['fr', 2],
  ['de', 3],
])

const ALGORITHMS: Record<TextLanguageCode, string> = {
  en: 'english',
  nl: 'dutch',
  fr: 'french',
  de: 'german',
}

/** Stems of one language as word, stem, word, stem, … (what `Stemmers` hands out and takes in). */
export type StemPairs = Partial<Record<TextLanguageCode, string[]>>

/** Words remembered per language; past this no more are (bounded memory and file). */
const STEM_CACHE_WORDS = 200_000

/**
 * Snowball stemming per language, remembered per word (words of letters only: short words,
 * numbers, codes and symbols are their own stem, at no cost). What it remembers can be handed out
 * (`pairs`, `takeLearned`) and taken in (`remember`), so that a cache outlives the process and
 * worker threads share what they learned; `clear` forgets it all.
 */
export class Stemmers {
  private readonly stemmers = new Map<TextLanguageCode, { stem: (word: string) => string }>()
  private readonly caches = new Map<TextLanguageCode, Map<string, string>>()
  /** Stems computed here since the last `takeLearned`, once a thread asks for them (`reportLearned`). */
  private learned: StemPairs | undefined
  /** Stems added since `markSaved`. */
  private added = 0

  stem(norm: string, language: TextLanguageCode): string {
    if (norm.length <= 4) return norm
    const cache = this.cacheOf(language)
    let stem = cache.get(norm)
    if (stem !== undefined) return stem
    if (!/^\p{L}+$/u.test(norm)) return norm
    let stemmer = this.stemmers.get(language)
    if (!stemmer) this.stemmers.set(language, (stemmer = snowball.newStemmer(ALGORITHMS[language])))
    stem = stemmer.stem(norm)
    // Snowball costs microseconds a word; vocabularies and texts repeat their words.
    if (!this.add(cache, norm, stem)) return stem
    this.added++
    if (this.learned) {
      const list = this.learned[language]
      if (list) list.push(norm, stem)
      else this.learned[language] = [norm, stem]
    }
    return stem
  }

  /** Takes in stems learned elsewhere (another thread, an earlier process). */
  remember(pairs: StemPairs, options: { unsaved: boolean }): void {
    for (const [language, list] of Object.entries(pairs) as [TextLanguageCode, string[]][]) {
      const cache = this.cacheOf(language)
      for (let index = 0; index + 1 < list.length; index += 2) {
        if (cache.has(list[index] as string)) continue
        if (!this.add(cache, list[index] as string, list[index + 1] as string)) break
        if (options.unsaved) this.added++
      }
    }
  }

  /** From now on, stems computed here are kept for `takeLearned`. */
  reportLearned(): void {
    this.learned ??= {}
  }

  /** The stems computed since the last call (a worker's report to the thread that keeps the cache). */
  takeLearned(): StemPairs {
    const learned = this.learned ?? {}
    if (this.learned) this.learned = {}
    return learned
  }

  /** Every remembered stem. */
  pairs(): StemPairs {
    const pairs: StemPairs = {}
    for (const [language, cache] of this.caches) {
      const list: string[] = []
      for (const [word, stem] of cache) list.push(word, stem)
      pairs[language] = list
    }
    return pairs
  }

  /** Stems remembered, in all languages. */
  get size(): number {
    let size = 0
    for (const cache of this.caches.values()) size += cache.size
    return size
  }

  /** Stems added since the last `markSaved` (taken in as unsaved, or computed here). */
  get unsaved(): number {
    return this.added
  }

  markSaved(): void {
    this.added = 0
  }

  /** Forgets every stem (see `forgetStems`). */
  clear(): void {
    this.caches.clear()
    if (this.learned) this.learned = {}
    this.added = 0
  }

  private cacheOf(language: TextLanguageCode): Map<string, string> {
    let cache = this.caches.get(language)
    if (!cache) this.caches.set(language, (cache = new Map()))
    return cache
  }

  /** Remembers a stem unless the language's cache is full; whether it did. */
  private add(cache: Map<string, string>, word: string, stem: string): boolean {
    if (cache.size >= STEM_CACHE_WORDS) return false
    cache.set(word, stem)
    return true
  }
}
