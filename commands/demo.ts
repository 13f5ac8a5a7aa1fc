import { resolve } from 'node:path'
import { SkillhouseCommand } from '../src/cli/base-command.js'
import { demoRun } from '../src/operations/pipeline-operations.js'
import { DEMO_TENANT, ensureDemoTenant } from '../src/pipeline/demo-tenant.js'
import { futureDatedWarning } from '../src/pipeline/future-dated.js'
import type { RunManifest } from '../src/pipeline/nightly-run.js'
import { removeTenant } from '../src/tenants/tenant-service.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Demo extends SkillhouseCommand {
  static override summary = 'Create the demo tenant from fixtures/demo and run the nightly job on it'
  static override description =
    'Creates the `demo` tenant (if it does not exist yet; the default tenant when there is none) in the data directory, loads the postal codes its addresses use (a GeoNames extract, fixtures/postal-codes) and runs the nightly job with fixtures/demo as its inbox. Safe to run again: an existing demo tenant keeps its data and unchanged input changes nothing; --reset builds it anew.'
  static override examples = [
    '<%= config.bin %> demo',
    '<%= config.bin %> demo --out demo-out --data-dir demo-data',
    '<%= config.bin %> demo --reset',
  ]
  static override flags = {
    out: Flags.string({ description: 'where the outputs go', default: 'out/demo' }),
    reset: Flags.boolean({
      description: 'delete the demo tenant (its database and its caches) first, and build it again',
    }),
  }

  async run(): Promise<RunManifest & { data_dir: string; out: string }> {
    const { flags } = await this.parse(Demo)
    const dataDir = this.dataDir(flags)
    if (flags.reset) await removeTenant(dataDir, DEMO_TENANT).catch(ignoreMissing)
    const created = await ensureDemoTenant(dataDir)
    const progress = await this.progressReport()
    progress.stage('nightly job')
    const manifest = await this.runOnTenant(
      { ...flags, tenant: DEMO_TENANT },
      demoRun,
      { out: resolve(flags.out) },
      { progress },
    ).finally(() => progress.stop())
    if (created) {
      this.log(`Created tenant demo: ${created.base_url}`)
      this.log(`  OAuth client ${created.client_id} / ${created.client_secret} (shown once)`)
    } else {
      this.log(
        'Tenant demo exists: its data is kept, and the demo inbox was read again (below: what it changed)',
      )
      this.log('  (`skillhouse demo --reset` builds it anew from fixtures/demo)')
    }
    for (const input of manifest.inputs) {
      const written = input.written === 0 ? 'unchanged' : `${input.written} written`
      this.log(
        `${input.entity.padEnd(28)} ${String(input.rows).padStart(7)} rows  ${written}${input.rejected ? `, ${input.rejected} rejected` : ''}`,
      )
    }
    this.log(
      `Run ${manifest.run_id} finished in ${Object.values(manifest.timings)
        .reduce((a, b) => a + b, 0)
        .toFixed(1)} s`,
    )
    const future = futureDatedWarning(manifest.future_dated_events)
    if (future) this.log(future)
    this.log(`  data directory  ${dataDir}`)
    this.log(`  outputs         ${flags.out} (manifest.json, events/)`)
    this.log(
      `  try             npx skillhouse profile employee emp-10001 --tenant demo${dataDir === this.dataDir({}) ? '' : ` --data-dir ${dataDir}`}`,
    )
    return { ...manifest, data_dir: dataDir, out: flags.out }
  }
}

/** `--reset` of a data directory without a demo tenant: nothing to delete. */
function ignoreMissing(error: unknown): void {
  if ((error as { status?: number }).status !== 404) throw error
}
