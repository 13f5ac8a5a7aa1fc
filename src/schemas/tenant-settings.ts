import { ExternalVendor } from './vendors.js'
import { VOCAB_LANGUAGES } from './vocabulary-languages.js'
import { z } from './zod.js'

/** Model configurations, oldest first; ticket, merge_request and dynamic need MC_2025_Q1_V1 or later. */
export const MODEL_CONFIGURATIONS = [
  'MC_2024_Q3_V1',
  'MC_2024_Q4_V1',
  'MC_2025_Q1_V1',
  'MC_2025_Q3_V1',
] as const
export const ModelConfiguration = z.enum(MODEL_CONFIGURATIONS)
export type ModelConfiguration = z.infer<typeof ModelConfiguration>
export const DEFAULT_MODEL_CONFIGURATION: ModelConfiguration = 'MC_2025_Q1_V1'
export const MODERN_MODEL_CONFIGURATION: ModelConfiguration = 'MC_2025_Q1_V1'

export function supportsModernEvents(configuration: ModelConfiguration): boolean {
  return (
    MODEL_CONFIGURATIONS.indexOf(configuration) >= MODEL_CONFIGURATIONS.indexOf(MODERN_MODEL_CONFIGURATION)
  )
}

export const REGIONS = ['eu', 'us', 'uk', 'ca', 'au', 'ap'] as const
export const Region = z.enum(REGIONS)

export const TenantName = z
  .string()
  .min(1)
  .max(63)
  .regex(
    /^[a-z0-9][a-z0-9-]*$/,
    'must be lower-case letters, digits and hyphens, starting with a letter or digit',
  )

/** Settings of a tenant (kept in tenants.json and mirrored in its database). */
export const TenantSettings = z.strictObject({
  name: TenantName,
  region: Region,
  model_configuration: ModelConfiguration.default(DEFAULT_MODEL_CONFIGURATION),
  vendors: z.array(ExternalVendor).default(['vendor_default']),
  languages: z.array(z.enum(VOCAB_LANGUAGES)).default(['en_uk', 'en_us', 'de', 'fr', 'nl']),
  features: z
    .strictObject({
      /** Matching with skill properties (proficiency); enables include_overqualified. */
      proficiency_matching: z.boolean().default(false),
      /** Criticality of skills in matching; enables min_critical_skills_match_ratio. */
      use_criticalities: z.boolean().default(false),
    })
    .default({ proficiency_matching: false, use_criticalities: false }),
  created_at: z.string(),
})
export type TenantSettings = z.infer<typeof TenantSettings>
