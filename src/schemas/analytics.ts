import { ExternalId, Timestamp } from './common.js'
import { ExternalVendor } from './vendors.js'
import { z } from './zod.js'

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

/** Languages a generated job description is written in; skill names come from the vocabulary in that language. */
export const OUTPUT_LANGUAGES = ['en', 'nl', 'fr', 'de'] as const
export type OutputLanguage = (typeof OUTPUT_LANGUAGES)[number]

/** Sections a job description can have, in the order used when a request names none. */
export const SECTION_NAMES = [
  'summary',
  'responsibilities',
  'requirements',
  'nice_to_have',
  'about_the_team',
] as const
export type SectionName = (typeof SECTION_NAMES)[number]

/** One section of a generated job description. */
export const JobDescriptionSection = z.object({
  section: z.enum(SECTION_NAMES),
  heading: z.string(),
  paragraphs: z.array(z.string()),
  bullets: z.array(z.string()),
})
export type JobDescriptionSection = z.infer<typeof JobDescriptionSection>

/** A stored Job change preview, as `GET /job_architecture/changes/{change_id}` answers it. */
export const JobChangePreview = z.object({
  change_id: z.string().min(1),
  change_type: z.literal('add_job_description'),
  job_id: ExternalId,
  status: z.literal('previewed'),
  created_at: Timestamp,
  /** Language the description is written in; skill names come from the vocabulary in it. */
  language: z.enum(OUTPUT_LANGUAGES),
  title: z.string(),
  /** The generated job description as Markdown. */
  job_description: z.string(),
  sections: z.array(JobDescriptionSection),
  /** The request's context as it was applied: sections resolved, defaults filled in. */
  context: z.object({
    instructions: z.string().nullable(),
    reference_job_ids: z.array(ExternalId),
    sections_to_include: z.array(z.enum(SECTION_NAMES)),
    use_internal_job_data: z.boolean(),
  }),
  /** What of `instructions` changed the text (language, length), quoting the words read. */
  instructions_applied: z.array(z.string()),
})
export type JobChangePreview = z.infer<typeof JobChangePreview>

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
