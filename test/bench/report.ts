import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as echarts from 'echarts'
import { exportOrganisation, LOW_DATA_INCLUDE } from '../../src/analytics/org-export.js'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { exportAllJobs } from '../../src/matching/match-jobs.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import { chartSvg } from '../../src/report/chart-svg.js'
import { gatherReport } from '../../src/report/gather-report.js'
import { LocaleFormat } from '../../src/report/number-format.js'
import { heatmapChart } from '../../src/report/report-charts.js'
import type { OrganisationHeatmap } from '../../src/report/report-model.js'
import { writeReport } from '../../src/report/write-report.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant, type OpenTenant, withTenant } from '../../src/tenants/tenant-service.js'
import type { BenchResult } from './bench-result.js'
import { measure, SCALE, scaled, scratchDir } from './measure.js'

/**
 * `npm run bench -- report`: `skillhouse report` on a generated tenant of 100,000 employees,
 * 2,000,000 skill events, 10,000 jobs and 20,000 vacancies (BENCH_SCALE scales them), ingested and
 * derived as the nightly job does.
 *
 * - Ours: the whole report written (gathering every section, rendering the page and the
 *   workbook), its size, and the time of the gathering alone.
 * - References in the same run, on the same tenant: the organisational export (4.6 with low data,
 *   as `org export` and the nightly job make it) and the top-10 export of every job (4.10, as
 *   `match jobs --all-pages` makes it).
 * - The two chart libraries on the report's own heatmap (units to depth 3 × the 25 most held
 *   skill clusters): Vega-Lite through vega's SVG renderer (what the report uses) and ECharts'
 *   server-side SVG rendering, each three times, with the SVG sizes.
 *
 * The generated tenant is kept under the system temp folder (`skillhouse-bench-report-<scale>`) and
 * used again by the next run; BENCH_FRESH=1 makes it again.
 */
export async function benchReport(): Promise<BenchResult> {
  const employees = scaled(100_000)
  const events = scaled(2_000_000)
  const figures: Record<string, number | string> = { employees, events }
  const ratios: Record<string, number> = {}
  const dataDir = await benchTenant(figures)
  const scratch = scratchDir('report')
  try {
    await withTenant(dataDir, 'bench', async (tenant) => {
      const orgExport = await measure(() =>
        exportOrganisation(tenant, { include: [LOW_DATA_INCLUDE] }).then((answer) => JSON.stringify(answer)),
      )
      const jobExport = await measure(() => exportAllJobs(tenant, { filters: [], weights: [] }))
      const sections = sectionClock()
      const report = await measure(() =>
        writeReport(tenant, {
          out: join(scratch.dir, 'out'),
          depth: 2,
          group_by: 'skill_cluster',
          locale: 'en-GB',
          onSection: sections.start,
        }),
      )
      sections.start('')
      const gathered = await measure(() =>
        gatherReport(tenant, { depth: 3, group_by: 'skill_cluster', locale: 'en-GB' }),
      )
      figures.reference_org_export_seconds = round(orgExport.seconds)
      figures.reference_job_export_seconds = round(jobExport.seconds)
      figures.report_seconds = round(report.seconds)
      figures.report_peak_rss_mib = report.peakRssMiB
      figures.report_html_bytes = report.result.html_bytes
      figures.report_xlsx_bytes = report.result.xlsx_bytes
      figures.report_html_under_5_mb = report.result.html_bytes < 5 * 1024 * 1024 ? 'yes' : 'NO'
      figures.report_under_60_s = report.seconds < 60 ? 'yes' : 'NO'
      for (const [name, seconds] of sections.seconds)
        figures[`report_section_seconds ${name}`] = round(seconds)
      figures.gather_depth3_seconds = round(gathered.seconds)
      ratios.report_vs_org_export = round(report.seconds / orgExport.seconds)
      ratios.report_vs_job_export = round(report.seconds / jobExport.seconds)

      const heatmap = gathered.result.organisation
      if (heatmap.notice !== undefined) throw new Error(`no heatmap on the bench tenant: ${heatmap.notice}`)
      const format = new LocaleFormat('en-GB')
      const vega: number[] = []
      const chartsOf: number[] = []
      let vegaBytes = 0
      let echartsBytes = 0
      for (let round = 0; round < 3; round++) {
        const ours = await measure(() =>
          chartSvg(heatmapChart(heatmap as OrganisationHeatmap, format), format),
        )
        vega.push(ours.seconds)
        vegaBytes = ours.result.length
        const other = await measure(async () => echartsHeatmap(heatmap as OrganisationHeatmap, format))
        chartsOf.push(other.seconds)
        echartsBytes = other.result.length
        if (round === 0) {
          writeFileSync(join(scratch.dir, 'heatmap-vega.svg'), ours.result)
          writeFileSync(join(scratch.dir, 'heatmap-echarts.svg'), other.result)
        }
      }
      figures.heatmap_cells =
        (heatmap as OrganisationHeatmap).units.length * (heatmap as OrganisationHeatmap).charted_groups
      figures.vega_heatmap_seconds = vega.map(round).join(', ')
      figures.echarts_heatmap_seconds = chartsOf.map(round).join(', ')
      figures.vega_heatmap_svg_bytes = vegaBytes
      figures.echarts_heatmap_svg_bytes = echartsBytes
      ratios.echarts_vs_vega_heatmap_best = round(Math.min(...chartsOf) / Math.min(...vega))
    })
  } finally {
    scratch.cleanup()
  }
  return { name: 'report', figures, ratios }
}

