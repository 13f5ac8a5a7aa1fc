import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { execa } from 'execa'
import { writeOpenApiDocument } from '../src/openapi/openapi-document.js'
import { projectRoot } from '../src/util/project-paths.js'

/**
 * `npm run lint:openapi`: generates the document into a temporary file and lints it with Spectral's
 * OpenAPI rules (.spectral.yaml, `extends: ["spectral:oas"]`, built into Spectral: nothing is
 * fetched). Fails on any error; warnings are shown.
 */

/** The Spectral CLI script of the installed @stoplight/spectral-cli. */
function spectralScript(): string {
  const require = createRequire(import.meta.url)
  const manifest = require.resolve('@stoplight/spectral-cli/package.json')
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> }).bin.spectral
  if (!bin) throw new Error(`${manifest} names no spectral binary`)
  return join(dirname(manifest), bin)
}

const folder = mkdtempSync(join(tmpdir(), 'skillhouse-openapi-lint-'))
try {
  const document = join(folder, 'openapi.json')
  writeOpenApiDocument(document)
  const result = await execa(
    process.execPath,
    [
      spectralScript(),
      'lint',
      '--ruleset',
      join(projectRoot(), '.spectral.yaml'),
      '--fail-severity',
      'error',
      document,
    ],
    { reject: false, stdio: 'inherit' },
  )
  process.exitCode = result.exitCode ?? 1
} finally {
  rmSync(folder, { recursive: true, force: true })
}
