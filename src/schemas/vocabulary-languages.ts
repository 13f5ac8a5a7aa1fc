import type { ExternalVendor } from './vendors.js'
import { z } from './zod.js'

/** Internal vocabulary languages of the default vocabulary (2.1). `en` is an alias of `en_uk`. */
export const DEFAULT_VOCAB_LANGUAGES = ['en_uk', 'en_us', 'de', 'fr', 'nl'] as const
/** Languages that exist only when a request is scoped to vendor_a and its vocabulary has them. */
export const VENDOR_A_ONLY_LANGUAGES = [
  'es',
  'fr_ca',
  'it',
  'ja',
  'ko',
  'pt_br',
  'zh_cn',
  'zh_tw',
  'sv',
  'fi',
  'da',
  'no',
] as const
export const VOCAB_LANGUAGES = [...DEFAULT_VOCAB_LANGUAGES, ...VENDOR_A_ONLY_LANGUAGES] as const
export type VocabLanguage = (typeof VOCAB_LANGUAGES)[number]
export const DEFAULT_VOCAB_LANGUAGE: VocabLanguage = 'en_uk'

/** Values a client may send: the internal values plus the `en` alias. */
export const VOCAB_LANGUAGE_VALUES = ['en', ...VOCAB_LANGUAGES] as const

/** Region-qualified tags that have an internal value of their own. Keys are lower case. */
const REGIONAL: Record<string, VocabLanguage> = {
  'en-gb': 'en_uk',
  'en-uk': 'en_uk',
  'en-us': 'en_us',
  'fr-ca': 'fr_ca',
  'pt-br': 'pt_br',
  'zh-cn': 'zh_cn',
  'zh-sg': 'zh_cn',
  'zh-hans': 'zh_cn',
  'zh-tw': 'zh_tw',
  'zh-hk': 'zh_tw',
  'zh-mo': 'zh_tw',
  'zh-hant': 'zh_tw',
}

/** Primary language subtags and the internal value they stand for when no region decides. */
const PRIMARY: Record<string, VocabLanguage> = {
  en: 'en_uk',
  de: 'de',
  fr: 'fr',
  nl: 'nl',
  es: 'es',
  it: 'it',
  ja: 'ja',
  ko: 'ko',
  pt: 'pt_br',
  zh: 'zh_cn',
  sv: 'sv',
  fi: 'fi',
  da: 'da',
  no: 'no',
  nb: 'no',
  nn: 'no',
}

const BCP47 = /^([a-z]{2,3})(?:-([a-z]{4}))?(?:-([a-z]{2}|\d{3}))?(?:-[a-z0-9]{1,8})*$/

/**
 * Maps a vocabulary language as a client writes it (an internal value, `en`, or an IETF BCP 47
 * tag such as `en-US`, `zh-Hant-TW` or `nb-NO`) to the internal value, or undefined when it
 * names no language skillhouse knows. A script subtag decides Chinese (`zh-Hant-CN` is still
 * traditional); a region decides where it has its own value and is otherwise ignored (`de-AT` is `de`).
 */
export function toVocabLanguage(input: string): VocabLanguage | undefined {
  const value = input.trim()
  if ((VOCAB_LANGUAGES as readonly string[]).includes(value)) return value as VocabLanguage
  const tag = value.toLowerCase().replaceAll('_', '-')
  const match = BCP47.exec(tag)
  if (!match) return undefined
  const [, language = '', script, region] = match
  if (script) {
    const byScript = REGIONAL[`${language}-${script}`]
    if (byScript) return byScript
  }
  if (region) {
    const byRegion = REGIONAL[`${language}-${region}`]
    if (byRegion) return byRegion
  }
  return PRIMARY[language]
}

/** A vocabulary language in a request: any accepted spelling, mapped to the internal value. */
export const VocabLanguageInput = z.string().transform((value, ctx) => {
  const language = toVocabLanguage(value)
  if (language === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `'${value}' is not a vocabulary language; valid values: ${VOCAB_LANGUAGE_VALUES.join(', ')} (or a BCP 47 tag of one of them, such as en-US, fr-CA, zh-TW, pt-BR, nb-NO)`,
    })
    return z.NEVER
  }
  return language
})

/** Whether a language may be used with a vendor at all (before asking what the vocabulary holds). */
export function isLanguageAllowedForVendor(language: VocabLanguage, vendor: ExternalVendor): boolean {
  if ((DEFAULT_VOCAB_LANGUAGES as readonly string[]).includes(language)) return true
  return vendor === 'vendor_a'
}

/** Languages of input text for extraction (4.2). */
export const TEXT_LANGUAGES = ['auto', 'nl', 'fr', 'en', 'de'] as const
export const TextLanguage = z.enum(TEXT_LANGUAGES)
export type TextLanguage = z.infer<typeof TextLanguage>
