import { Flags } from '@oclif/core'
import ora from 'ora'
import { SkillhouseCommand } from '../src/cli/base-command.js'
import { type RunManifest, runNightly } from '../src/pipeline/nightly-run.js'
import { initialiseTenant } from '../src/tenants/initialise-tenant.js'
import { TenantRegistry } from '../src/tenants/tenant-registry.js'
import { createTenant, withTenant } from '../src/tenants/tenant-service.js'
import { fixturesDir } from '../src/util/project-paths.js'

export default class Demo extends SkillhouseCommand {
  static override summary = 'Create the demo tenant from fixtures/demo and run the nightly job on it'
  static override description =
    'Creates the `demo` tenant (if it does not exist yet) in the data directory and runs the nightly job with fixtures/demo as its inbox. Safe to run again: unchanged input changes nothing.'
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --out /tmp/demo-out --data-dir /tmp/demo-data',
  ]
  static override flags = {
    out: Flags.string({ description: 'where the outputs go', default: 'out/demo' }),
  }

  async run(): Promise<RunManifest & { data_dir: string; out: string }> {
    const { flags } = await this.parse(Demo)
    const dataDir = this.dataDir(flags)
    if (!TenantRegistry.load(dataDir).find('demo')) {
      const created = await createTenant({
        dataDir,
        name: 'demo',
        region: 'eu',
        modelConfiguration: 'MC_2025_Q1_V1',
        proficiencyMatching: true,
        useCriticalities: true,
        initialise: initialiseTenant,
      })
      this.log(`Created tenant demo: ${created.base_url}`)
      this.log(`  OAuth client ${created.client_id} / ${created.client_secret} (shown once)`)
    }
    const spinner = this.interactive ? ora({ stream: process.stderr }).start('nightly job') : undefined
    const manifest = await withTenant(dataDir, 'demo', (tenant) =>
      runNightly({
        tenant,
        inbox: fixturesDir('demo'),
        out: flags.out,
        onStage: (stage) => {
          if (spinner) spinner.text = `nightly job: ${stage}`
        },
      }),
    )
    spinner?.stop()
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
