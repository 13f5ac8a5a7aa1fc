import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { deriveTenantProfiles } from '../src/operations/pipeline-operations.js'
import type { DeriveResult } from '../src/profiles/derive.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Derive extends SkillhouseCommand {
  static override summary = 'Derive skill profiles from skill events and entity changes'
  static override description =
    'Recomputes the profiles of employees, jobs, job families, courses and vacancies whose records or events changed since the last run (all of them with --full or after a vocabulary change), stores them as new versions and appends their CloudEvents to the outbox.'
  static override examples = [
    '<%= config.bin %> derive',
    '<%= config.bin %> derive --full --tenant demo',
    '<%= config.bin %> derive --as-of 2026-11-30 --json',
  ]
  static override flags = {
    tenant: tenantFlag,
    full: Flags.boolean({ description: 'recompute every profile' }),
    'as-of': Flags.string({ description: 'derive as of this date (YYYY-MM-DD; default today)' }),
  }

  async run(): Promise<DeriveResult> {
    const { flags } = await this.parse(Derive)
    const progress = await this.progressReport()
    progress.stage('deriving profiles')
    const result = await this.runOnTenant(
      flags,
      deriveTenantProfiles,
      { ...(flags['as-of'] ? { as_of: flags['as-of'] } : {}), full: flags.full },
      { progress },
    ).finally(() => progress.stop())
    for (const vendor of result.vendors) {
      const counts = Object.entries(vendor.recomputed)
        .map(([entity, count]) => `${count} ${entity}`)
        .join(', ')
      const changed =
        Object.entries(vendor.changed)
          .map(([entity, count]) => `${count} ${entity}`)
          .join(', ') || 'none'
      this.log(
        `${vendor.external_vendor}${vendor.full ? ' (full)' : ''}: recomputed ${counts}; changed ${changed}; ${vendor.events} events`,
      )
    }
    this.log(
      `as of ${result.as_of}, ${(result.text_bytes / 1e6).toFixed(1)} MB of event text in ${result.seconds.toFixed(1)} s`,
    )
    return result
  }
}
