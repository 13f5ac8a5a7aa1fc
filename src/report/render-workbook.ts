import { PassThrough } from 'node:stream'
import ExcelJS from 'exceljs'
import type { ReportData, Section } from './report-model.js'
import {
  BENCH_COLUMNS,
  type Column,
  EVENT_TYPE_COLUMNS,
  FIGURE_COLUMNS,
  HEATMAP_CELL_COLUMNS,
  heatmapCells,
  MOBILITY_COLUMNS,
  overviewFigures,
  rejectColumns,
  SUPPLY_COLUMNS,
} from './workbook-columns.js'

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
  addSheet(workbook, SHEETS.overview, overviewFigures(data), FIGURE_COLUMNS)
  sectionSheet(workbook, SHEETS.organisation, data.organisation, heatmapCells, HEATMAP_CELL_COLUMNS)
  sectionSheet(workbook, SHEETS.supply, data.supply, (supply) => supply.skills, SUPPLY_COLUMNS)
  sectionSheet(workbook, SHEETS.mobility, data.mobility, (mobility) => mobility.vacancies, MOBILITY_COLUMNS)
  sectionSheet(workbook, SHEETS.bench, data.bench, (bench) => bench.jobs, BENCH_COLUMNS)
  addSheet(workbook, SHEETS.quality, data.quality.event_types, EVENT_TYPE_COLUMNS)
  const run = data.quality.last_run
  if (run) addSheet(workbook, SHEETS.rejects, run.files, rejectColumns(run.run_id))
  else noticeSheet(workbook, SHEETS.rejects, 'No nightly run (skillhouse run) is recorded for this tenant.')
  await workbook.commit()
  return new Uint8Array(Buffer.concat(chunks))
}

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
