import type { ReportOptions } from '../report/report-options.js'
import { type WrittenReport, writeReport } from '../report/write-report.js'
import { tenantOperation } from './tenant-operation.js'

/**
 * `skillhouse report`: report.html and report.xlsx in `out` (absolute). The locale is the
 * command's (its environment's when no --locale), not the process's that runs the work.
 */
export const writeTenantReport = tenantOperation(
  'report',
  false,
  (tenant, params: ReportOptions & { locale: string }, { progress }): Promise<WrittenReport> =>
    writeReport(tenant, { ...params, onSection: (section) => progress.stage(`report: ${section}`) }),
)
