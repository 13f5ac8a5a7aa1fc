import { PassThrough } from 'node:stream'
import ExcelJS from 'exceljs'
import { CANDIDATES_PER_VACANCY } from './gather-mobility.js'
import type { ReportData, Section } from './report-model.js'

/** A column of a sheet: its header, width, Excel number format, and the value of each row. */
interface Column<T> {
  header: string
  width?: number
  numFmt?: string
  value: (row: T) => string | number | Date | null
}

/** The sheet names, in workbook order (one per chart's table, plus the last run's rejects). */
export const SHEETS = {
  overview: 'Overview',
  organisation: 'Organisation heatmap',
  supply: 'Supply and demand',
  mobility: 'Internal mobility',
  bench: 'Bench strength',
  quality: 'Data quality',
  rejects: 'Rejected rows',
} as const

const SHARE = '0.0%'
const SCORE = '0.000'
const COUNT = '#,##0'

/**
 * The workbook: the table behind every chart, one sheet each, with typed cells (numbers as
 * numbers, dates as dates, shares as fractions shown as percentages), the header row frozen and
 * filters on. A section with nothing to show has one row saying why.
 */
export async function renderWorkbook(data: ReportData): Promise<Uint8Array> {
  const chunks: Buffer[] = []
  const stream = new PassThrough()
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream,
    useStyles: true,
    useSharedStrings: true,
    zip: { zlib: { level: 6 } },
  })
  workbook.creator = 'skillhouse'
  workbook.created = new Date(data.generated_at)
  const o = data.overview
  addSheet(
    workbook,
    SHEETS.overview,
    [
      ['Tenant', data.tenant],
      ['As of', dateOf(data.as_of)],
      ['Vocabulary vendor', data.vendor],
      ['Vocabulary language', data.language],
      ['Employees', o.employees],
      ['Jobs', o.jobs],
      ['Vacancies', o.vacancies],
      ['Open vacancies', o.open_vacancies],
      ['Skills in use', o.skills_in_use],
      ['Employees in organisational units', o.employees_in_units],
      ['Of them with low data availability', o.low_data_in_units],
      ['Employees with a derived profile', o.employees_with_profile],
      ['Latest skill event', o.latest_event ? dateOf(o.latest_event) : null],
      ['Last derivation as of', o.derived_as_of ? dateOf(o.derived_as_of) : null],
    ] as [string, string | number | Date | null][],
    [
      { header: 'Figure', width: 36, value: (row) => row[0] },
      { header: 'Value', width: 28, value: (row) => row[1] },
    ],
  )
  sectionSheet(
    workbook,
    SHEETS.organisation,
    data.organisation,
    (heatmap) =>
      heatmap.units.flatMap((unit) =>
        heatmap.groups.map((group, column) => ({ unit, group, holders: unit.holders[column] ?? 0 })),
      ),
    [
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
    ],
  )
  sectionSheet(workbook, SHEETS.supply, data.supply, (supply) => supply.skills, [
    { header: 'Skill id', width: 30, value: (row) => row.skill_id },
    { header: 'Skill', width: 34, value: (row) => row.skill_name },
    { header: 'Open vacancies', width: 11, numFmt: COUNT, value: (row) => row.open_vacancies },
    { header: 'Jobs', width: 8, numFmt: COUNT, value: (row) => row.jobs },
    { header: 'Demand', width: 9, numFmt: COUNT, value: (row) => row.demand },
    { header: 'Level asked', width: 8, value: (row) => row.asked_level },
    { header: 'Holders at that level', width: 12, numFmt: COUNT, value: (row) => row.holders },
    { header: 'Shortage', width: 10, numFmt: COUNT, value: (row) => row.shortage },
  ])
  sectionSheet(workbook, SHEETS.mobility, data.mobility, (mobility) => mobility.vacancies, [
    { header: 'Vacancy id', width: 16, value: (row) => row.vacancy_id },
    { header: 'Title', width: 40, value: (row) => row.title },
    ...Array.from({ length: CANDIDATES_PER_VACANCY }, (_, rank) => [
      {
        header: `Candidate ${rank + 1}`,
        width: 14,
        value: (row: ReportDataVacancy) => row.candidates[rank]?.employee_id ?? null,
      },
      {
        header: `Score ${rank + 1}`,
        width: 9,
        numFmt: SCORE,
        value: (row: ReportDataVacancy) => row.candidates[rank]?.score ?? null,
      },
    ]).flat(),
    { header: 'Candidates above 0.7', width: 11, numFmt: COUNT, value: (row) => row.strong_candidates },
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
  ])
  sectionSheet(workbook, SHEETS.bench, data.bench, (bench) => bench.jobs, [
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
  ])
  addSheet(workbook, SHEETS.quality, data.quality.event_types, [
    { header: 'Event type', width: 24, value: (row) => row.event_type },
    { header: 'Events', width: 10, numFmt: COUNT, value: (row) => row.events },
    { header: 'Gave no skill', width: 12, numFmt: COUNT, value: (row) => row.without_skill },
    {
      header: 'Share without skill',
      width: 12,
      numFmt: SHARE,
      value: (row) =>
        row.without_skill === null || row.events === 0 ? null : row.without_skill / row.events,
    },
  ])
  const run = data.quality.last_run
  if (run) {
    addSheet(workbook, SHEETS.rejects, run.files, [
      { header: 'Run', width: 32, value: () => run.run_id },
      { header: 'File', width: 32, value: (row) => row.file },
      { header: 'Entity', width: 26, value: (row) => row.entity },
      { header: 'Rows read', width: 11, numFmt: COUNT, value: (row) => row.rows_read },
      { header: 'Rows rejected', width: 11, numFmt: COUNT, value: (row) => row.rows_rejected },
    ])
  } else {
    noticeSheet(workbook, SHEETS.rejects, 'No nightly run (skillhouse run) is recorded for this tenant.')
  }
  await workbook.commit()
  return new Uint8Array(Buffer.concat(chunks))
}

