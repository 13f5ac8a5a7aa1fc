import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  folderGraph,
  folderLoopImports,
  functionLengths,
  importCycles,
  importGraph,
  MAX_FUNCTION_LINES,
} from './code-structure.js'

const root = resolve(import.meta.dirname, '../..')

describe('the code of src/ and commands/', () => {
  it('has no import cycle', () => {
    expect(importCycles(importGraph(root))).toEqual([])
  })

  it('has no loop between folders (each folder imports only folders below it)', () => {
    const graph = importGraph(root)
    const loops = importCycles(folderGraph(graph)).map((loop) => folderLoopImports(graph, loop))
    expect(loops).toEqual([])
  })

  it("is layered as docs/architecture.md's code map says: a folder imports only folders below it there", () => {
    const map = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')
    const table = [...map.matchAll(/^\| `([^`]+)\/` \|/gm)].map((match) => match[1] as string)
    const upward: string[] = []
    for (const [folder, imports] of folderGraph(importGraph(root))) {
      const place = table.indexOf(folder)
      if (place < 0) upward.push(`${folder}/ is not in the code map`)
      for (const imported of imports)
        if (table.indexOf(imported) <= place)
          upward.push(`${folder}/ imports ${imported}/, which is not below it`)
    }
    expect(upward).toEqual([])
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

  it('finds a loop between folders that no file cycle shows', () => {
    mkdirSync(join(scratch, 'src', 'b'), { recursive: true })
    writeFileSync(
      join(scratch, 'src', 'b', 'three.ts'),
      "import type { Two } from '../a/two.js'\nexport type Three = Two\n",
    )
    writeFileSync(
      join(scratch, 'src', 'a', 'four.ts'),
      "import type { Three } from '../b/three.js'\nexport type Four = Three\n",
    )
    const graph = importGraph(scratch)
    expect(importCycles(folderGraph(graph))).toEqual([['src/a', 'src/b']])
    expect(folderLoopImports(graph, ['src/a', 'src/b'])).toEqual([
      'src/a -> src/b: src/a/four.ts -> src/b/three.ts',
      'src/b -> src/a: src/b/three.ts -> src/a/two.ts',
    ])
  })

  it('measures a function from its first line to its last', () => {
    expect(functionLengths(scratch)[0]).toEqual({ file: 'commands/run.ts', line: 2, name: 'long', lines: 92 })
  })
})
