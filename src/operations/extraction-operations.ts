import { extractorFor } from '../extraction/extractor-cache.js'
import type { ExtractedSkill, ExtractOptions } from '../extraction/skill-extractor.js'
import { tenantOperation } from './tenant-operation.js'

/** A skill found in a text, as `skillhouse extract --json` prints it. */
export interface FoundSkill {
  skill_id: string
  skill_name: string
  score: number
  span: ExtractedSkill['span']
}

/** `skillhouse extract --tenant T`: the skills of each text, with the tenant's vocabulary of `external_vendor`. */
export const extractWithTenantVocabulary = tenantOperation(
  'extract',
  false,
  async (
    tenant,
    params: { texts: string[]; external_vendor: string; options: ExtractOptions },
  ): Promise<FoundSkill[][]> => {
    const extractor = await extractorFor(tenant.database, params.external_vendor)
    return params.texts.map((text) => extractor.extract(text, params.options).skills.map(foundSkill))
  },
)

export const foundSkill = (skill: ExtractedSkill): FoundSkill => ({
  skill_id: skill.skill_id,
  skill_name: skill.skill_name,
  score: skill.score,
  span: skill.span,
})
