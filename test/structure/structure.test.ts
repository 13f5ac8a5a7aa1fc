import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { functionLengths, importCycles, importGraph, MAX_FUNCTION_LINES } from './code-structure.js'

const root = resolve(import.meta.dirname, '../..')

describe('the code of src/ and commands/', () => {
  it('has no import cycle', () => {
    expect(importCycles(importGraph(root))).toEqual([])
  })

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = functionLengths(root)
      .filter((entry) => entry.lines > MAX_FUNCTION_LINES)
      .map(({ file, line, name, lines }) => `${file}:${line} ${name} (${lines} lines)`)
    expect(long).toEqual([])
  })
})

describe('the structure reader', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'skillhouse-structure-'))
  mkdirSync(join(scratch, 'src', 'a'), { recursive: true })
  mkdirSync(join(scratch, 'commands'))
  writeFileSync(
    join(scratch, 'src', 'a', 'one.ts'),
    "import type { Two } from './two.js'\nexport const one = 1\n",
  )
  writeFileSync(
    join(scratch, 'src', 'a', 'two.ts'),
    "import { one } from './one.js'\nexport type Two = typeof one\n",
  )
  writeFileSync(
    join(scratch, 'commands', 'run.ts'),
    `import { one } from '../src/a/one.js'\nexport function long() {\n${'  one\n'.repeat(90)}}\n`,
  )

  it('finds a cycle made of a type import', () => {
    expect(importCycles(importGraph(scratch))).toEqual([['src/a/one.ts', 'src/a/two.ts']])
  })

  it('measures a function from its first line to its last', () => {
    expect(functionLengths(scratch)[0]).toEqual({ file: 'commands/run.ts', line: 2, name: 'long', lines: 92 })
  })
})
