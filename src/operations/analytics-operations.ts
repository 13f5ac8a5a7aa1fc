import {
  getJobChangePreview,
  type JobChangePreview,
  previewJobChange,
} from '../analytics/job-change-preview.js'
import { exportOrganisation } from '../analytics/org-export.js'
import { skillGap } from '../analytics/skill-gap.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse gap` (4.5). */
export const gapOfEmployee = tenantOperation(
  'gap',
  false,
  (tenant, params: { employee: string; vacancy: string; vocab_language: string; external_vendor: string }) =>
    skillGap(tenant, params.employee, params.vacancy, {
      vocab_language: params.vocab_language,
      external_vendor: params.external_vendor,
    }),
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
