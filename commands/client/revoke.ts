import { type ClientSummary, revokeClient } from '../../src/auth/oauth-clients.js'
import { SkillhouseCommand } from '../../src/cli/base-command.js'
import { Args } from '../../src/vendor/oclif.js'

export default class ClientRevoke extends SkillhouseCommand {
  static override summary = 'Revoke an OAuth client'
  static override description =
    'The client gets no new tokens, and a running server refuses the tokens it already has (401). Revoking a revoked client changes nothing.'
  static override examples = ['<%= config.bin %> client revoke CLIENT_ID']
  static override args = {
    client_id: Args.string({ description: 'the client to revoke', required: true }),
  }

  async run(): Promise<ClientSummary> {
    const { args, flags } = await this.parse(ClientRevoke)
    const client = revokeClient(this.dataDir(flags), args.client_id)
    this.log(`Client ${client.client_id} of tenant ${client.tenant} revoked at ${client.revoked_at}`)
    return client
  }
}
