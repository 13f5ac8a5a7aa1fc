import { existsSync, readFileSync } from 'node:fs'
import { fixturesDir } from '../util/project-paths.js'
import { z } from '../vendor/zod.js'

/**
 * The examples of the OpenAPI document: real requests to a real server over the demo tenant and
 * what it answered (`npm run examples` writes them, see example-run.ts). The document embeds them
 * and the Prism mock serves them.
 */

const QueryValue = z.union([z.string(), z.array(z.string())])

export const OperationExample = z.strictObject({
  request: z.strictObject({
    params: z.record(z.string(), z.string()).optional(),
    query: z.record(z.string(), QueryValue).optional(),
    body: z.unknown().optional(),
  }),
  response: z.strictObject({
    status: z.number().int(),
    body: z.unknown().optional(),
  }),
})
export type OperationExample = z.infer<typeof OperationExample>

export const ErrorExample = z.strictObject({
  /** The request that got the answer, `METHOD path` below the server. */
  request: z.string(),
  content_type: z.string(),
  body: z.unknown(),
})
export type ErrorExample = z.infer<typeof ErrorExample>

export const ExamplesFile = z.strictObject({
  about: z.string(),
  tenant: z.strictObject({ name: z.string(), region: z.string(), as_of: z.string() }),
  /** Per operationId: the request sent and the answer. */
  operations: z.record(z.string(), OperationExample),
  /** Per HTTP status: one real error answer (the example of the statuses an operation has none of its own for). */
  errors: z.record(z.string(), ErrorExample),
  /** Per operationId, other answers by example name: `explained` (4.10, 4.11), `hierarchy` (4.12). */
  variants: z.record(z.string(), z.record(z.string(), OperationExample)),
  /** Per operationId and status (400, 404, 422): the operation's own answer to a bad request. */
  operation_errors: z.record(z.string(), z.record(z.string(), ErrorExample)),
  /** Per event type: one CloudEvent as a consumer receives it. */
  webhooks: z.record(z.string(), z.record(z.string(), z.unknown())),
})
export type ExamplesFile = z.infer<typeof ExamplesFile>

/** Where the checked-in examples live. */
export const examplesPath = () => fixturesDir('openapi', 'examples.json')

/** The file's text: stable key order as collected, two-space indentation, a final newline. */
export function examplesText(examples: ExamplesFile): string {
  return `${JSON.stringify(examples, null, 2)}\n`
}

/** The checked-in examples, or undefined when there are none yet; a malformed file is an error naming it. */
export function loadExamples(path = examplesPath()): ExamplesFile | undefined {
  if (!existsSync(path)) return undefined
  const parsed = ExamplesFile.safeParse(JSON.parse(readFileSync(path, 'utf8')))
  if (!parsed.success) {
    throw new Error(
      `${path} is not an examples file (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); run npm run examples`,
    )
  }
  return parsed.data
}
