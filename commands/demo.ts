import { SkillhouseCommand } from '../src/cli/base-command.js'
import { runDemo } from '../src/pipeline/demo-tenant.js'
import type { RunManifest } from '../src/pipeline/nightly-run.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Demo extends SkillhouseCommand {
  static override summary = 'Create the demo tenant from fixtures/demo and run the nightly job on it'
  static override description =
    'Creates the `demo` tenant (if it does not exist yet) in the data directory, loads the postal codes its addresses use (a GeoNames extract, fixtures/postal-codes) and runs the nightly job with fixtures/demo as its inbox. Safe to run again: unchanged input changes nothing.'
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --out demo-out --data-dir demo-data',
  ]
  static override flags = {
    out: Flags.string({ description: 'where the outputs go', default: 'out/demo' }),
  }

  async run(): Promise<RunManifest & { data_dir: string; out: string }> {
    const { flags } = await this.parse(Demo)
    const dataDir = this.dataDir(flags)
    const spinner = (await this.spinner())?.start('nightly job')
    const { created, manifest } = await runDemo({
      dataDir,
      out: flags.out,
      onStage: (stage) => {
        if (spinner) spinner.text = `nightly job: ${stage}`
      },
    }).finally(() => spinner?.stop())
    if (created) {
      this.log(`Created tenant demo: ${created.base_url}`)
      this.log(`  OAuth client ${created.client_id} / ${created.client_secret} (shown once)`)
    }
    for (const input of manifest.inputs) {
      this.log(
        `${input.entity.padEnd(28)} ${String(input.rows).padStart(7)} rows  ${input.rejected ? `${input.rejected} rejected` : ''}`,
      )
    }
    this.log(
      `Run ${manifest.run_id} finished in ${Object.values(manifest.timings)
        .reduce((a, b) => a + b, 0)
        .toFixed(1)} s`,
    )
    this.log(`  data directory  ${dataDir}`)
    this.log(`  outputs         ${flags.out} (manifest.json, events/)`)
    this.log(
      `  try             npx skillhouse profile employee emp-10001 --tenant demo${dataDir === this.dataDir({}) ? '' : ` --data-dir ${dataDir}`}`,
    )
    return { ...manifest, data_dir: dataDir, out: flags.out }
  }
}
