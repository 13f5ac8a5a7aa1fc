import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { moduleSource } from '../../src/util/module-source.js'
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
