import { join } from 'node:path'
import { execa } from 'execa'
import { describe, expect, it } from 'vitest'
import { projectRoot } from '../../src/util/project-paths.js'
import { STALE_MESSAGE } from '../../tools/write-examples.js'

describe('the examples of the OpenAPI document', () => {
  it('are what the code answers now on the demo tenant', async () => {
    // The built script as `npm run examples` runs it (a fresh demo tenant and a real server), in
    // its check mode: it compares with fixtures/openapi/examples.json byte for byte.
    const check = await execa(
      'node',
      [join(projectRoot(), 'dist', 'tools', 'write-examples.js'), '--check'],
      {
        reject: false,
        cwd: projectRoot(),
        env: { NO_COLOR: '1' },
      },
    )
    if (check.exitCode !== 0) throw new Error(`${STALE_MESSAGE}\n${String(check.stderr)}`)
    expect(String(check.stderr)).toContain('is current')
  })
})
