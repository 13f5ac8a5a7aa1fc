import { SkillhouseCommand } from '../../src/cli/base-command.js'
import { listTenantsOf } from '../../src/operations/tenant-operations.js'
import type { TenantSummary } from '../../src/tenants/tenant-service.js'

export default class TenantList extends SkillhouseCommand {
  static override summary = 'List tenants with region, counts and last run'
  static override examples = ['<%= config.bin %> tenant list', '<%= config.bin %> tenant list --json']

  async run(): Promise<TenantSummary[]> {
    const { flags } = await this.parse(TenantList)
    const tenants = await listTenantsOf(this.dataDir(flags))
    if (tenants.length === 0) this.log('No tenants yet: run `skillhouse tenant create NAME --region R`.')
    for (const tenant of tenants) {
      const counts = tenant.counts
        ? `${tenant.counts.employees} employees, ${tenant.counts.skill_events} skill events, ${tenant.counts.jobs} jobs, ${tenant.counts.vacancies} vacancies`
        : `(${tenant.note})`
      const lastRun = tenant.last_run
        ? `last run ${tenant.last_run.run_id} ${tenant.last_run.status}`
        : 'no run yet'
      const running = tenant.running
        ? `running ${tenant.running.kind} run ${tenant.running.run_id} (stage ${tenant.running.stage} since ${tenant.running.since})`
        : undefined
      const holder = tenant.served_by
        ? `served by PID ${tenant.served_by.pid} at ${tenant.served_by.url}`
        : tenant.running
          ? `held by PID ${tenant.running.pid}`
          : 'not held'
      this.log(
        [
          `${tenant.tenant}${tenant.default ? ' (default)' : ''}`,
          tenant.region,
          tenant.model_configuration,
          counts,
          lastRun,
          running,
          holder,
        ]
          .filter((field) => field !== undefined)
          .join('\t'),
      )
    }
    return tenants
  }
}
