import { ExternalId, FreeText, Name, pageOf, Timestamp } from './common.js'
import { CustomProperties } from './custom-properties.js'
import { SkillAliases, SkillLabels, SkillResponse, SkillType, TaxonomyChange } from './taxonomy.js'
import { ExternalVendor } from './vendors.js'
import { z } from './zod.js'

/**
 * Schemas of the taxonomy operations (create/get/update/delete of Domains, Subdomains, Skill
 * Clusters and custom Skills) and of vocabulary imports: what the CLI and the server accept and
 * answer beyond the spec's own records in taxonomy.ts.
 */

/** Optional attributes of a taxonomy GET (4.7); the query parameter is named `include` (docs/api.md). */
export const TAXONOMY_INCLUDES = ['custom_properties'] as const
export const TaxonomyInclude = z.array(z.enum(TAXONOMY_INCLUDES)).default([])
export type TaxonomyInclude = z.infer<typeof TaxonomyInclude>

/** A Domain as GET answers it: the spec's fields plus `last_updated`, like a Subdomain (2.3). */
export const DomainResponse = z.object({
  external_id: ExternalId,
  domain_name: Name,
  last_updated: Timestamp,
  custom_properties: CustomProperties.optional(),
})
export type DomainResponse = z.infer<typeof DomainResponse>

/** A Skill Cluster as GET answers it. */
export const SkillClusterResponse = z.object({
  external_id: ExternalId,
  subdomain_id: ExternalId,
  skill_cluster_name: Name,
  last_updated: Timestamp,
  custom_properties: CustomProperties.optional(),
})
export type SkillClusterResponse = z.infer<typeof SkillClusterResponse>

/** `GET /taxonomy/skills/{skill_id}` with `include=custom_properties`. */
export const SkillDetailResponse = SkillResponse.extend({ custom_properties: CustomProperties.optional() })
export type SkillDetailResponse = z.infer<typeof SkillDetailResponse>

/*
 * PATCH bodies. Written out rather than derived with `.partial()`: zod 4 applies a field's
 * default inside `.optional()`, so a derived patch would reset `skill_type` whenever it is omitted.
 * A `null` custom property value removes that property.
 */
export const DomainPatch = z.strictObject({
  domain_name: Name.optional(),
  custom_properties: CustomProperties.optional(),
})
export type DomainPatch = z.infer<typeof DomainPatch>

export const SubdomainPatch = z.strictObject({
  domain_id: ExternalId.optional(),
  subdomain_name: Name.optional(),
  custom_properties: CustomProperties.optional(),
})
export type SubdomainPatch = z.infer<typeof SubdomainPatch>

export const SkillClusterPatch = z.strictObject({
  subdomain_id: ExternalId.optional(),
  skill_cluster_name: Name.optional(),
  custom_properties: CustomProperties.optional(),
})
export type SkillClusterPatch = z.infer<typeof SkillClusterPatch>

/** PATCH of a custom Skill: `names`/`aliases` replace the languages they name; null clears a field. */
export const SkillPatch = z.strictObject({
  skill_name: Name.optional(),
  skill_cluster_id: ExternalId.nullable().optional(),
  skill_type: SkillType.optional(),
  description: FreeText.nullable().optional(),
  names: SkillLabels.optional(),
  aliases: SkillAliases.optional(),
  custom_properties: CustomProperties.optional(),
})
export type SkillPatch = z.infer<typeof SkillPatch>

/** A page of `POST /taxonomy/changes`. */
export const TaxonomyChangesPage = pageOf(TaxonomyChange)
export type TaxonomyChangesPage = z.infer<typeof TaxonomyChangesPage>

/** Formats `taxonomy import` reads. */
export const VOCABULARY_FORMATS = ['skillhouse', 'esco'] as const
export const VocabularyFormat = z.enum(VOCABULARY_FORMATS)
export type VocabularyFormat = z.infer<typeof VocabularyFormat>

/** Options of `taxonomy import` (the command maps its flags onto this). */
export const TaxonomyImportOptions = z.strictObject({
  paths: z.array(z.string().min(1)).min(1, 'name at least one file or folder'),
  format: VocabularyFormat.optional(),
  external_vendor: ExternalVendor.optional(),
  /** skillhouse format only: custom entities absent from the files are deleted. */
  replace: z.boolean().default(false),
})
export type TaxonomyImportOptions = z.input<typeof TaxonomyImportOptions>

/** What a vocabulary import did; counts per level, and the change it recorded (null when nothing changed). */
export const LevelCounts = z.object({
  created: z.number().int().min(0),
  updated: z.number().int().min(0),
  deleted: z.number().int().min(0),
})
export type LevelCounts = z.infer<typeof LevelCounts>

export const TaxonomyImportSummary = z.object({
  format: VocabularyFormat,
  external_vendor: ExternalVendor,
  custom: z.boolean(),
  files: z.array(z.string()),
  skipped: z.array(z.object({ path: z.string(), reason: z.string() })),
  languages: z.array(z.string()),
  skills: z.number().int().min(0),
  domains: LevelCounts,
  subdomains: LevelCounts,
  skill_clusters: LevelCounts,
  skill_changes: LevelCounts,
  change_id: ExternalId.nullable(),
  events: z.number().int().min(0),
  notes: z.array(z.string()),
  seconds: z.number().min(0),
})
export type TaxonomyImportSummary = z.infer<typeof TaxonomyImportSummary>
