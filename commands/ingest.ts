import { join, resolve } from 'node:path'
import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import type { IngestSummary } from '../src/ingest/ingest-paths.js'
import { CSV_DELIMITERS, type CsvDelimiter } from '../src/ingest/read-source.js'
import { rejectCauseLines } from '../src/ingest/rejected-references.js'
import { TEXT_ENCODINGS, type TextEncoding } from '../src/ingest/text-encoding.js'
import { ingestFiles } from '../src/operations/ingest-operations.js'
import { ENTITY_NAMES } from '../src/records/entity-kinds.js'
import { Args, Flags } from '../src/vendor/oclif.js'

export default class Ingest extends SkillhouseCommand {
  static override summary = "Load a tenant's data files (CSV, NDJSON, JSON array, Parquet) into its database"
  static override description =
    `Each file's entity comes from its name up to the first dot (employees.csv, skill_events.2026-11-21.ndjson) or from --entity; a folder is read in dependency order. Every row is checked by the schemas and by its references; good rows are upserted by external_id, each file in one transaction; bad rows go to <rejects-dir>/<file>.ndjson with line, field and reason, and the command exits with 3. A file of a folder that cannot be read at all (its encoding, its header) is listed as refused and the others are read (exit 3); a file named is refused with exit 2.`
  static override examples = [
    '<%= config.bin %> ingest fixtures/demo',
    '<%= config.bin %> ingest fixtures/demo/employees.csv --entity employees --tenant demo',
    '<%= config.bin %> ingest fixtures/demo --tenant demo --json > summary.json',
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
    delimiter: Flags.string({
      description:
        "field delimiter of CSV files (default ','; a file that looks otherwise is refused naming its delimiter)",
      options: [...CSV_DELIMITERS],
    }),
    encoding: Flags.string({
      description:
        'text encoding of the files (default UTF-8, or UTF-16 when a file starts with its byte order mark)',
      options: [...TEXT_ENCODINGS],
    }),
    progress: Flags.boolean({
      description:
        'write progress lines to stderr even when it is not a terminal (for the logs of scheduled jobs)',
    }),
  }

  async run(): Promise<IngestSummary> {
    const { argv, flags } = await this.parse(Ingest)
    const progress = await this.progressReport(flags.progress)
    // Paths as the process that does the work finds them (a server has a folder of its own).
    const rejectsDir = resolve(flags['rejects-dir'])
    const summary = shownRejects(
      await this.runOnTenant(
        flags,
        ingestFiles,
        {
          paths: (argv as string[]).map((path) => resolve(path)),
          ...(flags.entity ? { entity: flags.entity } : {}),
          rejects_dir: rejectsDir,
          end_active_working_history: flags['end-active-working-history'],
          strict: flags.strict,
          ...(flags.delimiter ? { delimiter: flags.delimiter as CsvDelimiter } : {}),
          ...(flags.encoding ? { encoding: flags.encoding as TextEncoding } : {}),
        },
        { progress },
      ).finally(() => progress.stop()),
      rejectsDir,
      flags['rejects-dir'],
    )
    for (const file of summary.files) {
      this.log(
        `${file.entity.padEnd(28)} ${String(file.rows_read).padStart(9)} read ${String(file.rows_inserted).padStart(9)} new ${String(file.rows_updated).padStart(7)} updated ${String(file.rows_unchanged).padStart(9)} unchanged ${String(file.rows_rejected).padStart(6)} rejected  ${file.file}`,
      )
      if (!file.rejects_file) continue
      this.log(`${''.padEnd(28)} rejects: ${file.rejects_file}`)
      for (const line of rejectCauseLines(file.reject_causes)) this.log(`${''.padEnd(28)} ${line}`)
    }
    for (const skipped of summary.skipped)
      this.log(`${'skipped'.padEnd(28)} ${skipped.path}: ${skipped.reason}`)
    for (const refused of summary.rejected_files)
      this.log(`${'refused'.padEnd(28)} ${refused.path}: ${refused.reason}`)
    const refused = summary.rejected_files.length
    this.log(
      `${summary.rows_read} rows read, ${summary.rows_written} written, ${summary.rows_rejected} rejected${refused ? `, ${refused} files refused` : ''}${summary.skipped.length ? `, ${summary.skipped.length} files skipped` : ''} in ${summary.seconds.toFixed(1)} s`,
    )
    if (summary.rows_rejected > 0 || refused > 0) process.exitCode = 3
    return summary
  }
}

/** The summary with its rejects files named below --rejects-dir as it was given. */
function shownRejects(summary: IngestSummary, resolved: string, given: string): IngestSummary {
  const shown = (path: string | null) =>
    path?.startsWith(`${resolved}/`) ? join(given, path.slice(resolved.length + 1)) : path
  return {
    ...summary,
    files: summary.files.map((file) => ({ ...file, rejects_file: shown(file.rejects_file) })),
  }
}
