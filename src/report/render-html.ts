import { chartSvg } from './chart-svg.js'
import { LocaleFormat } from './number-format.js'
import {
  benchChart,
  dataQualityChart,
  heatmapChart,
  mobilityChart,
  overviewChart,
  supplyDemandChart,
} from './report-charts.js'
import type { ReportData, Section } from './report-model.js'
import {
  benchReading,
  dataQualityReading,
  heatmapReading,
  mobilityReading,
  overviewReading,
  supplyDemandReading,
} from './report-readings.js'

/** Rows of a long table the page shows; the workbook has every row. */
export const PAGE_ROWS = 50

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

interface RenderedSection {
  reading: string[]
  /** The chart's SVG, or the notice that stands in its place. */
  chart: { svg: string } | { notice: string }
  tables: string[]
}

/**
 * The report as one self-contained HTML page: inline CSS, inline SVG charts, no script, no font
 * or image fetched (a Content-Security-Policy forbids any), so that it opens from a USB stick and
 * prints as it shows. Text from the data is escaped.
 */
export async function renderHtml(data: ReportData): Promise<string> {
  const format = new LocaleFormat(data.locale)
  const sections: Record<SectionId, RenderedSection> = {
    overview: {
      reading: overviewReading(data.overview, data.as_of, format),
      chart:
        data.overview.employees_in_units > 0
          ? { svg: await chartSvg(overviewChart(data.overview, format), format) }
          : {
              notice:
                data.overview.employees === 0
                  ? 'The tenant has no employees yet.'
                  : 'No employee belongs to an organisational unit, so low data availability is not counted (spec 4.6 counts it per unit).',
            },
      tables: [overviewTable(data, format)],
    },
    organisation: await sectionOf(data.organisation, async (heatmap) => ({
      reading: heatmapReading(heatmap, format),
      chart: { svg: await chartSvg(heatmapChart(heatmap, format), format) },
      tables: [],
    })),
    'supply-demand': await sectionOf(data.supply, async (supply) => ({
      reading: supplyDemandReading(supply, format),
      chart: { svg: await chartSvg(supplyDemandChart(supply, format), format) },
      tables: [
        table(
          ['Skill', 'Open vacancies', 'Jobs', 'Level asked', 'Holders at that level', 'Shortage'],
          supply.skills.map((skill) => [
            text(skill.skill_name),
            number(format.count(skill.open_vacancies)),
            number(format.count(skill.jobs)),
            number(skill.asked_level === null ? '–' : format.count(skill.asked_level)),
            number(format.count(skill.holders)),
            number(format.count(skill.shortage)),
          ]),
        ),
      ],
    })),
    mobility: await sectionOf(data.mobility, async (mobility) => ({
      reading: mobilityReading(mobility, format),
      chart: { svg: await chartSvg(mobilityChart(mobility, format), format) },
      tables: [
        table(
          [
            'Vacancy',
            'Title',
            'Best internal candidates (4.11 score)',
            `Above ${format.matchScore(mobility.strong_score)}`,
            'What the best one lacks (4.5 gap)',
          ],
          mobility.vacancies.slice(0, PAGE_ROWS).map((vacancy) => [
            id(vacancy.vacancy_id),
            text(vacancy.title),
            text(
              vacancy.candidates.length === 0
                ? 'none'
                : vacancy.candidates
                    .map((candidate) => `${candidate.employee_id} ${format.matchScore(candidate.score)}`)
                    .join(', '),
            ),
            number(format.count(vacancy.strong_candidates)),
            text(
              listed(
                vacancy.best_gap.map((skill) => skill.skill_name),
                format,
              ),
            ),
          ]),
        ),
        more(mobility.vacancies.length, 'open vacancies', format),
      ],
    })),
    bench: await sectionOf(data.bench, async (bench) => ({
      reading: benchReading(bench, format),
      chart: { svg: await chartSvg(benchChart(bench, format), format) },
      tables: [
        table(
          [
            'Job',
            'Title',
            'Matching employees (4.10)',
            'Best score',
            'Critical skills',
            'Held by fewer than 2',
          ],
          bench.jobs.slice(0, PAGE_ROWS).map((job) => [
            id(job.job_id),
            text(job.title),
            number(format.count(job.matching)),
            number(job.best ? format.matchScore(job.best.score) : '–'),
            number(format.count(job.critical_skills)),
            text(
              listed(
                job.thin_critical_skills.map(
                  (skill) => `${skill.skill_name} (${format.count(skill.holders)})`,
                ),
                format,
              ),
            ),
          ]),
        ),
        more(bench.jobs.length, 'jobs', format),
      ],
    })),
    'data-quality': {
      reading: dataQualityReading(data.quality, format),
      chart:
        data.quality.event_types.length > 0
          ? { svg: await chartSvg(dataQualityChart(data.quality, format), format) }
          : { notice: 'The tenant holds no skill events yet.' },
      tables: [
        ...(data.quality.last_run && data.quality.last_run.files.length > 0
          ? [
              table(
                ['Input file of the last run', 'Entity', 'Rows read', 'Rows rejected'],
                data.quality.last_run.files.map((file) => [
                  text(file.file),
                  text(file.entity),
                  number(format.count(file.rows_read)),
                  number(format.count(file.rows_rejected)),
                ]),
              ),
            ]
          : []),
      ],
    },
  }
  return page(data, format, sections)
}

