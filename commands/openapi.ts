import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { SkillhouseCommand } from '../src/cli/base-command.js'
import { openApiDocument, openApiJson, writeOpenApiDocument } from '../src/openapi/openapi-document.js'
import { Flags } from '../src/vendor/oclif.js'

export interface OpenApiSummary {
  path: string
  paths: number
  operations: number
  webhooks: number
}

export default class OpenApi extends SkillhouseCommand {
  static override summary = 'Write the OpenAPI 3.1 document of the HTTP API'
  static override description =
    "Generated from the zod schemas the server validates with and from the server's own routes: every path and method `skillhouse serve` answers (below a tenant's base URL, plus /healthz and /oauth/token), their parameters with their limits, request and response bodies, the spec's error responses, the OAuth 2.0 client credentials scheme with the scope of each operation, and the webhook events of section 6. The examples are real answers over the demo tenant (fixtures/openapi/examples.json, `npm run examples`). Without --out the document goes to stdout."
  static override examples = [
    '<%= config.bin %> openapi --out openapi.json',
    '<%= config.bin %> openapi > openapi.json',
  ]
  static override flags = {
    out: Flags.string({ description: 'file to write (its folder is created)' }),
  }

  async run(): Promise<OpenApiSummary | undefined> {
    const { flags } = await this.parse(OpenApi)
    const document = openApiDocument()
    if (flags.out === undefined) {
      process.stdout.write(openApiJson(document))
      return undefined
    }
    mkdirSync(dirname(flags.out), { recursive: true })
    writeOpenApiDocument(flags.out, document)
    const paths = Object.values(document.paths ?? {})
    const summary: OpenApiSummary = {
      path: flags.out,
      paths: paths.length,
      operations: paths.reduce(
        (sum, item) => sum + ['get', 'post', 'patch', 'delete'].filter((method) => method in item).length,
        0,
      ),
      webhooks: Object.keys(document.webhooks ?? {}).length,
    }
    this.log(
      `OpenAPI ${document.openapi}: ${summary.paths} paths, ${summary.operations} operations, ${summary.webhooks} webhooks written to ${flags.out}`,
    )
    return summary
  }
}
