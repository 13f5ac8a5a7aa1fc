import { SCOPES, type Scope } from '../../src/auth/access-tokens.js'
import { type CreatedClient, createClient } from '../../src/auth/oauth-clients.js'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class ClientCreate extends SkillhouseCommand {
  static override summary = 'Create an OAuth client of a tenant'
  static override description =
    'Adds a client for the client credentials grant (POST /oauth/token). The secret is printed this once and stored only as a salted scrypt hash.'
  static override examples = [
    '<%= config.bin %> client create --tenant demo',
    '<%= config.bin %> client create --tenant demo --scope read --json',
  ]
  static override flags = {
    tenant: tenantFlag,
    scope: Flags.string({
      description: 'scope the client may ask for (repeatable; default read and write)',
      options: [...SCOPES],
      multiple: true,
    }),
  }

  async run(): Promise<CreatedClient> {
    const { flags } = await this.parse(ClientCreate)
    const client = createClient(this.dataDir(flags), flags.tenant, (flags.scope ?? []) as Scope[])
    this.log(`Created client of tenant ${client.tenant} (${client.scopes.join(' ')})`)
    this.log(`  client id      ${client.client_id}`)
    this.log(`  client secret  ${client.client_secret}   (shown once; stored hashed)`)
    return client
  }
}
