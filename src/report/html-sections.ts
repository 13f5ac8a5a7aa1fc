import { chartSvg } from './chart-svg.js'
import { id, listed, more, number, PAGE_ROWS, table, text } from './html-table.js'
import type { LocaleFormat } from './number-format.js'
import {
  benchChart,
  dataQualityChart,
  heatmapChart,
  mobilityChart,
  overviewChart,
  skillsByLevelChart,
  supplyDemandChart,
} from './report-charts.js'
import type {
  BenchStrength,
  DataQuality,
  Mobility,
  OrganisationHeatmap,
  Overview,
  Section,
  SupplyDemand,
} from './report-model.js'
import {
  benchReading,
  dataQualityReading,
  heatmapReading,
  mobilityReading,
  overviewReading,
  supplyDemandReading,
} from './report-readings.js'

/** A section of the page: what it reads as, its chart (or the notice in its place), its tables. */
export interface RenderedSection {
  reading: string[]
  /** The chart's SVG, or the notice that stands in its place. */
  chart: { svg: string } | { notice: string }
  tables: string[]
}

/** A section with nothing to show is its notice alone; else what `render` makes of its figures. */
export async function sectionOf<T>(
  section: Section<T>,
  render: (figures: T) => Promise<RenderedSection>,
): Promise<RenderedSection> {
  if (section.notice !== undefined) return { reading: [], chart: { notice: section.notice }, tables: [] }
  return render(section as T)
}

export async function overviewSection(
  overview: Overview,
  asOf: string,
  format: LocaleFormat,
): Promise<RenderedSection> {
  return {
    reading: overviewReading(overview, asOf, format),
    chart:
      overview.employees_in_units > 0
        ? { svg: await chartSvg(overviewChart(overview, format), format) }
        : overview.skills_by_level.length > 0
          ? { svg: await chartSvg(skillsByLevelChart(overview, format), format) }
          : {
              notice:
                overview.employees === 0
                  ? 'The tenant has no employees yet.'
                  : 'No employee belongs to an organisational unit, so low data availability is not counted (spec 4.6 counts it per unit).',
            },
    tables: [overviewTable(overview, format)],
  }
}

function overviewTable(overview: Overview, format: LocaleFormat): string {
  return table(
    ['Figure', 'Value'],
    [
      ['Employees', format.count(overview.employees)],
      ['Jobs', format.count(overview.jobs)],
      ['Vacancies (open)', `${format.count(overview.vacancies)} (${format.count(overview.open_vacancies)})`],
      ['Skills in use', format.count(overview.skills_in_use)],
      [
        'Low data availability (employees in units)',
        overview.employees_in_units > 0
          ? `${format.share(overview.low_data_in_units / overview.employees_in_units)} (${format.count(overview.low_data_in_units)} of ${format.count(overview.employees_in_units)})`
          : '–',
      ],
      ['Employees with a derived profile', format.count(overview.employees_with_profile)],
      ['Latest skill event', overview.latest_event ? format.day(overview.latest_event) : 'none'],
      [
        'Last derivation (as of)',
        overview.derived_as_of ? format.day(overview.derived_as_of) : 'not derived yet',
      ],
    ].map(([label, value]) => [text(label as string), number(value as string)]),
  )
}

export async function organisationSection(
  heatmap: OrganisationHeatmap,
  format: LocaleFormat,
): Promise<RenderedSection> {
  return {
    reading: heatmapReading(heatmap, format),
    chart: { svg: await chartSvg(heatmapChart(heatmap, format), format) },
    tables: [],
  }
}

export async function supplyDemandSection(
  supply: SupplyDemand,
  format: LocaleFormat,
): Promise<RenderedSection> {
  return {
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
  }
}

export async function mobilitySection(mobility: Mobility, format: LocaleFormat): Promise<RenderedSection> {
  return {
    reading: mobilityReading(mobility, format),
    chart: { svg: await chartSvg(mobilityChart(mobility, format), format) },
    tables: [
      table(
        [
          'Vacancy',
          'Title',
          'Best internal candidates (4.11 score)',
          `${format.matchScore(mobility.strong_score)} or above`,
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
  }
}

export async function benchSection(bench: BenchStrength, format: LocaleFormat): Promise<RenderedSection> {
  return {
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
              job.thin_critical_skills.map((skill) => `${skill.skill_name} (${format.count(skill.holders)})`),
              format,
            ),
          ),
        ]),
      ),
      more(bench.jobs.length, 'jobs', format),
    ],
  }
}

export async function dataQualitySection(
  quality: DataQuality,
  format: LocaleFormat,
): Promise<RenderedSection> {
  const files = quality.last_run?.files ?? []
  return {
    reading: dataQualityReading(quality, format),
    chart:
      quality.event_types.length > 0
        ? { svg: await chartSvg(dataQualityChart(quality, format), format) }
        : { notice: 'The tenant holds no skill events yet.' },
    tables:
      files.length > 0
        ? [
            table(
              ['Input file of the last run', 'Entity', 'Rows read', 'Rows rejected'],
              files.map((file) => [
                text(file.file),
                text(file.entity),
                number(format.count(file.rows_read)),
                number(format.count(file.rows_rejected)),
              ]),
            ),
          ]
        : [],
  }
}