async function sectionOf<T>(
  section: Section<T>,
  render: (figures: T) => Promise<RenderedSection>,
): Promise<RenderedSection> {
  if (section.notice !== undefined) return { reading: [], chart: { notice: section.notice }, tables: [] }
  return render(section as T)
}

function overviewTable(data: ReportData, format: LocaleFormat): string {
  const o = data.overview
  return table(
    ['Figure', 'Value'],
    [
      ['Employees', format.count(o.employees)],
      ['Jobs', format.count(o.jobs)],
      ['Vacancies (open)', `${format.count(o.vacancies)} (${format.count(o.open_vacancies)})`],
      ['Skills in use', format.count(o.skills_in_use)],
      [
        'Low data availability (employees in units)',
        o.employees_in_units > 0
          ? `${format.share(o.low_data_in_units / o.employees_in_units)} (${format.count(o.low_data_in_units)} of ${format.count(o.employees_in_units)})`
          : '–',
      ],
      ['Employees with a derived profile', format.count(o.employees_with_profile)],
      ['Latest skill event', o.latest_event ? format.day(o.latest_event) : 'none'],
      ['Last derivation (as of)', o.derived_as_of ? format.day(o.derived_as_of) : 'not derived yet'],
    ].map(([label, value]) => [text(label as string), number(value as string)]),
  )
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

type Cell = { html: string; kind: 'text' | 'number' | 'id' }
const text = (value: string): Cell => ({ html: escapeHtml(value), kind: 'text' })
const number = (value: string): Cell => ({ html: escapeHtml(value), kind: 'number' })
const id = (value: string): Cell => ({ html: escapeHtml(value), kind: 'id' })

function table(headers: string[], rows: Cell[][]): string {
  if (rows.length === 0) return ''
  const head = headers.map((header) => `<th>${escapeHtml(header)}</th>`).join('')
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell) => (cell.kind === 'text' ? `<td>${cell.html}</td>` : `<td class="${cell.kind}">${cell.html}</td>`)).join('')}</tr>`,
    )
    .join('\n')
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`
}

function more(total: number, what: string, format: LocaleFormat): string {
  return total > PAGE_ROWS
    ? `<p class="more">The first ${format.count(PAGE_ROWS)} of ${format.count(total)} ${what}; all of them are in report.xlsx.</p>`
    : ''
}

/** Up to six names, then how many more. */
function listed(names: readonly string[], format: LocaleFormat): string {
  if (names.length === 0) return '–'
  const shown = names.slice(0, 6).join(', ')
  return names.length > 6 ? `${shown} and ${format.count(names.length - 6)} more` : shown
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
