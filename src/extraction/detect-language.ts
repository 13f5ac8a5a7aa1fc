/**
 * Language detection for the four text languages of section 4.2 (en, nl, fr, de), by function
 * words and a few letters only one of them uses. Written here rather than taken from a library:
 * general-purpose detectors (tinyld) are about two orders of magnitude slower per sentence, which
 * is minutes over the millions of events of a large tenant (docs/benchmarks.md), and this is right
 * for the short work texts it sees. Undecided text (no function words: "Fix SAP export") is English, the language of tools.
 */
export type TextLanguageCode = 'en' | 'nl' | 'fr' | 'de'

const FUNCTION_WORDS: Record<TextLanguageCode, string> = {
  en: 'the and of to in for with on at by from is are was were be been has have had this that these those it its an as or not but which who our we you your their they will would can could should into about over under after before than more most such also',
  nl: 'de het een en van voor met op aan bij uit is zijn was waren wordt worden werd heeft hebben had dit dat deze die niet maar ook naar over onder na voor dan meer als wij we je jij u hun zij ze zal zou kan kunnen moet binnen tussen door tot mijn onze ons',
  fr: 'le la les un une des et de du au aux pour avec sur par dans est sont était étaient être été a ont avait ce cette ces qui que ne pas mais aussi plus moins comme nous vous leur leurs il elle ils elles sera serait peut pouvez entre sous après avant mon notre nos',
  de: 'der die das den dem des ein eine einer einen und von zu im in für mit auf an bei aus ist sind war waren wird werden wurde hat haben hatte dieser diese dieses nicht aber auch nach über unter vor als mehr wir sie ihr ihre es kann können muss zwischen durch bis mein unser',
}

const LANGUAGES: TextLanguageCode[] = ['en', 'nl', 'fr', 'de']
const WORD_LANGUAGES = new Map<string, TextLanguageCode[]>()
for (const language of LANGUAGES) {
  for (const word of FUNCTION_WORDS[language].split(' ')) {
    WORD_LANGUAGES.set(word, [...(WORD_LANGUAGES.get(word) ?? []), language])
  }
}

const LETTER_HINTS: [RegExp, TextLanguageCode, number][] = [
  [/[äöüß]/g, 'de', 1.5],
  [/[éèêàçùûôî]/g, 'fr', 1],
  [/ij/g, 'nl', 0.5],
  [/^(?:sch|ung|keit)|(?:ung|keit)$/g, 'de', 0.3],
]

/** Order of the weights of `wordLanguageWeights`. */
export const TEXT_LANGUAGE_ORDER: readonly TextLanguageCode[] = LANGUAGES

/**
 * How much one word says for each language (en, nl, fr, de in that order), or undefined when it
 * says nothing. Computed once per distinct word by the extractor, which then adds them up.
 */
export function wordLanguageWeights(lowerWord: string): number[] | undefined {
  let weights: number[] | undefined
  const languages = WORD_LANGUAGES.get(lowerWord)
  if (languages) {
    weights = [0, 0, 0, 0]
    // A word shared by several languages ("in", "de") counts for each, split between them.
    for (const language of languages) (weights[LANGUAGES.indexOf(language)] as number) += 1 / languages.length
  }
  for (const [pattern, language, weight] of LETTER_HINTS) {
    const hits = lowerWord.match(pattern)?.length ?? 0
    if (hits === 0) continue
    weights ??= [0, 0, 0, 0]
    ;(weights[LANGUAGES.indexOf(language)] as number) += hits * weight
  }
  return weights
}

/** The language with the highest summed weights; English when nothing decides. */
export function pickLanguage(scores: ArrayLike<number>): TextLanguageCode {
  let best = 0
  for (let index = 1; index < 4; index++)
    if ((scores[index] as number) > (scores[best] as number)) best = index
  return LANGUAGES[best] as TextLanguageCode
}

/** The language of `text` among en, nl, fr and de. */
export function detectTextLanguage(text: string): TextLanguageCode {
  const scores = [0, 0, 0, 0]
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const weights = wordLanguageWeights(word)
    if (weights) for (let index = 0; index < 4; index++) (scores[index] as number) += weights[index] as number
  }
  return pickLanguage(scores)
}
