import { readFileSync } from 'node:fs'

/**
 * The source of module `name` beside the module at `base` (its import.meta.url): compiled (.js),
 * or not (.ts, under vitest). What a kept cache's code stamp hashes.
 */
export function moduleSource(name: string, base: string): string {
  try {
    return readFileSync(new URL(`./${name}.js`, base), 'utf8')
  } catch {
    return readFileSync(new URL(`./${name}.ts`, base), 'utf8')
  }
}

/**
 * Whether the code runs compiled (JavaScript, as the CLI and the server do) rather than as its
 * TypeScript sources (vitest): a worker thread loads compiled modules only, so work meant for
 * worker threads runs on the calling thread when this is false.
 */
export const runsCompiled = import.meta.url.endsWith('.js')
