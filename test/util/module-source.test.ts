import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { moduleSource, workerScriptBeside } from '../../src/util/module-source.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

describe('moduleSource', () => {
  it('reads the compiled module beside the base, else the TypeScript one', () => {
    const both = join(temp.dir, 'both')
    const tsOnly = join(temp.dir, 'ts-only')
    for (const dir of [both, tsOnly]) mkdirSync(dir)
    writeFileSync(join(both, 'cache.js'), 'compiled')
    writeFileSync(join(both, 'cache.ts'), 'typescript')
    writeFileSync(join(tsOnly, 'cache.ts'), 'typescript only')
    expect(moduleSource('cache', pathToFileURL(join(both, 'base.js')).href)).toBe('compiled')
    expect(moduleSource('cache', pathToFileURL(join(tsOnly, 'base.ts')).href)).toBe('typescript only')
  })

  it('fails when neither exists', () => {
    expect(() => moduleSource('missing', pathToFileURL(join(temp.dir, 'base.js')).href)).toThrow(/ENOENT/)
  })
})

describe('workerScriptBeside', () => {
  it('finds the compiled script beside the module, and none beside the sources vitest runs', () => {
    const compiled = join(projectRoot(), 'dist', 'src', 'matching', 'match-jobs.js')
    const script = workerScriptBeside('job-match-worker', pathToFileURL(compiled).href)
    expect(script?.href).toBe(
      pathToFileURL(join(projectRoot(), 'dist', 'src', 'matching', 'job-match-worker.js')).href,
    )
    const source = join(projectRoot(), 'src', 'matching', 'match-jobs.ts')
    expect(workerScriptBeside('job-match-worker', pathToFileURL(source).href)).toBeUndefined()
  })
})
