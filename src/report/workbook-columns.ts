/** The columns of each sheet of the report workbook: header, width, number format, value. */
import { CANDIDATES_PER_VACANCY } from './gather-mobility.js'
import type {
  BenchJob,
  DataQuality,
  HeatmapGroup,
  HeatmapUnit,
  MobilityVacancy,
  OrganisationHeatmap,
  ReportData,
  SupplyDemandSkill,
} from './report-model.js'

/** A column of a sheet: its header, width, Excel number format, and the value of each row. */
export interface Column<T> {
  header: string
  width?: number
  numFmt?: string
  value: (row: T) => string | number | Date | null
}

const SHARE = '0.0%'
const SCORE = '0.000'
const COUNT = '#,##0'

/** A figure of the overview sheet: its label and value. */
export type Figure = [string, string | number | Date | null]

/** The overview's figures, dates as dates. */
export function overviewFigures(data: ReportData): Figure[] {
  const overview = data.overview
  return [
    ['Tenant', data.tenant],
    ['As of', dateOf(data.as_of)],
    ['Vocabulary vendor', data.vendor],
    ['Vocabulary language', data.language],
    ['Employees', overview.employees],
    ['Jobs', overview.jobs],
    ['Vacancies', overview.vacancies],
    ['Open vacancies', overview.open_vacancies],
    ['Skills in use', overview.skills_in_use],
    ['Employees in organisational units', overview.employees_in_units],
    ['Of them with low data availability', overview.low_data_in_units],
    ['Employees with a derived profile', overview.employees_with_profile],
    ['Latest skill event', overview.latest_event ? dateOf(overview.latest_event) : null],
    ['Last derivation as of', overview.derived_as_of ? dateOf(overview.derived_as_of) : null],
  ]
}

export const FIGURE_COLUMNS: Column<Figure>[] = [
  { header: 'Figure', width: 36, value: (row) => row[0] },
  { header: 'Value', width: 28, value: (row) => row[1] },
]

/** A cell of the heatmap: a unit, a group, and the unit's holders of the group's skills. */
export interface HeatmapCell {
  unit: HeatmapUnit
  group: HeatmapGroup
  holders: number
}

/** The heatmap as one row per unit and group. */
export function heatmapCells(heatmap: OrganisationHeatmap): HeatmapCell[] {
  return heatmap.units.flatMap((unit) =>
    heatmap.groups.map((group, column) => ({ unit, group, holders: unit.holders[column] ?? 0 })),
  )
}

export const HEATMAP_CELL_COLUMNS: Column<HeatmapCell>[] = [
  { header: 'Unit id', width: 18, value: (row) => row.unit.external_id },
  { header: 'Unit', width: 28, value: (row) => row.unit.name },
  { header: 'Depth', width: 7, value: (row) => row.unit.depth },
  { header: 'Employees', width: 11, numFmt: COUNT, value: (row) => row.unit.employees },
  { header: 'Group id', width: 28, value: (row) => row.group.external_id },
  { header: 'Group', width: 32, value: (row) => row.group.name },
  { header: 'Holders at level 3 or more', width: 14, numFmt: COUNT, value: (row) => row.holders },
  {
    header: 'Share',
    width: 9,
    numFmt: SHARE,
    value: (row) => (row.unit.employees > 0 ? row.holders / row.unit.employees : null),
  },
]

export const SUPPLY_COLUMNS: Column<SupplyDemandSkill>[] = [
  { header: 'Skill id', width: 30, value: (row) => row.skill_id },
  { header: 'Skill', width: 34, value: (row) => row.skill_name },
  { header: 'Open vacancies', width: 11, numFmt: COUNT, value: (row) => row.open_vacancies },
  { header: 'Jobs', width: 8, numFmt: COUNT, value: (row) => row.jobs },
  { header: 'Demand', width: 9, numFmt: COUNT, value: (row) => row.demand },
  { header: 'Level asked', width: 8, value: (row) => row.asked_level },
  { header: 'Holders at that level', width: 12, numFmt: COUNT, value: (row) => row.holders },
  { header: 'Shortage', width: 10, numFmt: COUNT, value: (row) => row.shortage },
]

export const MOBILITY_COLUMNS: Column<MobilityVacancy>[] = [
  { header: 'Vacancy id', width: 16, value: (row) => row.vacancy_id },
  { header: 'Title', width: 40, value: (row) => row.title },
  ...Array.from({ length: CANDIDATES_PER_VACANCY }, (_, rank): Column<MobilityVacancy>[] => [
    {
      header: `Candidate ${rank + 1}`,
      width: 14,
      value: (row) => row.candidates[rank]?.employee_id ?? null,
    },
    {
      header: `Score ${rank + 1}`,
      width: 9,
      numFmt: SCORE,
      value: (row) => row.candidates[rank]?.score ?? null,
    },
  ]).flat(),
  { header: 'Candidates 0.70 or above', width: 11, numFmt: COUNT, value: (row) => row.strong_candidates },
  {
    header: 'Gap of the best (skill ids)',
    width: 40,
    value: (row) => row.best_gap.map((skill) => skill.skill_id).join(' | '),
  },
  {
    header: 'Gap of the best (skills)',
    width: 50,
    value: (row) => row.best_gap.map((skill) => skill.skill_name).join(' | '),
  },
]

export const BENCH_COLUMNS: Column<BenchJob>[] = [
  { header: 'Job id', width: 28, value: (row) => row.job_id },
  { header: 'Title', width: 36, value: (row) => row.title },
  { header: 'Matching employees', width: 11, numFmt: COUNT, value: (row) => row.matching },
  { header: 'Best employee', width: 14, value: (row) => row.best?.employee_id ?? null },
  { header: 'Best score', width: 9, numFmt: SCORE, value: (row) => row.best?.score ?? null },
  { header: 'Critical skills', width: 9, numFmt: COUNT, value: (row) => row.critical_skills },
  {
    header: 'Held by fewer than 2 (skill ids)',
    width: 40,
    value: (row) => row.thin_critical_skills.map((skill) => skill.skill_id).join(' | '),
  },
  {
    header: 'Held by fewer than 2 (skills, holders)',
    width: 50,
    value: (row) =>
      row.thin_critical_skills.map((skill) => `${skill.skill_name} (${skill.holders})`).join(' | '),
  },
]

export const EVENT_TYPE_COLUMNS: Column<DataQuality['event_types'][number]>[] = [
  { header: 'Event type', width: 24, value: (row) => row.event_type },
  { header: 'Events', width: 10, numFmt: COUNT, value: (row) => row.events },
  { header: 'Gave no skill', width: 12, numFmt: COUNT, value: (row) => row.without_skill },
  {
    header: 'Share without skill',
    width: 12,
    numFmt: SHARE,
    value: (row) => (row.without_skill === null || row.events === 0 ? null : row.without_skill / row.events),
  },
]

/** The columns of the last nightly run's input files, each row naming the run. */
export function rejectColumns(
  runId: string,
): Column<NonNullable<DataQuality['last_run']>['files'][number]>[] {
  return [
    { header: 'Run', width: 32, value: () => runId },
    { header: 'File', width: 32, value: (row) => row.file },
    { header: 'Entity', width: 26, value: (row) => row.entity },
    { header: 'Rows read', width: 11, numFmt: COUNT, value: (row) => row.rows_read },
    { header: 'Rows rejected', width: 11, numFmt: COUNT, value: (row) => row.rows_rejected },
  ]
}

/** A calendar date as a Date at midnight UTC (what Excel shows as that day). */
const dateOf = (day: string) => new Date(`${day}T00:00:00Z`)
