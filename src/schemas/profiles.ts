import { ExternalId, IsoDate, ProficiencyLevel, Share, Timestamp } from './common.js'
import { ExternalVendor } from './vendors.js'
import { z } from './zod.js'

/**
 * Skill Profiles as the API answers them: the profile of an Employee, Job or Course (the 4.13
 * endpoints, whose shape the spec leaves open) and the Job Family Skill Profile of 4.12/2.11 in
 * its list and hierarchy formats.
 */

export const VALIDATION_STATES = ['validated', 'suggested'] as const
export const ValidationState = z.enum(VALIDATION_STATES)

const SkillTypes = z.array(z.object({ skill_type: z.string() }))

/** One skill of an Employee, Job or Course profile, with the events (or records) it was found in. */
export const ProfileSkillEntry = z.object({
  skill_id: z.string(),
  /** The skill's name in the requested vocabulary language. */
  skill: z.string(),
  skill_types: SkillTypes,
  domain_name: z.string().nullable(),
  validation_state: ValidationState,
  proficiency_level: ProficiencyLevel.nullable(),
  proficiency_float: Share.nullable(),
  critical: z.boolean().nullable(),
  first_seen: IsoDate.nullable(),
  last_seen: IsoDate.nullable(),
  evidence: z.array(
    z.object({
      external_id: z.string(),
      /** A skill event type (2.4), or the record the skill was found in (`job_profile_data`, …). */
      event_type: z.string(),
    }),
  ),
})

/**
 * The Skill Profile of an Employee, Job or Course. `version` counts the derivations that changed
 * it (0 and no skills: not derived yet); `computed_at` is when the current version was derived.
 */
export const SkillProfileResponse = z.object({
  external_id: ExternalId,
  external_vendor: ExternalVendor,
  version: z.number().int().min(0),
  computed_at: Timestamp.nullable(),
  skills: z.array(ProfileSkillEntry),
})
export type SkillProfileResponse = z.infer<typeof SkillProfileResponse>

/** The source data kinds of a Job Family profile skill (2.11). */
export const SOURCE_DATA_TYPES = ['job_family_profile_data', 'job_profile_data'] as const

/** An entry of `skills` of the Job Family Skill Profile (2.11), with the include options' fields. */
export const JobFamilySkillEntry = z.object({
  skill: z.string(),
  skill_id: z.string(),
  skill_types: SkillTypes,
  domain_name: z.string().nullable(),
  validation_state: ValidationState,
  source_data: z.array(z.object({ external_id: z.string(), source_data_type: z.enum(SOURCE_DATA_TYPES) })),
  governed_proficiency_level: ProficiencyLevel.nullable().optional(),
  inferred_proficiency_level: ProficiencyLevel.nullable().optional(),
  governed_proficiency_float: Share.nullable().optional(),
  inferred_proficiency_float: Share.nullable().optional(),
  governed_critical: z.boolean().nullable().optional(),
  inferred_critical: z.boolean().nullable().optional(),
  /** The skill's custom properties (`include=properties`). */
  properties: z.record(z.string(), z.unknown()).optional(),
})
export type JobFamilySkillEntry = z.infer<typeof JobFamilySkillEntry>

/** The list format of the Job Family Skill Profile (2.11). */
export const JobFamilyProfileList = z.object({
  external_id: ExternalId,
  skills: z.array(JobFamilySkillEntry),
})
export type JobFamilyProfileList = z.infer<typeof JobFamilyProfileList>

/** The hierarchy format (not shown in the spec): the same skills grouped by domain, subdomain and cluster. */
export const JobFamilyProfileHierarchy = z.object({
  external_id: ExternalId,
  domains: z.array(
    z.object({
      domain_id: z.string().nullable(),
      domain_name: z.string().nullable(),
      subdomains: z.array(
        z.object({
          subdomain_id: z.string().nullable(),
          subdomain_name: z.string().nullable(),
          skill_clusters: z.array(
            z.object({
              skill_cluster_id: z.string().nullable(),
              skill_cluster_name: z.string().nullable(),
              skills: z.array(JobFamilySkillEntry),
            }),
          ),
        }),
      ),
    }),
  ),
})
export type JobFamilyProfileHierarchy = z.infer<typeof JobFamilyProfileHierarchy>

/** What 4.12 answers: the list format (`format=list`, the default) or the hierarchy. */
export const JobFamilyProfileResponse = z.union([JobFamilyProfileList, JobFamilyProfileHierarchy])
