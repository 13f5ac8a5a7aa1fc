import { ExternalId, Name } from './common.js'
import { SkillType } from './taxonomy.js'
import { DEFAULT_VOCAB_LANGUAGES, VOCAB_LANGUAGES } from './vocabulary-languages.js'
import { z } from './zod.js'

/**
 * The skillhouse vocabulary format (JSON): one file per Domain, holding its Subdomains, their
 * Skill Clusters and their Skills. The embedded default vocabulary (`fixtures/vocabulary/default/`)
 * is written in it, and `taxonomy import --format skillhouse` reads it.
 */
const Label = z.string().trim().min(1).max(255)
const Language = z.enum(VOCAB_LANGUAGES)

export const VocabularySkill = z.strictObject({
  external_id: ExternalId,
  skill_type: SkillType,
  /** Display name per language; `en_us` only where US spelling differs (falls back to `en_uk`). */
  names: z.partialRecord(Language, Label),
  /** Aliases, abbreviations and spelling variants people write, per language. */
  aliases: z.partialRecord(Language, z.array(Label).max(100)).optional(),
  /** Reasons why an alias may be claimed by more than one skill, keyed by the alias. */
  shared_aliases: z.record(z.string(), z.string().min(10)).optional(),
  description: z.string().max(2000).optional(),
})
export type VocabularySkill = z.infer<typeof VocabularySkill>

export const VocabularyCluster = z.strictObject({
  external_id: ExternalId,
  skill_cluster_name: Name,
  skills: z.array(VocabularySkill).min(1),
})

export const VocabularySubdomain = z.strictObject({
  external_id: ExternalId,
  subdomain_name: Name,
  skill_clusters: z.array(VocabularyCluster).min(1),
})

export const VocabularyDomainFile = z.strictObject({
  external_id: ExternalId,
  domain_name: Name,
  subdomains: z.array(VocabularySubdomain).min(1),
})
export type VocabularyDomainFile = z.infer<typeof VocabularyDomainFile>

/** Languages every skill of the default vocabulary must name (en_us falls back to en_uk). */
export const REQUIRED_NAME_LANGUAGES = DEFAULT_VOCAB_LANGUAGES.filter((language) => language !== 'en_us')
