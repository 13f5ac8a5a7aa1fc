import { statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { errors } from '../src/errors/skillhouse-error.js'
import { CSV_DELIMITERS, type CsvDelimiter } from '../src/ingest/read-source.js'
import { rejectCauseLines } from '../src/ingest/rejected-references.js'
import { TEXT_ENCODINGS, type TextEncoding } from '../src/ingest/text-encoding.js'
import { nightlyRun } from '../src/operations/pipeline-operations.js'
import { futureDatedWarning } from '../src/pipeline/future-dated.js'
import type { RunManifest } from '../src/pipeline/nightly-run.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Run extends SkillhouseCommand {
  static override summary =
    'The nightly job: ingest the inbox, derive profiles, write outputs, events and a manifest'
  static override description =
    'Safe to re-run: unchanged input changes nothing and emits no event, and a run killed at any stage is finished by the next one. Beside a running serve the server runs it, answering reads from the state before it meanwhile; alone it holds the tenant database and a second run is refused with a clear message.'
  static override examples = ['<%= config.bin %> run --inbox fixtures/demo --out out/demo --tenant demo']
  static override flags = {
    tenant: tenantFlag,
    inbox: Flags.string({ description: 'folder of data files to ingest', required: true }),
    out: Flags.string({ description: 'folder for outputs, events and manifest.json', required: true }),
    'as-of': Flags.string({ description: 'derive profiles as of this date (YYYY-MM-DD; default today)' }),
    delimiter: Flags.string({
      description: "field delimiter of the inbox's CSV files (default ',')",
      options: [...CSV_DELIMITERS],
    }),
    encoding: Flags.string({
      description:
        "text encoding of the inbox's files (default UTF-8, or UTF-16 marked by its byte order mark)",
      options: [...TEXT_ENCODINGS],
    }),
    format: Flags.string({
      description: 'matching results as the spec JSON, or as one table each in NDJSON, Parquet or Arrow',
      options: ['json', 'ndjson', 'parquet', 'arrow'],
      default: 'json',
    }),
  }

  async run(): Promise<RunManifest> {
    const { flags } = await this.parse(Run)
    if (!isDirectory(flags.inbox))
      throw errors.badRequest(
        `--inbox ${flags.inbox}: must be a folder that exists (the data files to ingest)`,
      )
    // A log of the nightly job shows each stage and ingest's rows/s even when it is no terminal.
    const progress = await this.progressReport(true)
    const manifest = await this.runOnTenant(
      flags,
      nightlyRun,
      {
        // Paths as the process that does the work finds them (a server has a folder of its own).
        inbox: resolve(flags.inbox),
        out: resolve(flags.out),
        ...(flags['as-of'] ? { as_of: flags['as-of'] } : {}),
        format: flags.format as 'json',
        ...(flags.delimiter ? { delimiter: flags.delimiter as CsvDelimiter } : {}),
        ...(flags.encoding ? { encoding: flags.encoding as TextEncoding } : {}),
      },
      { progress },
    ).finally(() => progress.stop())
    this.log(
      `run ${manifest.run_id}: ${manifest.inputs.length} input files, ${manifest.rejected_rows} rejected rows, ${manifest.events} events`,
    )
    for (const input of manifest.inputs) {
      if (!input.rejects_file) continue
      this.log(`rejected ${input.rejected} rows of ${input.file}: ${join(flags.out, input.rejects_file)}`)
      for (const line of rejectCauseLines(input.reject_causes)) this.log(`  ${line}`)
    }
    const future = futureDatedWarning(manifest.future_dated_events)
    if (future) this.log(future)
    for (const skipped of manifest.skipped_inputs) this.log(`skipped ${skipped.file}: ${skipped.reason}`)
    for (const rejected of manifest.rejected_inputs) this.log(`rejected ${rejected.file}: ${rejected.reason}`)
    this.log(`outputs in ${flags.out} (manifest.json)`)
    if (manifest.rejected_rows > 0 || manifest.rejected_inputs.length > 0) process.exitCode = 3
    return manifest
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
