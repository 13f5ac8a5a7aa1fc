import type { z } from 'zod'
import { errors } from '../errors/skillhouse-error.js'
import { DEFAULT_VENDOR, type ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import { requireVendor, type TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'

/** The vocabulary of an answer: its vendor and the language of its skill names. */
export interface AnswerVocabulary {
  external_vendor?: string | null | undefined
  vocab_language?: string | null | undefined
}

/**
 * Parses the options of a recommendation with their schema; each problem is one 422 naming its
 * field in backticks (the command shows its flag, the server its parameter) and the value sent.
 */
export function checkedOptions<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  throw errors.unprocessable(
    parsed.error.issues.map((issue) => {
      const field = issue.path[0]
      const sent = field === undefined ? undefined : (input as Record<string, unknown>)[String(field)]
      const value = sent === undefined ? '' : ` ${JSON.stringify(sent)}`
      return field === undefined ? issue.message : `\`${String(field)}\`${value}: ${issue.message}`
    }),
  )
}

/** The vendor (activated, else 403) and the name language (else 422) an answer is given in. */
export async function answerVocabulary(
  tenant: TaxonomyTenant,
  options: AnswerVocabulary,
): Promise<{ vendor: ExternalVendor; language: VocabLanguage }> {
  const vendor = requireVendor(tenant, options.external_vendor ?? DEFAULT_VENDOR)
  return { vendor, language: await resolveVocabLanguage(tenant, vendor, options.vocab_language) }
}

/** A number rounded to four decimals: answers read the same on every platform and stay short. */
export const rounded = (value: number): number => Math.round(value * 10_000) / 10_000
