import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let root: string | undefined

/** The skillhouse checkout this code runs from (compiled in dist/ or as TypeScript in src/). */
export function projectRoot(): string {
  if (root) return root
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'skillhouse') {
      root = dir
      return dir
    }
    const parent = dirname(dir)
    if (parent === dir) throw new Error('cannot find the skillhouse package.json above the running code')
    dir = parent
  }
}

export const fixturesDir = (...parts: string[]) => join(projectRoot(), 'fixtures', ...parts)
