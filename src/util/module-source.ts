import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'

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

/** A relative import on a line of code: a static one (`from`, or a side effect) or a dynamic one. */
const RELATIVE_IMPORT = /(?:\bfrom\s*|^import\s*|\bimport\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g

/** The relative imports of a module's text, comments left out. */
function relativeImports(text: string): string[] {
  const found: string[] = []
  for (const line of text.split('\n')) {
    const code = line.trim()
    if (code.startsWith('*') || code.startsWith('/')) continue
    for (const match of code.matchAll(RELATIVE_IMPORT)) found.push(match[1] as string)
  }
  return found
}

/**
 * A stamp of the code of modules `names` (beside the module at `base`) and of every module they
 * import, directly or not, by relative path: what a cache kept on disk depends on besides its
 * data, so that a kept value made by other code is made again. Read once per process and list.
 */
export function codeStamp(names: readonly string[], base: string): string {
  const key = `${base}\u0000${names.join('\u0000')}`
  const known = codeStamps.get(key)
  if (known !== undefined) return known
  const hash = createHash('sha256')
  const seen = new Set<string>()
  const visit = (url: URL) => {
    const source = readModule(url)
    if (seen.has(source.url.href)) return
    seen.add(source.url.href)
    hash.update(source.url.pathname.slice(source.url.pathname.lastIndexOf('/') + 1))
    hash.update(source.text)
    for (const imported of relativeImports(source.text)) visit(new URL(imported, source.url))
  }
  for (const name of names) visit(new URL(`./${name}.js`, base))
  const stamp = hash.digest('base64url')
  codeStamps.set(key, stamp)
  return stamp
}

const codeStamps = new Map<string, string>()

/** A module's text: compiled (.js), else its TypeScript source (under vitest). */
function readModule(url: URL): { url: URL; text: string } {
  if (existsSync(url)) return { url, text: readFileSync(url, 'utf8') }
  const source = new URL(url.href.replace(/\.js$/, '.ts'))
  return { url: source, text: readFileSync(source, 'utf8') }
}
