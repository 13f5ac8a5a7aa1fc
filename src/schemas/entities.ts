import {
  ExternalId,
  FreeText,
  InternationalEmail,
  IsoDate,
  Languages,
  LocationOrAddress,
  Name,
} from './common.js'
import { CustomProperties } from './custom-properties.js'
import { LIMITS } from './limits.js'
import { z } from './zod.js'

const Ids = z.array(ExternalId).max(LIMITS.listItems.max)

/** External Company (2.5). */
export const Company = z.strictObject({
  external_id: ExternalId,
  name: Name,
  vat: z
    .string()
    .min(LIMITS.vat.min, 'must not be empty')
    .max(LIMITS.vat.max, 'must be at most 15 characters'),
  location: LocationOrAddress.optional(),
  languages: Languages.optional(),
  custom_properties: CustomProperties.optional(),
})
export type Company = z.infer<typeof Company>

/** Organisational Unit: at most one parent (2.8); no parent makes it a root. */
export const OrganisationalUnit = z.strictObject({
  external_id: ExternalId,
  name: Name,
  parent_id: ExternalId.nullish(),
  custom_properties: CustomProperties.optional(),
})
export type OrganisationalUnit = z.infer<typeof OrganisationalUnit>

/**
 * Employee: where they sit, what they do now, where they live, which languages they speak,
 * which functions they want next (Job or Job Family external_ids), and custom properties.
 */
export const Employee = z.strictObject({
  external_id: ExternalId,
  first_name: z.string().max(255).optional(),
  last_name: z.string().max(255).optional(),
  email: InternationalEmail.optional(),
  organisational_unit_id: ExternalId.nullish(),
  job_id: ExternalId.nullish(),
  hire_date: IsoDate.optional(),
  location: LocationOrAddress.optional(),
  languages: Languages.optional(),
  desired_functions: Ids.optional(),
  custom_properties: CustomProperties.optional(),
})
export type Employee = z.infer<typeof Employee>

/** A skill a Job Family governs: part of its validated profile (2.11). */
export const GovernedSkill = z.strictObject({
  skill_id: ExternalId,
  proficiency_level: z.number().int().min(1).max(5).optional(),
  critical: z.boolean().optional(),
})
export type GovernedSkill = z.infer<typeof GovernedSkill>

/** Job Family: a group of related Jobs, with the skills it governs. */
export const JobFamily = z.strictObject({
  external_id: ExternalId,
  name: Name,
  description: FreeText.optional(),
  skills: z.array(GovernedSkill).max(500).optional(),
  custom_properties: CustomProperties.optional(),
})
export type JobFamily = z.infer<typeof JobFamily>

/** Job: a role of the job architecture; its profile is inferred from title, description and family. */
export const Job = z.strictObject({
  external_id: ExternalId,
  title: Name,
  description: FreeText.optional(),
  job_family_id: ExternalId.nullish(),
  skills: z.array(GovernedSkill).max(500).optional(),
  custom_properties: CustomProperties.optional(),
})
export type Job = z.infer<typeof Job>

export const VACANCY_STATUSES = ['active', 'on_hold', 'filled', 'closed'] as const
export const VacancyStatus = z.enum(VACANCY_STATUSES)

/** Vacancy: an opening; only `active` ones are matched (4.11). */
export const Vacancy = z.strictObject({
  external_id: ExternalId,
  title: Name,
  description: FreeText.optional(),
  status: VacancyStatus.default('active'),
  job_id: ExternalId.nullish(),
  company_id: ExternalId.nullish(),
  organisational_unit_id: ExternalId.nullish(),
  location: LocationOrAddress.optional(),
  languages: Languages.optional(),
  published_date: IsoDate.optional(),
  custom_properties: CustomProperties.optional(),
})
export type Vacancy = z.infer<typeof Vacancy>

/** Course: a learning offer; its profile is inferred from title and description. */
export const Course = z.strictObject({
  external_id: ExternalId,
  title: Name,
  description: FreeText.optional(),
  provider: z.string().max(255).optional(),
  language: z
    .string()
    .regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code')
    .optional(),
  duration_hours: z.number().min(0).max(10_000).optional(),
  custom_properties: CustomProperties.optional(),
})
export type Course = z.infer<typeof Course>
