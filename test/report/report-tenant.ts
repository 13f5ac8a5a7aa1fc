import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { runCli } from '../helpers/temp-tenant.js'

/**
 * The demo tenant made as a user makes it (`skillhouse demo`, the built CLI) and its report
 * (`skillhouse report`), in `dir`: what the report tests read, look at and compare.
 */
export async function demoReport(dir: string, extra: string[] = []) {
  const dataDir = join(dir, 'data')
  const runOut = join(dir, 'run')
  const reportOut = join(dir, 'report')
  const demo = await runCli(['demo', '--data-dir', dataDir, '--out', runOut])
  if (demo.exitCode !== 0) throw new Error(`demo failed: ${demo.stderr}`)
  const report = await runCli([
    'report',
    '--data-dir',
    dataDir,
    '--tenant',
    'demo',
    '--out',
    reportOut,
    '--json',
    ...extra,
  ])
  if (report.exitCode !== 0) throw new Error(`report failed: ${report.stderr}`)
  return {
    dataDir,
    runOut,
    html: join(reportOut, 'report.html'),
    xlsx: join(reportOut, 'report.xlsx'),
    written: JSON.parse(String(report.stdout)) as { sections: Record<string, string>; html_bytes: number },
    manifest: JSON.parse(readFileSync(join(runOut, 'manifest.json'), 'utf8')) as {
      rejected_rows: number
      inputs: { file: string; rejected: number; rows: number }[]
    },
  }
}

/** A sheet of the workbook as objects keyed by its header row, cells as exceljs typed them. */
export async function readSheets(path: string): Promise<Map<string, Record<string, unknown>[]>> {
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(path)
  const sheets = new Map<string, Record<string, unknown>[]>()
  workbook.eachSheet((sheet) => {
    const headers = (sheet.getRow(1).values as unknown[]).slice(1).map(String)
    const rows: Record<string, unknown>[] = []
    sheet.eachRow((row, number) => {
      if (number === 1) return
      const values = row.values as unknown[]
      rows.push(Object.fromEntries(headers.map((header, index) => [header, values[index + 1] ?? null])))
    })
    sheets.set(sheet.name, rows)
  })
  return sheets
}
