import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * `npm run lint:docs`: fails when docs/commands.md is not what `oclif readme` makes of the built
 * commands today (run `npm run docs` to write it again).
 */
const target = 'docs/commands.md'
const scratch = mkdtempSync(join(tmpdir(), 'skillhouse-commands-doc-'))
try {
  const copy = join(scratch, 'commands.md')
  copyFileSync(target, copy)
  execFileSync('node_modules/.bin/oclif', ['readme', '--readme-path', copy, '--no-source-links'], {
    env: { ...process.env, COLUMNS: '120', OCLIF_SKIP_NEW_VERSION_CHECK: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  if (readFileSync(copy, 'utf8') !== readFileSync(target, 'utf8')) {
    console.error(`${target} is stale: run npm run docs`)
    process.exit(1)
  }
  console.log(`${target} is current`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
