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

/**
 * Visits the words of a text: letters, digits and marks, with a leading dot kept before a letter
 * (".NET", ".js") and trailing + or # kept ("C++", "C#"), with an FNV-1a hash of each word's
 * characters computed on the way (the extractor finds known words by it without cutting
 * substrings). A hand-written scanner: it runs over every byte of every skill event, and a
 * Unicode regex is several times slower.
 */
export function forEachWord(
  text: string,
  visit: (start: number, end: number, gapStart: number, hash: number) => void,
): void {
  const length = text.length
  let previousEnd = 0
  let index = 0
  while (index < length) {
    let code = text.charCodeAt(index)
    if (!isWordChar(code)) {
      index++
      continue
    }
    let start = index
    if (
      start > 0 &&
      text.charCodeAt(start - 1) === 46 &&
      (start < 2 || !isWordChar(text.charCodeAt(start - 2)))
    )
      start--
    let hash = 0x811c9dc5
    for (let dot = start; dot < index; dot++) hash = Math.imul(hash ^ text.charCodeAt(dot), 0x01000193)
    while (index < length && isWordChar((code = text.charCodeAt(index)))) {
      hash = Math.imul(hash ^ code, 0x01000193)
      index++
    }
    while (index < length && ((code = text.charCodeAt(index)) === 43 || code === 35)) {
      hash = Math.imul(hash ^ code, 0x01000193)
      index++
    }
    visit(start, index, previousEnd, hash | 0)
    previousEnd = index
  }
}

/** The words of a text as spans (see `forEachWord`). */
export function scanWords(text: string): Span[] {
  const spans: Span[] = []
  forEachWord(text, (start, end, gapStart) => spans.push({ start, end, gapStart }))
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

const ALGORITHMS: Record<TextLanguageCode, string> = {
  en: 'english',
  nl: 'dutch',
  fr: 'french',
  de: 'german',
}

/** Snowball stemming per language, remembered per word; short words, numbers and symbols are left alone. */
export class Stemmers {
  private readonly stemmers = new Map<TextLanguageCode, { stem: (word: string) => string }>()
  private readonly caches = new Map<TextLanguageCode, Map<string, string>>()

  stem(norm: string, language: TextLanguageCode): string {
    if (norm.length <= 4) return norm
    let cache = this.caches.get(language)
    if (!cache) this.caches.set(language, (cache = new Map()))
    let stem = cache.get(norm)
    if (stem !== undefined) return stem
    if (/^\p{L}+$/u.test(norm)) {
      let stemmer = this.stemmers.get(language)
      if (!stemmer) this.stemmers.set(language, (stemmer = snowball.newStemmer(ALGORITHMS[language])))
      stem = stemmer.stem(norm)
    } else stem = norm
    // Snowball costs microseconds a word; vocabularies and texts repeat their words.
    if (cache.size > 200_000) cache.clear()
    cache.set(norm, stem)
    return stem
  }
}
