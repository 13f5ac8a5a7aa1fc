import { SkillhouseCommand } from '../../src/cli/base-command.js'
import { errors } from '../../src/errors/skillhouse-error.js'
import { TenantRegistry } from '../../src/tenants/tenant-registry.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class TenantUse extends SkillhouseCommand {
  static override summary = 'Make a tenant the default of the data directory'
  static override description =
    'Commands that name no tenant (no --tenant, no SKILLHOUSE_TENANT) work on the default tenant; without one, on the only tenant, and with several they ask for a name. `tenant list` marks the default.'
  static override examples = ['<%= config.bin %> tenant use demo', '<%= config.bin %> tenant use --clear']
  static override args = {
    name: Args.string({ description: 'tenant name' }),
  }
  static override flags = {
    clear: Flags.boolean({ description: 'have no default tenant' }),
  }

  async run(): Promise<{ default_tenant: string | null }> {
    const { args, flags } = await this.parse(TenantUse)
    if (flags.clear && args.name !== undefined)
      throw errors.badRequest('tenant use: give a NAME or --clear, not both')
    const name = flags.clear ? undefined : args.name
    if (!flags.clear && name === undefined) {
      const current = TenantRegistry.load(this.dataDir(flags)).defaultTenant
      this.log(current ? `default tenant: ${current.settings.name}` : 'no default tenant')
      return { default_tenant: current?.settings.name ?? null }
    }
    TenantRegistry.update(this.dataDir(flags), (registry) => registry.setDefault(name))
    this.log(name ? `default tenant: ${name}` : 'no default tenant')
    return { default_tenant: name ?? null }
  }
}
