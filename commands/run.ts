import { statSync } from 'node:fs'
import { Flags } from '@oclif/core'
import ora from 'ora'
import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { errors } from '../src/errors/skillhouse-error.js'
import { type RunManifest, runNightly } from '../src/pipeline/nightly-run.js'
import { withTenant } from '../src/tenants/tenant-service.js'

export default class Run extends SkillhouseCommand {
  static override summary =
    'The nightly job: ingest the inbox, derive profiles, write outputs, events and a manifest'
  static override description =
    'Safe to re-run: unchanged input changes nothing and emits no event, and a run killed at any stage is finished by the next one. While it runs it holds the tenant database; a second run (or the server) is refused with a clear message.'
  static override examples = ['<%= config.bin %> run --inbox /data/inbox --out /data/out --tenant acme']
  static override flags = {
    tenant: tenantFlag,
    inbox: Flags.string({ description: 'folder of data files to ingest', required: true }),
    out: Flags.string({ description: 'folder for outputs, events and manifest.json', required: true }),
    'as-of': Flags.string({ description: 'derive profiles as of this date (YYYY-MM-DD; default today)' }),
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
    const spinner = this.interactive ? ora({ stream: process.stderr }).start('nightly job') : undefined
    const manifest = await withTenant(this.dataDir(flags), flags.tenant, (tenant) =>
      runNightly({
        tenant,
        inbox: flags.inbox,
        out: flags.out,
        ...(flags['as-of'] ? { asOf: flags['as-of'] } : {}),
        format: flags.format as 'json',
        onStage: (stage) => {
          if (spinner) spinner.text = `nightly job: ${stage}`
          else this.note(`stage ${stage}`)
        },
      }),
    )
    spinner?.stop()
    this.log(
      `run ${manifest.run_id}: ${manifest.inputs.length} input files, ${manifest.rejected_rows} rejected rows, ${manifest.events} events`,
    )
    this.log(`outputs in ${flags.out} (manifest.json)`)
    if (manifest.rejected_rows > 0) process.exitCode = 3
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
