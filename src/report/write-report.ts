import { join } from 'node:path'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { ensureFolder, writeFileAtomic } from '../util/atomic-file.js'
import { gatherReport } from './gather-report.js'
import { renderHtml } from './render-html.js'
import { renderWorkbook } from './render-workbook.js'
import type { ReportData } from './report-model.js'
import { environmentLocale, type ReportOptions } from './report-options.js'

export const REPORT_HTML = 'report.html'
export const REPORT_XLSX = 'report.xlsx'

export interface WrittenReport {
  tenant: string
  html: string
  xlsx: string
  html_bytes: number
  xlsx_bytes: number
  /** Per section: `chart`, or the notice that stands in its place. */
  sections: Record<string, string>
  seconds: number
}

/**
 * `skillhouse report`: gathers the report from the tenant and writes `report.html` and
 * `report.xlsx` into the `out` folder (made when missing; a file there is a 400 naming it), each
 * whole or not at all.
 */
export async function writeReport(
  tenant: OpenTenant,
  options: ReportOptions & { onSection?: (section: string) => void },
): Promise<WrittenReport> {
  const started = performance.now()
  ensureFolder(options.out, 'out')
  const data = await gatherReport(tenant, { ...options, locale: options.locale ?? environmentLocale() })
  options.onSection?.('writing report.html and report.xlsx')
  const html = Buffer.from(await renderHtml(data))
  const workbook = await renderWorkbook(data)
  const htmlPath = join(options.out, REPORT_HTML)
  const xlsxPath = join(options.out, REPORT_XLSX)
  writeFileAtomic(htmlPath, html)
  writeFileAtomic(xlsxPath, workbook)
  return {
    tenant: data.tenant,
    html: htmlPath,
    xlsx: xlsxPath,
    html_bytes: html.length,
    xlsx_bytes: workbook.length,
    sections: sectionStates(data),
    seconds: Math.round(performance.now() - started) / 1000,
  }
}

function sectionStates(data: ReportData): Record<string, string> {
  const state = (section: { notice?: string | undefined }) => section.notice ?? 'chart'
  return {
    overview:
      data.overview.employees_in_units > 0 || data.overview.skills_by_level.length > 0
        ? 'chart'
        : 'no employee in an organisational unit',
    organisation: state(data.organisation),
    supply_and_demand: state(data.supply),
    internal_mobility: state(data.mobility),
    bench_strength: state(data.bench),
    data_quality: data.quality.event_types.length > 0 ? 'chart' : 'no skill events',
  }
}