/**
 * The time of each part of the report, from the report's own announcements of the section it
 * starts (what comes before the first one, the names and holders read, is `setup`).
 */
function sectionClock() {
  const seconds = new Map<string, number>()
  let current = 'setup'
  let since = performance.now()
  return {
    seconds,
    start: (name: string) => {
      const now = performance.now()
      seconds.set(current, (seconds.get(current) ?? 0) + (now - since) / 1000)
      current = name
      since = now
    },
  }
}

/**
 * The same heatmap in ECharts (server-side rendering to an SVG string): the same cells, labels,
 * colour range and size, for the comparison of the two libraries.
 */
function echartsHeatmap(heatmap: OrganisationHeatmap, format: LocaleFormat): string {
  const groups = heatmap.groups.slice(0, heatmap.charted_groups)
  const units = heatmap.units.map(
    (unit) => `${'· '.repeat(unit.depth - 1)}${unit.name} (${format.count(unit.employees)})`,
  )
  const cell = 26
  const chart = echarts.init(null, null, {
    renderer: 'svg',
    ssr: true,
    width: Math.max(200, groups.length * cell * 1.6) + 480,
    height: heatmap.units.length * cell + 320,
  })
  chart.setOption({
    animation: false,
    grid: { left: 280, top: 220, right: 200, bottom: 80 },
    xAxis: {
      type: 'category',
      position: 'top',
      data: groups.map((group) => group.name),
      axisLabel: { rotate: 40 },
    },
    yAxis: { type: 'category', inverse: true, data: units },
    visualMap: {
      min: 0,
      max: 1,
      orient: 'horizontal',
      left: 280,
      bottom: 10,
      inRange: { color: ['#deebf7', '#08519c'] },
    },
    series: [
      {
        type: 'heatmap',
        data: heatmap.units.flatMap((unit, row) =>
          groups.map((_, column) => [
            column,
            row,
            unit.employees > 0 ? (unit.holders[column] ?? 0) / unit.employees : 0,
          ]),
        ),
        label: {
          show: true,
          fontSize: 10,
          formatter: (item: { value: number[] }) => format.share(item.value[2] as number),
        },
      },
    ],
  })
  const svg = chart.renderToSVGString()
  chart.dispose()
  return svg
}

/** The generated, ingested and derived bench tenant: kept between runs of the same scale. */
async function benchTenant(figures: Record<string, number | string>): Promise<string> {
  const root = join(tmpdir(), `skillhouse-bench-report-${SCALE}`)
  const dataDir = join(root, 'data')
  const ready = join(root, 'ready')
  if (process.env.BENCH_FRESH === '1') rmSync(root, { recursive: true, force: true })
  if (existsSync(ready) && statSync(ready).isFile()) {
    figures.tenant = `kept from an earlier run (${root})`
    return dataDir
  }
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  const inbox = join(root, 'inbox')
  const made = await measure(async () => {
    await generateTenant({
      out: inbox,
      seed: 2,
      employees: scaled(100_000),
      events: scaled(2_000_000),
      jobs: scaled(10_000),
      vacancies: scaled(20_000),
    })
    await createTenant({ dataDir, name: 'bench', region: 'eu', initialise: initialiseTenant })
    await withTenant(dataDir, 'bench', async (tenant: OpenTenant) => {
      await ingestPaths({
        database: tenant.database,
        settings: tenant.settings,
        paths: [inbox],
        rejectsDir: join(root, 'rejects'),
      })
      await deriveProfiles({ tenant, asOf: '2026-11-01' })
      await tenant.database.checkpoint()
    })
  })
  rmSync(inbox, { recursive: true, force: true })
  writeFileSync(ready, new Date().toISOString())
  figures.tenant = `generated, ingested and derived in ${round(made.seconds)} s (kept in ${root})`
  return dataDir
}

const round = (value: number) => Math.round(value * 1000) / 1000
