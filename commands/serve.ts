import { SkillhouseCommand } from '../src/cli/base-command.js'
import { LIMITS } from '../src/schemas/limits.js'
import { DEFAULT_RETRY_WINDOW_MS, MAX_RETRY_WINDOW_MS } from '../src/schemas/webhooks.js'
import { DEFAULT_MAX_CONNECTIONS, startServer } from '../src/server/start-server.js'
import { TenantRegistry } from '../src/tenants/tenant-registry.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Serve extends SkillhouseCommand {
  static override summary = 'Serve the HTTP API for every tenant of the data directory'
  static override description =
    'Each tenant answers below its base URL http://HOST:PORT/{tenant}/{region}. Clients get tokens with the client credentials grant at POST /oauth/token (or from an external authorization server with --jwks-file/--jwks-url). Skill events are acknowledged once stored and derived into profiles in the background. CloudEvents of the outbox go to the webhook subscriptions in the background from the start (every tenant with events to deliver is opened at once), each subscription on its own, retried as the --delivery-* flags (or the policy of a subscription) say. Logs are JSON lines on stderr; SIGTERM or SIGINT stops accepting, finishes the requests in flight and closes the databases. While it runs, commands on its tenants hand their work to it over a local channel (serve.json in the data directory); a second serve on the same data directory is refused.'
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --host 0.0.0.0 --port 8443 --max-connections 512',
    '<%= config.bin %> serve --jwks-url https://login.example.com/.well-known/jwks.json --jwt-issuer https://login.example.com/',
  ]
  static override flags = {
    host: Flags.string({ description: 'interface to listen on', default: '127.0.0.1' }),
    origin: Flags.string({
      description:
        'the origin clients reach the server at (e.g. https://skills.example.com behind a proxy): the base URL of the sources of the CloudEvents it sends; default the origin each request reached',
    }),
    port: Flags.integer({
      description: 'port to listen on (0: any free port)',
      default: 8080,
      min: 0,
      max: 65535,
    }),
    'body-limit': Flags.integer({
      description: 'largest request body in bytes (413 above it)',
      default: LIMITS.bodyBytes,
      min: 1,
    }),
    'max-connections': Flags.integer({
      description: 'open connections served at once (503 `max connections reached` above it)',
      default: DEFAULT_MAX_CONNECTIONS,
      min: 1,
    }),
    'jwks-file': Flags.string({
      description: 'accept tokens signed by the keys of this JWKS file',
      exclusive: ['jwks-url'],
    }),
    'jwks-url': Flags.string({
      description: 'accept tokens signed by the keys published at this URL',
      exclusive: ['jwks-file'],
    }),
    'jwt-issuer': Flags.string({ description: 'with --jwks-*: the iss tokens must carry' }),
    'jwt-audience': Flags.string({ description: 'with --jwks-*: the aud tokens must carry' }),
    'delivery-window': Flags.integer({
      description:
        'webhook delivery: how long an event is retried after it was queued before it is dead (ms; default 24 h)',
      default: DEFAULT_RETRY_WINDOW_MS,
      min: 0,
      max: MAX_RETRY_WINDOW_MS,
      helpGroup: 'WEBHOOKS',
    }),
    'delivery-backoff': Flags.integer({
      description:
        'webhook delivery: nominal wait before the first retry (ms); doubled per retry up to the cap, each drawn between half and the whole',
      default: 1000,
      min: 1,
      helpGroup: 'WEBHOOKS',
    }),
    'delivery-backoff-cap': Flags.integer({
      description: 'webhook delivery: longest nominal wait between two attempts (ms; default 1 h)',
      default: 3_600_000,
      min: 1,
      helpGroup: 'WEBHOOKS',
    }),
    'delivery-timeout': Flags.integer({
      description: 'webhook delivery: how long one attempt waits for an answer (ms)',
      default: 10_000,
      min: 1,
      helpGroup: 'WEBHOOKS',
    }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve)
    const dataDir = this.dataDir(flags)
    const external = flags['jwks-file'] || flags['jwks-url']
    const server = await startServer({
      dataDir,
      host: flags.host,
      port: flags.port,
      bodyLimit: flags['body-limit'],
      ...(flags.origin ? { origin: flags.origin } : {}),
      maxConnections: flags['max-connections'],
      webhookDelivery: {
        windowMs: flags['delivery-window'],
        backoffBaseMs: flags['delivery-backoff'],
        backoffCapMs: flags['delivery-backoff-cap'],
        timeoutMs: flags['delivery-timeout'],
      },
      ...(external
        ? {
            jwks: {
              jwksFile: flags['jwks-file'],
              jwksUrl: flags['jwks-url'],
              issuer: flags['jwt-issuer'],
              audience: flags['jwt-audience'],
            },
          }
        : {}),
    })
    const tenants = TenantRegistry.load(dataDir)
      .list()
      .map((entry) => ({
        tenant: entry.settings.name,
        base_url: `${server.url}/${entry.settings.name}/${entry.settings.region}`,
      }))
    if (this.jsonEnabled()) {
      process.stdout.write(`${JSON.stringify({ url: server.url, tenants })}\n`)
    } else {
      this.log(`skillhouse serving on ${server.url}`)
      for (const tenant of tenants) this.log(`  ${tenant.base_url}`)
      this.log(`  API reference ${server.url}/docs (the document: ${server.url}/openapi.json)`)
      if (tenants.length === 0) this.log('  (no tenants yet: `skillhouse tenant create NAME --region R`)')
    }
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGTERM', stop)
        process.off('SIGINT', stop)
        resolve()
      }
      process.on('SIGTERM', stop)
      process.on('SIGINT', stop)
    })
    await server.close()
  }
}
