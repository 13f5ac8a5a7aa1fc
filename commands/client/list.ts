import { type ClientSummary, listClients } from '../../src/auth/oauth-clients.js'
import { SkillhouseCommand } from '../../src/cli/base-command.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class ClientList extends SkillhouseCommand {
  static override summary = 'List the OAuth clients of a tenant (of every tenant without --tenant)'
  static override examples = [
    '<%= config.bin %> client list',
    '<%= config.bin %> client list --tenant demo --json',
  ]
  static override flags = {
    tenant: Flags.string({
      description: 'tenant whose clients to list (default: every tenant)',
      helpGroup: 'GLOBAL',
    }),
  }

  async run(): Promise<ClientSummary[]> {
    const { flags } = await this.parse(ClientList)
    const clients = listClients(this.dataDir(flags), flags.tenant)
    if (clients.length === 0) this.log('No clients.')
    for (const client of clients) {
      const state = client.revoked_at ? `revoked ${client.revoked_at}` : 'active'
      this.log(
        `${client.tenant}\t${client.client_id}\t${client.scopes.join(' ')}\t${state}\tcreated ${client.created_at}`,
      )
    }
    return clients
  }
}
