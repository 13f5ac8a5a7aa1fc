import { SkillhouseCommand } from '../src/cli/base-command.js'
import { startMock } from '../src/mock/prism-mock.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Mock extends SkillhouseCommand {
  static override summary = 'Serve the OpenAPI document with Prism: a mock of the HTTP API, fully offline'
  static override description =
    "Starts Prism 4 on the generated OpenAPI document, behind a small front on --host and --port. Every GET answers its example (real answers of the demo tenant), POSTs that compute answer theirs, `/oauth/token` a token of the server's shape. A request that breaks the document gets the error `serve` answers, in the spec's shape and words: 401 without an Authorization header (any bearer token is taken), 404 for a region or path that does not exist, 405 for another method, and 400, 413, 415 or 422 for a query or body the server refuses. Other named examples come with `Prefer: example=NAME`: `explained` (4.10 and 4.11, also picked by ?response_format=explained) and `hierarchy` (4.12, also picked by ?format=hierarchy). `Prefer: dynamic=true` (or --dynamic) generates answers from the schemas. A tenant's base URL on the mock is http://HOST:PORT/{tenant}/{region}, as on `serve` (any tenant name, a known region); /healthz and /oauth/token sit at the root. The API reference is at /docs and the document at /openapi.json. Prism's own log goes to stderr with --prism-log; SIGINT or SIGTERM stops it, and Prism never outlives the command (a `kill -9` included)."
  static override examples = [
    '<%= config.bin %> mock',
    '<%= config.bin %> mock --port 4011 --dynamic',
    'curl -H "Authorization: Bearer any" -H "Prefer: example=hierarchy" http://127.0.0.1:4010/demo/eu/job_architecture/job_families/jf-customer-service/skill_profile',
    'curl -H "Authorization: Bearer any" http://127.0.0.1:4010/demo/eu/employees/emp-10001/skill_profile',
  ]
  static override flags = {
    port: Flags.integer({ description: 'port to listen on', default: 4010, min: 1, max: 65535 }),
    host: Flags.string({ description: 'interface to listen on', default: '127.0.0.1' }),
    dynamic: Flags.boolean({ description: 'generate answers from the schemas instead of the examples' }),
    'prism-log': Flags.boolean({
      description: "print Prism's own log lines (its routes, each request) to stderr",
    }),
  }

  async run(): Promise<void> {
    const { flags } = await this.parse(Mock)
    const mock = await startMock({
      port: flags.port,
      host: flags.host,
      dynamic: flags.dynamic,
      ...(flags['prism-log'] ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    })
    if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify({ url: mock.url, pid: mock.pid })}\n`)
    else {
      this.log(`Prism mock of the Skills Service API on ${mock.url}`)
      this.log(
        `  base URL       ${mock.url}/{tenant}/{region}, e.g. ${mock.url}/demo/eu (send any bearer token)`,
      )
      this.log(`  API reference  ${mock.url}/docs (the document: ${mock.url}/openapi.json)`)
    }
    const stop = (signal: NodeJS.Signals) => {
      void mock.stop(signal)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    const code = await mock.exited
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
    // Prism ends with a signal or 0 when we stopped it; anything else is a failure of its own.
    if (code !== null && code !== 0) this.error(`Prism stopped with exit code ${code}`, { exit: 1 })
  }
}
