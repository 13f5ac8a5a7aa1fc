import { createReadStream, createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { type DeriveResult, deriveProfiles } from '../../src/profiles/derive.js'
import { importEsco } from '../../src/taxonomy/import-esco.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { createTenant, withTenant } from '../../src/tenants/tenant-service.js'
import type { BenchResult } from './bench-result.js'
import { measure, scaled, scratchDir } from './measure.js'
import { writeSyntheticEsco } from './vocabulary.js'

/**
 * Derivation of a generated tenant of 100,000 employees and 2,000,000 events: the full run with
 * the default vocabulary (against the same run by the mention finder alone, without implied skills
 * and job titles) and with a 14,000-skill ESCO-format vocabulary (vendor_a), MB/s of event
 * text for the whole pipeline, the extraction rate per core, the cores used, peak memory, and an
 * incremental re-derive after 1% new events, against the full run.
 *
 * The extraction rate per core is each worker's: characters of text handed to the extractor per
 * CPU second spent extracting (its time in the extractor, scaled by the share of its busy time the
 * thread had a core: the machine is shared). The worker rate is the event content a worker
 * derived profiles from (parsing, extraction, profile, encoding) per CPU second of the thread.
 */
export async function benchDerive(): Promise<BenchResult> {
  const scratch = scratchDir('derive')
  const employees = scaled(100_000)
  const events = scaled(2_000_000)
  try {
    const inbox = join(scratch.dir, 'inbox')
    await generateTenant({
      out: inbox,
      seed: 2,
      employees,
      events,
      jobs: scaled(10_000),
      vacancies: scaled(20_000),
    })
    const dataDir = join(scratch.dir, 'data')
    await createTenant({
      dataDir,
      name: 'bench',
      region: 'eu',
      vendors: ['vendor_a'],
      initialise: initialiseTenant,
    })
    const figures: Record<string, number | string> = { employees, events }
    const ratios: Record<string, number> = {}
    await withTenant(dataDir, 'bench', async (tenant) => {
      // Each ingest ends with a checkpoint, so that the derivation measured next pays for writing
      // its own changes only, not for the ingest's still in the write-ahead log.
      const ingest = async (paths: string[]) => {
        await ingestPaths({
          database: tenant.database,
          settings: tenant.settings,
          paths,
          rejectsDir: join(scratch.dir, 'rejects'),
        })
        await tenant.database.checkpoint()
      }
      await ingest([inbox])
      // Each derivation is measured up to its checkpoint: what it wrote is in the database file,
      // not left in the write-ahead log for whatever writes next to pay for.
      const derive = async (options: { full?: boolean; implied?: boolean } = {}) => {
        const result = await deriveProfiles({ tenant, asOf: '2026-11-01', ...options })
        await tenant.database.checkpoint()
        return result
      }
      // The default vocabulary alone first (vendor_a has no skills yet, so it is skipped).
      const cpuBefore = process.cpuUsage()
      const full = await measure(() => derive({ full: true }))
      const text = full.result.text_bytes
      figures.default_full_seconds = round(full.seconds)
      figures.default_events_per_s = Math.round(events / (full.result.vendors[0]?.seconds ?? full.seconds))
      figures.default_text_mb_per_s = round(text / 1e6 / (full.result.phases.employees ?? full.seconds))
      Object.assign(figures, workerFigures('default', full.result.vendors[0]?.workers ?? []))
      figures.default_cores_used = round(cpuSeconds(cpuBefore) / full.seconds)
      figures.default_peak_rss_mib = full.peakRssMiB
      figures.default_phases = JSON.stringify(full.result.phases)

      // The same full run by the mention finder alone: named skills and referenced Jobs and
      // Courses, no implied skills and no Jobs from working-history titles.
      const mentionsOnly = await measure(() => derive({ full: true, implied: false }))
      figures.mentions_only_full_seconds = round(mentionsOnly.seconds)
      ratios.default_full_vs_mentions_only = round(full.seconds / mentionsOnly.seconds)
      console.log(`  mentions only: ${figures.mentions_only_full_seconds} s`)

      // 1% new events for existing employees, then the incremental run.
      // The file is larger than a JS string may be: read it line by line.
      console.log(`  full derive: ${JSON.stringify(figures)}`)
      const extra = join(scratch.dir, 'skill_events.extra.ndjson')
      const out = createWriteStream(extra)
      let index = 0
      for await (const line of createInterface({
        input: createReadStream(join(inbox, 'skill_events.ndjson')),
      })) {
        if (index++ % 100 !== 0 || !line) continue
        const event = JSON.parse(line)
        event.external_id = `${event.external_id}-new`
        event.timestamp = '2026-10-30'
        out.write(`${JSON.stringify(event)}\n`)
      }
      await new Promise<void>((resolve) => out.end(() => resolve()))
      await ingest([extra])
      const incremental = await measure(() => derive())
      figures.incremental_seconds = round(incremental.seconds)
      figures.incremental_employees = incremental.result.vendors[0]?.recomputed.employees ?? 0
      figures.incremental_phases = JSON.stringify(incremental.result.phases)
      ratios.incremental_vs_full = round(incremental.seconds / full.seconds)
      console.log(
        `  incremental: ${figures.incremental_seconds} s for ${figures.incremental_employees} employees`,
      )

      // The same events against a 14,000-skill vocabulary.
      const esco = join(scratch.dir, 'esco')
      writeSyntheticEsco(esco, { skills: 14_000 })
      await importEsco(tenant, [esco], { external_vendor: 'vendor_a' })
      await tenant.database.checkpoint()
      const large = await measure(() => derive({ full: true }))
      const vendorA = large.result.vendors.find((vendor) => vendor.external_vendor === 'vendor_a')
      figures.esco14k_seconds = vendorA?.seconds ?? 0
      figures.esco14k_text_mb_per_s = round(text / 1e6 / (vendorA?.seconds ?? 1))
      Object.assign(figures, workerFigures('esco14k', vendorA?.workers ?? []))
      figures.esco14k_peak_rss_mib = large.peakRssMiB
      figures.esco14k_phases = JSON.stringify(vendorA?.phases ?? {})
    })
    return { name: 'derive', figures, ratios }
  } finally {
    scratch.cleanup()
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1e6
}

/** Per worker, `a / b`: the extraction rate per core and the worker rate (see `benchDerive`), MB/s. */
function workerFigures(prefix: string, workers: DeriveResult['vendors'][number]['workers']) {
  const list = (rate: (worker: (typeof workers)[number]) => number) =>
    workers.map((worker) => round(rate(worker))).join(' / ') || 'no workers'
  return {
    [`${prefix}_extraction_mb_per_s_per_core`]: list((worker) => {
      const share =
        worker.cpu_seconds === null || worker.busy_seconds === 0
          ? 1
          : Math.min(1, worker.cpu_seconds / worker.busy_seconds)
      return worker.extracted_chars / 1e6 / (worker.extract_seconds * share)
    }),
    [`${prefix}_worker_mb_per_s_per_core`]: list(
      (worker) => worker.content_chars / 1e6 / (worker.cpu_seconds ?? worker.busy_seconds),
    ),
    [`${prefix}_worker_cpu_seconds`]: list((worker) => worker.cpu_seconds ?? worker.busy_seconds),
  }
}
