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
