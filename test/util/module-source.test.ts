import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { codeStamp, workerScriptBeside } from '../../src/util/module-source.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
afterAll(() => temp.cleanup())

describe('codeStamp', () => {
  const base = (dir: string, file = 'base.js') => pathToFileURL(join(temp.dir, dir, file)).href
  const write = (dir: string, files: Record<string, string>) => {
    mkdirSync(join(temp.dir, dir), { recursive: true })
    for (const [name, text] of Object.entries(files)) writeFileSync(join(temp.dir, dir, name), text)
  }

  it('moves when a module the entry imports, directly or not, changes', () => {
    write('chain', {
      'entry.js': "import { a } from './a.js'\nexport const entry = a",
      'a.js': "export { b as a } from './sub/b.js'",
    })
    write('chain/sub', { 'b.js': "import('../a.js')\nexport const b = 1" })
    const before = codeStamp(['entry'], base('chain'))
    expect(codeStamp(['entry'], base('chain'))).toBe(before)
    write('chain/sub', { 'b.js': "import('../a.js')\nexport const b = 2" })
    // Read once per process and list: another list (or process) sees the change.
    expect(codeStamp(['entry', 'a'], base('chain'))).not.toBe(before)
  })

  it('reads the compiled module, else its TypeScript source (under vitest)', () => {
    write('compiled', { 'entry.js': "import './dep.js'", 'dep.js': 'compiled' })
    write('sources', { 'entry.ts': "import './dep.js'", 'dep.ts': 'compiled' })
    expect(codeStamp(['entry'], base('sources', 'base.ts'))).not.toBe(codeStamp(['entry'], base('compiled')))
    expect(() => codeStamp(['missing'], base('compiled'))).toThrow(/ENOENT/)
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
