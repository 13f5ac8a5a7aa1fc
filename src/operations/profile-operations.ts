import { type JOB_FAMILY_INCLUDES, readJobFamilyProfile } from '../profiles/job-family-profile.js'
import { type ProfileOwner, readSkillProfile, type SkillProfileResponse } from '../profiles/read-profile.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse profile employee|job|course ID`: a skill profile as the API returns it (4.13). */
export const readProfile = tenantOperation(
  'profile.read',
  false,
  async (
    tenant,
    params: { owner: ProfileOwner; id: string; external_vendor: string; vocab_language: string },
  ): Promise<SkillProfileResponse> => {
    // Only vendors activated on the tenant (spec 2.1), as the API answers (403).
    const vendor = requireVendor(tenant, params.external_vendor)
    const language = await resolveVocabLanguage(tenant, vendor, params.vocab_language)
    return readSkillProfile(tenant, params.owner, params.id, {
      external_vendor: vendor,
      vocab_language: language,
    })
  },
)

/** `skillhouse profile job-family ID` (4.12). */
export const readFamilyProfile = tenantOperation(
  'profile.job_family',
  false,
  (
    tenant,
    params: {
      id: string
      domain_namespace: 'vendor_default' | 'taxonomy' | 'adaptive'
      format: 'list' | 'hierarchy'
      include: (typeof JOB_FAMILY_INCLUDES)[number][]
      vocab_language: string
      external_vendor?: ExternalVendor
    },
  ) => {
    const { id, ...query } = params
    return readJobFamilyProfile(tenant, id, query)
  },
)
