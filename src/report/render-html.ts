import {
  benchSection,
  dataQualitySection,
  mobilitySection,
  organisationSection,
  overviewSection,
  type RenderedSection,
  sectionOf,
  supplyDemandSection,
} from './html-sections.js'
import { escapeHtml } from './html-table.js'
import { LocaleFormat } from './number-format.js'
import type { ReportData } from './report-model.js'

/** The sections in page order: id (the anchor and `data-section`) and title. */
export const REPORT_SECTIONS = [
  ['overview', 'Overview'],
  ['organisation', 'Organisation heatmap'],
  ['supply-demand', 'Supply and demand'],
  ['mobility', 'Internal mobility'],
  ['bench', 'Bench strength'],
  ['data-quality', 'Data quality'],
] as const

type SectionId = (typeof REPORT_SECTIONS)[number][0]

/**
 * The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no font
 * or image fetched (a Content-Security-Policy forbids any), so that it opens from a USB stick and
 * prints as it shows. Text from the data is escaped.
 */
export async function renderHtml(data: ReportData): Promise<string> {
  const format = new LocaleFormat(data.locale)
  const sections: Record<SectionId, RenderedSection> = {
    overview: await overviewSection(data.overview, data.as_of, format),
    organisation: await sectionOf(data.organisation, (heatmap) => organisationSection(heatmap, format)),
    'supply-demand': await sectionOf(data.supply, (supply) => supplyDemandSection(supply, format)),
    mobility: await sectionOf(data.mobility, (mobility) => mobilitySection(mobility, format)),
    bench: await sectionOf(data.bench, (bench) => benchSection(bench, format)),
    'data-quality': await dataQualitySection(data.quality, format),
  }
  return page(data, format, sections)
}

function page(data: ReportData, format: LocaleFormat, sections: Record<SectionId, RenderedSection>): string {
  const body = REPORT_SECTIONS.map(([id, title]) => {
    const section = sections[id]
    const chart =
      'svg' in section.chart
        ? `<figure class="chart" data-chart="${id}">${section.chart.svg}</figure>`
        : `<p class="notice" data-notice="${id}">${escapeHtml(section.chart.notice)}</p>`
    return `<section id="${id}" data-section="${id}">
<h2>${escapeHtml(title)}</h2>
${section.reading.map((line) => `<p class="reading">${escapeHtml(line)}</p>`).join('\n')}
${chart}
${section.tables.join('\n')}
</section>`
  }).join('\n')
  const nav = REPORT_SECTIONS.map(([id, title]) => `<a href="#${id}">${escapeHtml(title)}</a>`).join(' · ')
  return `<!doctype html>
<html lang="${escapeHtml(data.locale)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Skills report: ${escapeHtml(data.tenant)}, ${escapeHtml(format.day(data.as_of))}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>Skills report: ${escapeHtml(data.tenant)}</h1>
<p class="meta">As of ${escapeHtml(format.day(data.as_of))} · vocabulary ${escapeHtml(data.vendor)}, skill names in ${escapeHtml(data.language)} · made by skillhouse on ${escapeHtml(format.moment(data.generated_at))} · the tables behind every chart are in report.xlsx</p>
<nav>${nav}</nav>
</header>
<main>
${body}
</main>
</body>
</html>
`
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:#1a1a1a;background:#fff}
header{padding:24px 32px 12px;border-bottom:3px solid #1f5f8b}
h1{margin:0 0 4px;font-size:26px}
.meta{margin:0 0 8px;color:#555;font-size:13px}
nav a{color:#1f5f8b;text-decoration:none;font-size:14px}
main{padding:0 32px 32px}
section{padding:20px 0 8px;border-bottom:1px solid #ddd}
h2{margin:0 0 8px;font-size:21px;color:#1f5f8b}
.reading{margin:4px 0;max-width:70em}
.notice{margin:12px 0;padding:12px 16px;background:#fff6e5;border-left:4px solid #e07b39;max-width:70em}
figure.chart{margin:12px 0;overflow-x:auto}
figure.chart svg{display:block;max-width:none}
table{border-collapse:collapse;margin:12px 0;font-size:13px}
th,td{padding:4px 10px;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}
th{background:#f2f6f9;font-weight:600}
td.id{white-space:nowrap}
td.number{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.more{color:#555;font-size:13px}
@media print{
  @page{size:A4 landscape;margin:12mm}
  header{border-bottom-width:2px}
  nav{display:none}
  section{break-inside:avoid-page;page-break-inside:avoid}
  figure.chart{overflow:visible}
  figure.chart svg{max-width:100%;height:auto}
}
`
