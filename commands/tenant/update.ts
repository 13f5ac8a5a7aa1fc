import { SkillhouseCommand } from '../../src/cli/base-command.js'
import { activationFlags, TENANT_SETTING_FLAGS } from '../../src/cli/shared-flags.js'
import { errors } from '../../src/errors/skillhouse-error.js'
import { updateTenantSettings } from '../../src/operations/tenant-operations.js'
import type { TenantSettings } from '../../src/schemas/tenant-settings.js'
import { Args } from '../../src/vendor/oclif.js'

export default class TenantUpdate extends SkillhouseCommand {
  static override summary = 'Activate vocabulary vendors and languages on an existing tenant'
  static override description =
    'Adds to what the tenant has activated (nothing is deactivated). Activate vendor_a before importing an ESCO download into it; its own languages (es, it, pt, …) need it too.'
  static override examples = [
    '<%= config.bin %> tenant update demo --vendor vendor_a',
    '<%= config.bin %> tenant update demo --language es --language it',
  ]
  static override args = {
    name: Args.string({ description: 'tenant name', required: true }),
  }
  static override fieldFlags = TENANT_SETTING_FLAGS

  static override flags = {
    ...activationFlags(),
  }

  async run(): Promise<TenantSettings> {
    const { args, flags } = await this.parse(TenantUpdate)
    if (!flags.vendor?.length && !flags.language?.length)
      throw errors.badRequest('name what to activate: --vendor V and/or --language L')
    const settings = await this.runOnTenant(
      flags,
      updateTenantSettings,
      { vendors: flags.vendor, languages: flags.language },
      { tenant: args.name },
    )
    this.log(`Tenant ${settings.name}`)
    this.log(`  vendors    ${settings.vendors.join(', ')}`)
    this.log(`  languages  ${settings.languages.join(', ')}`)
    return settings
  }
}
