import {
  getJobChangePreview,
  type JobChangePreview,
  previewJobChange,
} from '../analytics/job-change-preview.js'
import { exportOrganisation } from '../analytics/org-export.js'
import { type SkillGapDetail, skillGapDetail } from '../analytics/skill-gap.js'
import type { SkillGapEntry } from '../schemas/analytics.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse gap` (4.5): the API's answer, and each skill's levels for a terminal. */
export const gapOfEmployee = tenantOperation(
  'gap',
  false,
  async (
    tenant,
    params: { employee: string; vacancy: string; vocab_language: string; external_vendor: string },
  ): Promise<{ gap: SkillGapEntry[]; detail: SkillGapDetail[] }> => {
    const detail = await skillGapDetail(tenant, params.employee, params.vacancy, {
      vocab_language: params.vocab_language,
      external_vendor: params.external_vendor,
    })
    return {
      gap: detail.map((skill) => ({ skill_name: skill.skill_name, skill_id: skill.skill_id })),
      detail,
    }
  },
)

/** `skillhouse org export` (4.6). */
export const exportOrgStructure = tenantOperation(
  'org.export',
  false,
  (
    tenant,
    params: { skill_id?: string | undefined; external_vendor?: string | undefined; include: string[] },
  ) => exportOrganisation(tenant, params),
)

/** `skillhouse job preview` (4.4): makes a preview and reads it back. */
export const previewJobDescription = tenantOperation(
  'job.preview',
  true,
  async (tenant, params: { request: unknown }): Promise<JobChangePreview> => {
    const { change_id } = await previewJobChange(tenant, params.request)
    return getJobChangePreview(tenant, change_id)
  },
)

/** `skillhouse job show-preview` (4.4). */
export const showJobPreview = tenantOperation(
  'job.show_preview',
  false,
  (tenant, params: { change_id: string }) => getJobChangePreview(tenant, params.change_id),
)
