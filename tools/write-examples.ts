import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import { examplesPath, examplesText } from '../src/openapi/examples-file.js'
import { writeFileAtomic } from '../src/util/atomic-file.js'
import { collectExamples } from './example-run.js'

/**
 * `npm run examples`: collects the examples (example-run.ts) and writes fixtures/openapi/examples.json.
 * With `--check` it writes nothing and fails when the checked-in file differs from a fresh run.
 */

/** The message of a stale examples file, the same for the script and the test. */
export const STALE_MESSAGE = 'examples are stale: run npm run examples'

/** Whether the checked-in file holds exactly `text`. */
export function examplesCurrent(text: string, path = examplesPath()): boolean {
  return existsSync(path) && readFileSync(path, 'utf8') === text
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check')
  const log = (line: string) => process.stderr.write(`${line}\n`)
  const text = examplesText(await collectExamples({ log: check ? () => undefined : log }))
  const path = examplesPath()
  if (check) {
    if (!examplesCurrent(text, path)) {
      process.stderr.write(`${STALE_MESSAGE} (${path} differs from what the code answers now)\n`)
      process.exitCode = 1
      return
    }
    process.stderr.write(`${path} is current\n`)
    return
  }
  mkdirSync(dirname(path), { recursive: true })
  writeFileAtomic(path, text)
  process.stderr.write(`wrote ${path}\n`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
