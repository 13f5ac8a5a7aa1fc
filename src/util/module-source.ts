import { existsSync, readFileSync } from 'node:fs'

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
 * The compiled worker script `name` beside the module at `base` (its import.meta.url), the
 * default script of a worker pool; undefined where there is none (the module runs from its
 * TypeScript sources, under vitest), since a worker thread loads JavaScript only. Pools take
 * their script as an option, so tests run them on the built script (dist/).
 */
export function workerScriptBeside(name: string, base: string): URL | undefined {
  const script = new URL(`./${name}.js`, base)
  return existsSync(script) ? script : undefined
}
