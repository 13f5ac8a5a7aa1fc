import { ExternalId, FreeText, Name, Timestamp } from './common.js'
import { CustomProperties } from './custom-properties.js'
import { ExternalVendor } from './vendors.js'
import { VOCAB_LANGUAGES } from './vocabulary-languages.js'
import { z } from './zod.js'

/** Domain (2.2). */
export const Domain = z.strictObject({
  external_id: ExternalId,
  domain_name: Name,
  custom_properties: CustomProperties.optional(),
})
export type Domain = z.infer<typeof Domain>

/** Subdomain (2.3). `last_updated` is set by the service. */
export const Subdomain = z.strictObject({
  external_id: ExternalId,
  domain_id: ExternalId,
  subdomain_name: Name,
  custom_properties: CustomProperties.optional(),
})
export type Subdomain = z.infer<typeof Subdomain>

export const SubdomainResponse = z.object({
  external_id: ExternalId,
  domain_id: ExternalId,
  subdomain_name: Name,
  last_updated: Timestamp,
  custom_properties: CustomProperties.optional(),
})
export type SubdomainResponse = z.infer<typeof SubdomainResponse>

/** Skill Cluster: a group of closely related skills within a subdomain. */
export const SkillCluster = z.strictObject({
  external_id: ExternalId,
  subdomain_id: ExternalId,
  skill_cluster_name: Name,
  custom_properties: CustomProperties.optional(),
})
export type SkillCluster = z.infer<typeof SkillCluster>

export const SKILL_TYPES = [
  'hard_skill',
  'soft_skill',
  'language',
  'tool',
  'knowledge',
  'certification',
] as const
export const SkillType = z.enum(SKILL_TYPES)
export type SkillType = z.infer<typeof SkillType>

/** Display names and aliases of a skill, per vocabulary language. */
export const SkillLabels = z.partialRecord(z.enum(VOCAB_LANGUAGES), z.string().min(1).max(255))
export const SkillAliases = z.partialRecord(
  z.enum(VOCAB_LANGUAGES),
  z.array(z.string().min(1).max(255)).max(200),
)

/** Skill: a vocabulary skill or a tenant's custom skill. */
export const Skill = z.strictObject({
  external_id: ExternalId,
  skill_name: Name,
  skill_cluster_id: ExternalId.optional(),
  skill_type: SkillType.default('hard_skill'),
  description: FreeText.optional(),
  names: SkillLabels.optional(),
  aliases: SkillAliases.optional(),
  custom_properties: CustomProperties.optional(),
})
export type Skill = z.infer<typeof Skill>

/** What `GET /taxonomy/skills/{skill_id}` answers. */
export const SkillResponse = z.object({
  external_id: ExternalId,
  external_vendor: ExternalVendor,
  skill_name: z.string(),
  skill_type: SkillType,
  skill_cluster_id: ExternalId.nullable(),
  subdomain_id: ExternalId.nullable(),
  domain_id: ExternalId.nullable(),
  description: z.string().nullable(),
  aliases: z.array(z.string()),
  custom: z.boolean(),
  last_updated: Timestamp,
})
export type SkillResponse = z.infer<typeof SkillResponse>

/** Collection metric (2.10), answer of the deprecated Skill Cluster count (4.9). */
export const CollectionMetric = z.object({
  entity_type: z.literal('SkillCluster'),
  entity_id: ExternalId,
  metric_name: z.literal('count'),
  metric_value: z.number().int().min(0),
  last_update: Timestamp,
})
export type CollectionMetric = z.infer<typeof CollectionMetric>

/** `GET /taxonomy/skills/languages`: per vendor, the languages the tenant can use. */
export const VocabularyLanguagesResponse = z.object({
  vendors: z.array(
    z.object({
      external_vendor: ExternalVendor,
      activated: z.boolean(),
      languages: z.array(z.enum(VOCAB_LANGUAGES)),
      skill_count: z.number().int().min(0),
    }),
  ),
})

/** Operation types recorded for taxonomy changes (the spec leaves the list open). */
export const TAXONOMY_OPERATION_TYPES = [
  'domain_created',
  'domain_updated',
  'domain_deleted',
  'subdomain_created',
  'subdomain_updated',
  'subdomain_deleted',
  'skill_cluster_created',
  'skill_cluster_updated',
  'skill_cluster_deleted',
  'skill_created',
  'skill_updated',
  'skill_deleted',
  'vocabulary_imported',
] as const
export const TaxonomyOperationType = z.enum(TAXONOMY_OPERATION_TYPES)
export type TaxonomyOperationType = z.infer<typeof TaxonomyOperationType>

/** Body of `POST /taxonomy/changes`: filters over the recorded changes. */
export const TaxonomyChangesRequest = z.strictObject({
  operation_type: TaxonomyOperationType.optional(),
  external_id: ExternalId.optional(),
  starting_after: ExternalId.optional(),
  limit: z.number().int().min(1).max(1000).default(100),
})

export const TaxonomyChange = z.object({
  external_id: ExternalId,
  operation_type: TaxonomyOperationType,
  entity_external_id: ExternalId.nullable(),
  external_vendor: ExternalVendor,
  details: z.record(z.string(), z.unknown()),
  time: Timestamp,
})
export type TaxonomyChange = z.infer<typeof TaxonomyChange>
