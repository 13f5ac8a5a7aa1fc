import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fixturesDir, projectRoot } from '../../src/util/project-paths.js'

describe('project paths', () => {
  it('finds the checkout by its package.json and gives the same root every time', () => {
    const root = projectRoot()
    expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name).toBe('skillhouse')
    expect(projectRoot()).toBe(root)
  })

  it('names folders under fixtures/', () => {
    expect(fixturesDir('vocabulary', 'default')).toBe(
      join(projectRoot(), 'fixtures', 'vocabulary', 'default'),
    )
    expect(existsSync(fixturesDir('vocabulary', 'default'))).toBe(true)
  })
})
