import { SCOPES, type Scope } from '../src/auth/access-tokens.js'
import { type LocalToken, mintLocalToken } from '../src/auth/oauth-clients.js'
import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Token extends SkillhouseCommand {
  static override summary = 'Mint a short-lived access token for local testing'
  static override description =
    "Signs a token for the tenant with the data directory's signing key (the key `skillhouse serve` checks tokens with; created when missing). Prints the token alone, so that it fits in a shell variable; --json prints it with its scope and lifetime. For clients, use POST /oauth/token with a client of `skillhouse client create`."
  static override examples = [
    'TOKEN=$(<%= config.bin %> token --tenant demo)',
    'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:8080/demo/eu/taxonomy/skills/languages',
    '<%= config.bin %> token --tenant demo --scope read --expires-in 60 --json',
  ]
  static override flags = {
    tenant: tenantFlag,
    scope: Flags.string({
      description: 'scope of the token (repeatable; default read and write)',
      options: [...SCOPES],
      multiple: true,
    }),
    'expires-in': Flags.integer({ description: 'lifetime in seconds (1 to 86400)', default: 900 }),
  }

  async run(): Promise<LocalToken> {
    const { flags } = await this.parse(Token)
    const token = await mintLocalToken(
      this.dataDir(flags),
      flags.tenant,
      (flags.scope ?? []) as Scope[],
      flags['expires-in'],
    )
    this.log(token.access_token)
    return token
  }
}
