import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  folderGraph,
  folderLoopImports,
  folderMap,
  functionLengths,
  importCycles,
  importGraph,
  MAX_FUNCTION_LINES,
} from './code-structure.js'

/**
 * `npm run structure`: the folder map (files and lines per folder), the functions over 80 lines
 * and the import cycles of the product's code.
 */
const root = resolve(fileURLToPath(import.meta.url), '../../../..')

console.log('Folders (files, lines):')
for (const { folder, files, lines } of folderMap(root))
  console.log(`  ${folder.padEnd(28)} ${String(files).padStart(3)} ${String(lines).padStart(6)}`)

const long = functionLengths(root).filter((entry) => entry.lines > MAX_FUNCTION_LINES)
console.log(`\nFunctions over ${MAX_FUNCTION_LINES} lines: ${long.length}`)
for (const { file, line, name, lines } of long)
  console.log(`  ${String(lines).padStart(4)}  ${name}  ${file}:${line}`)

const cycles = importCycles(importGraph(root))
console.log(`\nImport cycles: ${cycles.length}`)
for (const cycle of cycles) console.log(`  ${cycle.join(' <-> ')}`)

const loops = importCycles(folderGraph(importGraph(root)))
console.log(`\nLoops between folders: ${loops.length}`)
for (const loop of loops)
  for (const line of folderLoopImports(importGraph(root), loop)) console.log(`  ${line}`)
