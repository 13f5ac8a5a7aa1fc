import type { z } from 'zod'
import { errors } from '../errors/skillhouse-error.js'
import type { VocabularyLanguagesResponse } from '../schemas/taxonomy.js'
import { type ExternalVendor, VENDORS } from '../schemas/vendors.js'
import {
  DEFAULT_VOCAB_LANGUAGE,
  isLanguageAllowedForVendor,
  toVocabLanguage,
  VOCAB_LANGUAGES,
  type VocabLanguage,
} from '../schemas/vocabulary-languages.js'
import { nameFallbacks } from './skill-names.js'
import type { TaxonomyTenant } from './taxonomy-tenant.js'

type LanguagesResponse = z.infer<typeof VocabularyLanguagesResponse>

/**
 * Whether a tenant can use `language` with `vendor`, given the languages the vendor's vocabulary
 * names its skills in: the language must be allowed for the vendor (the extra languages only
 * for vendor_a), be in the vocabulary (en_us counts as present with en_uk, its fallback), and be
 * activated on the tenant (en_uk, the default, always is).
 */
function usable(
  language: VocabLanguage,
  vendor: ExternalVendor,
  present: ReadonlySet<string>,
  activated: readonly string[],
): boolean {
  if (!isLanguageAllowedForVendor(language, vendor)) return false
  if (!(present.has(language) || (language === 'en_us' && present.has(DEFAULT_VOCAB_LANGUAGE)))) return false
  return language === DEFAULT_VOCAB_LANGUAGE || activated.includes(language)
}

async function vocabularyStats(
  tenant: TaxonomyTenant,
): Promise<Map<string, { present: Set<string>; skills: number }>> {
  const stats = new Map<string, { present: Set<string>; skills: number }>()
  for (const vendor of VENDORS) stats.set(vendor, { present: new Set(), skills: 0 })
  for (const row of await tenant.database.all<{ vendor: string; language: string }>(
    `SELECT DISTINCT external_vendor AS vendor, language FROM skill_labels WHERE kind = 'name'`,
  )) {
    stats.get(row.vendor)?.present.add(row.language)
  }
  for (const row of await tenant.database.all<{ vendor: string; n: number }>(
    'SELECT external_vendor AS vendor, count(*) AS n FROM skills GROUP BY external_vendor',
  )) {
    const entry = stats.get(row.vendor)
    if (entry) entry.skills = Number(row.n)
  }
  return stats
}

/**
 * `GET /taxonomy/skills/languages`: per vendor, whether it is activated on the tenant, the
 * vocabulary languages the tenant can use with it, and how many skills its vocabulary holds.
 */
export async function vocabularyLanguages(tenant: TaxonomyTenant): Promise<LanguagesResponse> {
  const stats = await vocabularyStats(tenant)
  return {
    vendors: VENDORS.map((vendor) => {
      const entry = stats.get(vendor) as { present: Set<string>; skills: number }
      return {
        external_vendor: vendor,
        activated: tenant.settings.vendors.includes(vendor),
        languages: VOCAB_LANGUAGES.filter((language) =>
          usable(language, vendor, entry.present, tenant.settings.languages),
        ),
        skill_count: entry.skills,
      }
    }),
  }
}

/** The vocabulary languages a tenant can use with one vendor. */
export async function availableLanguages(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
): Promise<VocabLanguage[]> {
  const entry = (await vocabularyStats(tenant)).get(vendor) as { present: Set<string> }
  return VOCAB_LANGUAGES.filter((language) =>
    usable(language, vendor, entry.present, tenant.settings.languages),
  )
}

/**
 * The internal vocabulary language of a request's `vocab_language` (absent: en_uk). Accepts the
 * internal values, `en` and BCP 47 tags (`en-US`, `zh-Hant-TW`, `nb-NO`). A value that names no
 * language, an extra language with a vendor other than vendor_a, or a language the vendor's
 * vocabulary lacks (or the tenant has not activated) is a 422 naming `vocab_language`, the vendor
 * and the valid values. en_uk is always valid: names fall back to it.
 */
export async function resolveVocabLanguage(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  input: string | null | undefined,
): Promise<VocabLanguage> {
  if (input === undefined || input === null || input.trim() === '') return DEFAULT_VOCAB_LANGUAGE
  const language = toVocabLanguage(input)
  if (language === DEFAULT_VOCAB_LANGUAGE) return language
  const available = await availableLanguages(tenant, vendor)
  if (language !== undefined && available.includes(language)) return language
  const values = [...new Set(['en', DEFAULT_VOCAB_LANGUAGE, ...available])]
  const valid = `valid values for ${vendor} on tenant ${tenant.settings.name}: ${values.join(', ')} (or a BCP 47 tag of one of them)`
  if (language === undefined) {
    throw errors.unprocessable(`vocab_language: '${input}' is not a vocabulary language; ${valid}`)
  }
  const shown = language === input ? `'${input}'` : `'${input}' (${language})`
  if (!isLanguageAllowedForVendor(language, vendor)) {
    throw errors.unprocessable(
      `vocab_language: ${shown} is available only with external_vendor=vendor_a; ${valid}`,
    )
  }
  throw errors.unprocessable(
    `vocab_language: ${shown} is not a language of the ${vendor} vocabulary on tenant ${tenant.settings.name}${tenant.settings.languages.includes(language) ? '' : ' (nor activated on it)'}; ${valid}`,
  )
}

/**
 * One skill's display name in `language` (with the fallbacks of `nameFallbacks`), or undefined for
 * an unknown skill. For many lookups load a `SkillNames` once instead.
 */
export async function displayName(
  tenant: TaxonomyTenant,
  skillId: string,
  vendor: ExternalVendor,
  language: VocabLanguage = DEFAULT_VOCAB_LANGUAGE,
): Promise<string | undefined> {
  const rows = await tenant.database.all<{ language: string; label: string }>(
    `SELECT language, label FROM skill_labels WHERE external_vendor = $1 AND skill_id = $2 AND kind = 'name'`,
    [vendor, skillId],
  )
  if (rows.length === 0) return undefined
  const names = new Map(rows.map((row) => [row.language, row.label]))
  for (const candidate of nameFallbacks(language)) {
    const name = names.get(candidate)
    if (name !== undefined) return name
  }
  for (const candidate of VOCAB_LANGUAGES) {
    const name = names.get(candidate)
    if (name !== undefined) return name
  }
  return rows[0]?.label
}