type ReportDataVacancy = Extract<ReportData['mobility'], { vacancies: unknown }>['vacancies'][number]

function sectionSheet<S, T>(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  name: string,
  section: Section<S>,
  rows: (figures: S) => T[],
  columns: Column<T>[],
): void {
  if (section.notice !== undefined) noticeSheet(workbook, name, section.notice)
  else addSheet(workbook, name, rows(section as S), columns)
}

function addSheet<T>(
  workbook: ExcelJS.stream.xlsx.WorkbookWriter,
  name: string,
  rows: readonly T[],
  columns: Column<T>[],
): void {
  const sheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: 1 }] })
  sheet.columns = columns.map((column) => ({
    header: column.header,
    width: column.width ?? 14,
    ...(column.numFmt ? { style: { numFmt: column.numFmt } } : {}),
  }))
  sheet.getRow(1).font = { bold: true }
  sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns.length } }
  // One style object per column and kind of value, shared by the column's cells: exceljs keeps the
  // style id of an object it has seen, where a cell's own copy is serialised again to be looked up.
  const styles = columns.map(() => new Map<ExcelJS.ValueType, Partial<ExcelJS.Style>>())
  for (const row of rows) {
    const added = sheet.addRow(columns.map((column) => column.value(row)))
    added.eachCell((cell, number) => {
      const shared = styles[number - 1] as Map<ExcelJS.ValueType, Partial<ExcelJS.Style>>
      let style = shared.get(cell.type)
      if (!style) {
        style = { ...cell.style }
        shared.set(cell.type, style)
      }
      cell.style = style
    })
    added.commit()
  }
  sheet.commit()
}

function noticeSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, name: string, notice: string): void {
  addSheet(workbook, name, [notice], [{ header: 'Notice', width: 100, value: (row) => row }])
}

/** A calendar date as a Date at midnight UTC (what Excel shows as that day). */
const dateOf = (day: string) => new Date(`${day}T00:00:00Z`)
