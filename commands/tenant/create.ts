import { SkillhouseCommand } from '../../src/cli/base-command.js'
import { activationFlags, TENANT_SETTING_FLAGS } from '../../src/cli/shared-flags.js'
import { MODEL_CONFIGURATIONS, REGIONS } from '../../src/schemas/tenant-settings.js'
import { initialiseTenant } from '../../src/tenants/initialise-tenant.js'
import { type CreatedTenant, createTenant } from '../../src/tenants/tenant-service.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class TenantCreate extends SkillhouseCommand {
  static override summary = 'Create a tenant and its database'
  static override description =
    'Creates the tenant database (schema migrated, default vocabulary loaded) and an OAuth client. Prints the base URL and the client id and secret; the secret is shown only now.'
  static override examples = [
    '<%= config.bin %> tenant create acme --region eu',
    '<%= config.bin %> tenant create globex --region eu --model-config MC_2024_Q3_V1 --vendor vendor_a --proficiency-matching',
  ]
  static override args = {
    name: Args.string({ description: 'tenant name (lower-case letters, digits, hyphens)', required: true }),
  }
  static override fieldFlags = TENANT_SETTING_FLAGS

  static override flags = {
    region: Flags.string({ description: 'region of the tenant', options: [...REGIONS], required: true }),
    'model-config': Flags.string({ description: 'model configuration', options: [...MODEL_CONFIGURATIONS] }),
    ...activationFlags(),
    'proficiency-matching': Flags.boolean({
      description: 'enable matching with skill properties (proficiency)',
    }),
    'use-criticalities': Flags.boolean({ description: 'enable the use_criticalities feature flag' }),
    origin: Flags.string({
      description: 'origin the server is reached at',
      default: 'http://127.0.0.1:8080',
    }),
  }

  async run(): Promise<CreatedTenant> {
    const { args, flags } = await this.parse(TenantCreate)
    const created = await createTenant({
      dataDir: this.dataDir(flags),
      name: args.name,
      region: flags.region,
      modelConfiguration: flags['model-config'],
      vendors: flags.vendor,
      languages: flags.language,
      proficiencyMatching: flags['proficiency-matching'],
      useCriticalities: flags['use-criticalities'],
      origin: flags.origin,
      initialise: initialiseTenant,
    })
    this.log(`Created tenant ${created.tenant} (${created.region}, ${created.settings.model_configuration})`)
    this.log(`  database       ${created.database}`)
    this.log(`  base URL       ${created.base_url}`)
    this.log(`  client id      ${created.client_id}`)
    this.log(`  client secret  ${created.client_secret}   (shown once; stored hashed)`)
    return created
  }
}
