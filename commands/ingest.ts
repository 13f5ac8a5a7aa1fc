import { Args, Flags } from '@oclif/core'
import ora from 'ora'
import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { ENTITY_NAMES } from '../src/ingest/entity-kinds.js'
import { type IngestSummary, ingestPaths } from '../src/ingest/ingest-paths.js'
import { withTenant } from '../src/tenants/tenant-service.js'

export default class Ingest extends SkillhouseCommand {
  static override summary = "Load a tenant's data files (CSV, NDJSON, JSON array, Parquet) into its database"
  static override description =
    `Each file's entity comes from its name up to the first dot (employees.csv, skill_events.2026-11-21.ndjson) or from --entity; a folder is read in dependency order. Every row is checked by the schemas and by its references; good rows are upserted by external_id, each file in one transaction; bad rows go to <rejects-dir>/<file>.ndjson with line, field and reason, and the command exits with 3.`
  static override examples = [
    '<%= config.bin %> ingest fixtures/demo',
    '<%= config.bin %> ingest exports/people.csv --entity employees --tenant acme',
    '<%= config.bin %> ingest inbox/ --json > summary.json',
  ]
  static override strict = false
  static override args = { path: Args.string({ description: 'files or folders to ingest', required: true }) }
  static override flags = {
    tenant: tenantFlag,
    entity: Flags.string({ description: 'entity of every file given', options: ENTITY_NAMES }),
    'rejects-dir': Flags.string({ description: 'where rejected rows are written', default: 'rejects' }),
    'end-active-working-history': Flags.boolean({
      description: "new skill events end their employee's active working history (events without end_date)",
    }),
    strict: Flags.boolean({ description: 'reject skill events from which no skill profile can be built' }),
    progress: Flags.boolean({
      description:
        'write progress lines to stderr even when it is not a terminal (for the logs of scheduled jobs)',
    }),
  }

  async run(): Promise<IngestSummary> {
    const { argv, flags } = await this.parse(Ingest)
    const spinner = this.interactive ? ora({ stream: process.stderr }) : undefined
    let fileStarted = 0
    let lastLine = 0
    const logProgress = flags.progress && !spinner
    const progressLine = (text: string) => {
      lastLine = performance.now()
      process.stderr.write(`progress ${text}\n`)
    }
    const summary = await withTenant(this.dataDir(flags), flags.tenant, (tenant) =>
      ingestPaths({
        database: tenant.database,
        settings: tenant.settings,
        paths: argv as string[],
        entity: flags.entity,
        rejectsDir: flags['rejects-dir'],
        endActiveWorkingHistory: flags['end-active-working-history'],
        strict: flags.strict,
        onFile: (file) => {
          fileStarted = performance.now()
          spinner?.start(`${file.kind.entity} ← ${file.path}`)
          if (logProgress) progressLine(`${file.kind.entity} ${file.path} started`)
        },
        onProgress: (file, rows) => {
          const rate = Math.round(rows / Math.max((performance.now() - fileStarted) / 1000, 0.001))
          const text = `${file.kind.entity} ← ${file.path}: ${rows.toLocaleString('en')} rows (${rate.toLocaleString('en')} rows/s)`
          if (spinner) spinner.text = text
          else if (logProgress && performance.now() - lastLine > 500)
            progressLine(`${file.kind.entity} ${rows} rows ${rate} rows/s`)
        },
      }),
    )
    spinner?.stop()
    for (const file of summary.files) {
      this.log(
        `${file.entity.padEnd(28)} ${String(file.rows_read).padStart(9)} read ${String(file.rows_inserted).padStart(9)} new ${String(file.rows_updated).padStart(7)} updated ${String(file.rows_unchanged).padStart(9)} unchanged ${String(file.rows_rejected).padStart(6)} rejected  ${file.file}`,
      )
      if (file.rejects_file) this.log(`${''.padEnd(28)} rejects: ${file.rejects_file}`)
    }
    for (const skipped of summary.skipped) this.note(`skipped ${skipped.path}: ${skipped.reason}`)
    this.log(
      `${summary.rows_read} rows read, ${summary.rows_written} written, ${summary.rows_rejected} rejected in ${summary.seconds.toFixed(1)} s`,
    )
    if (summary.rows_rejected > 0) process.exitCode = 3
    return summary
  }
}
