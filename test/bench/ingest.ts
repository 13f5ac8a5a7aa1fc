import { createReadStream, renameSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { parse } from 'fast-csv'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { readSource } from '../../src/ingest/read-source.js'
import { SkillEventRow } from '../../src/schemas/index.js'
import { OFFLINE_OPTIONS } from '../../src/store/duckdb-instance.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant, withTenant } from '../../src/tenants/tenant-service.js'
import type { BenchResult } from './bench-result.js'
import { measure, scaled, scratchDir } from './measure.js'

/**
 * Ingest of 1,000,000 generated skill events, as NDJSON and as CSV: our validated ingest beside
 * DuckDB's own read_ndjson / read_csv of the same file into a plain table, in the same run.
 * Also the two CSV readers side by side (fast-csv and DuckDB's, both parsing into JS rows).
 */
export async function benchIngest(): Promise<BenchResult> {
  const scratch = scratchDir('ingest')
  const events = scaled(1_000_000)
  const employees = scaled(50_000)
  try {
    const ndjsonDir = join(scratch.dir, 'ndjson')
    const csvDir = join(scratch.dir, 'csv')
    await generateTenant({ out: ndjsonDir, seed: 1, employees, events, eventsFormat: 'ndjson' })
    await generateTenant({ out: csvDir, seed: 1, employees, events, eventsFormat: 'csv' })
    // Entities first (as a real tenant has them), then the measured skill events file alone.
    for (const dir of [ndjsonDir, csvDir]) {
      const ext = dir === ndjsonDir ? 'ndjson' : 'csv'
      renameSync(join(dir, `skill_events.${ext}`), join(scratch.dir, `skill_events.${ext}`))
    }
    const figures: Record<string, number | string> = { events }
    const ratios: Record<string, number> = {}
    for (const format of ['ndjson', 'csv'] as const) {
      const file = join(scratch.dir, `skill_events.${format}`)
      const raw = await rawLoad(file, format, join(scratch.dir, `raw-${format}.duckdb`))
      const dataDir = join(scratch.dir, `data-${format}`)
      await createTenant({ dataDir, name: 'bench', region: 'eu', initialise: initialiseTenant })
      const ours = await withTenant(dataDir, 'bench', async (tenant) => {
        const options = {
          database: tenant.database,
          settings: tenant.settings,
          rejectsDir: join(scratch.dir, 'rejects'),
        }
        await ingestPaths({ ...options, paths: [format === 'ndjson' ? ndjsonDir : csvDir] })
        return measure(() => ingestPaths({ ...options, paths: [file] }))
      })
      const summary = ours.result.files[0]
      if (!summary || summary.rows_inserted !== events)
        throw new Error(`ingest of ${file} wrote ${summary?.rows_inserted} of ${events} rows`)
      figures[`${format}_ours_rows_per_s`] = Math.round(events / ours.seconds)
      figures[`${format}_raw_rows_per_s`] = Math.round(events / raw)
      figures[`${format}_ours_seconds`] = round(ours.seconds)
      figures[`${format}_raw_seconds`] = round(raw)
      figures[`${format}_ours_peak_rss_mib`] = ours.peakRssMiB
      figures[`${format}_phases`] = JSON.stringify(summary.phases)
      ratios[`${format}_ours_vs_raw_throughput`] = round(raw / ours.seconds)
    }
    const csvFile = join(scratch.dir, 'skill_events.csv')
    const fastCsv = await timeFastCsv(csvFile)
    const duckCsv = await timeDuckDbCsv(csvFile)
    figures.csv_reader_fast_csv_rows_per_s = Math.round(events / fastCsv)
    figures.csv_reader_duckdb_rows_per_s = Math.round(events / duckCsv)
    ratios.csv_reader_duckdb_vs_fast_csv = round(fastCsv / duckCsv)
    return { name: 'ingest', figures, ratios }
  } finally {
    scratch.cleanup()
  }
}

async function rawLoad(file: string, format: 'ndjson' | 'csv', path: string): Promise<number> {
  const instance = await DuckDBInstance.create(path, OFFLINE_OPTIONS)
  const connection = await instance.connect()
  try {
    const reader = format === 'ndjson' ? 'read_ndjson' : 'read_csv'
    const started = performance.now()
    await connection.run(`CREATE TABLE raw AS SELECT * FROM ${reader}($file)`, { file })
    await connection.run('CHECKPOINT')
    return (performance.now() - started) / 1000
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

async function timeFastCsv(file: string): Promise<number> {
  const started = performance.now()
  await new Promise<void>((resolve, reject) => {
    createReadStream(file)
      .pipe(parse({ headers: true }))
      .on('data', () => undefined)
      .on('error', reject)
      .on('end', () => resolve())
  })
  return (performance.now() - started) / 1000
}

async function timeDuckDbCsv(file: string): Promise<number> {
  const started = performance.now()
  for await (const batch of readSource(file, 'csv', { schema: SkillEventRow })) void batch
  return (performance.now() - started) / 1000
}

const round = (value: number) => Math.round(value * 1000) / 1000
