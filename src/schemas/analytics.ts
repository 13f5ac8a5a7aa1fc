import { z } from 'zod'
import { ExternalId } from './common.js'
import { ExternalVendor } from './vendors.js'

/** Job change preview request (2.6). */
export const JobChangePreviewRequest = z.strictObject({
  change_type: z.literal('add_job_description'),
  job_id: ExternalId,
  context: z.strictObject({
    instructions: z.string().max(10_000).optional(),
    reference_job_ids: z.array(ExternalId).max(50).optional(),
    sections_to_include: z.array(z.string().min(1).max(100)).max(20).optional(),
    use_internal_job_data: z.boolean().optional(),
  }),
})
export type JobChangePreviewRequest = z.infer<typeof JobChangePreviewRequest>

export const JobChangePreviewResponse = z.object({ change_id: z.string().min(1) })

/** Skill gap entry (2.7); 4.5 answers an array of them. */
export const SkillGapEntry = z.object({
  skill_name: z.string().min(1),
  skill_id: ExternalId,
})
export const SkillGapResponse = z.array(SkillGapEntry)
export type SkillGapEntry = z.infer<typeof SkillGapEntry>

/** Organisational Unit node (2.8), recursive. */
export interface OrgNode {
  external_id: string
  name: string
  total_nr_of_employees: number
  low_data_availability?: number | undefined
  children: OrgNode[]
}
export const OrgNode: z.ZodType<OrgNode> = z.lazy(() =>
  z.object({
    external_id: ExternalId,
    name: z.string(),
    total_nr_of_employees: z.number().int().min(0),
    low_data_availability: z.number().int().min(0).optional(),
    children: z.array(OrgNode),
  }),
)
export const OrgExportResponse = z.object({ organisational_structure: z.array(OrgNode) })

export const OrgExportQuery = z.object({
  skill_id: z.string().min(1).max(100).optional(),
  external_vendor: ExternalVendor.default('vendor_default'),
  include: z.array(z.literal('low_data_availability_flag')).default([]),
})
