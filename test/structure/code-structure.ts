import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

/**
 * The shape of the product's code as a newcomer meets it: lines per folder, the longest
 * functions and the import cycles of `src/` and `commands/`, read from the sources with the
 * TypeScript parser. `npm run structure` prints it; test/structure/structure.test.ts holds the
 * code to its rules (no cycle, no function over 80 lines).
 */
export interface FunctionLength {
  file: string
  line: number
  name: string
  lines: number
}

export const MAX_FUNCTION_LINES = 80

const SOURCE_FOLDERS = ['src', 'commands', 'tools']

/** The TypeScript sources under `src/` and `commands/` of `root`, relative to it. */
export function sourceFiles(root: string): string[] {
  const files: string[] = []
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) files.push(relative(root, path))
    }
  }
  for (const folder of SOURCE_FOLDERS) if (existsSync(join(root, folder))) walk(join(root, folder))
  return files.sort()
}

function parse(root: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true)
}

function functionName(node: ts.Node): string {
  const parent = node.parent
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && parent) {
    if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText()
  }
  const named = node as ts.FunctionDeclaration | ts.MethodDeclaration
  if (named.name) return named.name.getText()
  return ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)'
}

/** Every function, method, arrow and constructor of the sources, longest first. */
export function functionLengths(root: string): FunctionLength[] {
  const lengths: FunctionLength[] = []
  for (const file of sourceFiles(root)) {
    const source = parse(root, file)
    const visit = (node: ts.Node) => {
      if (
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node)
      ) {
        const first = source.getLineAndCharacterOfPosition(node.getStart()).line
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
        lengths.push({ file, line: first + 1, name: functionName(node), lines: last - first + 1 })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return lengths.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
}

/** The relative imports of each source file (type-only ones too), as source paths. */
export function importGraph(root: string): Map<string, string[]> {
  const files = sourceFiles(root)
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const targets = new Set<string>()
    const visit = (node: ts.Node) => {
      let specifier: ts.Expression | undefined
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) specifier = node.moduleSpecifier
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
        specifier = node.arguments[0]
      if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.')) {
        const target = relative(root, resolve(root, dirname(file), specifier.text)).replace(/\.js$/, '.ts')
        if (known.has(target)) targets.add(target)
      }
      ts.forEachChild(node, visit)
    }
    visit(parse(root, file))
    graph.set(file, [...targets].sort())
  }
  return graph
}

/** The import cycles of the graph: its strongly connected groups of more than one file (Tarjan). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const connect = (file: string) => {
    index.set(file, counter)
    low.set(file, counter)
    counter++
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next)
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const group: string[] = []
    let member: string | undefined
    do {
      member = stack.pop() as string
      onStack.delete(member)
      group.push(member)
    } while (member !== file)
    if (group.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(group.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) connect(file)
  return cycles
}

/** Files and lines per folder, largest folders first. */
/**
 * The folder a file belongs to for the layering rule: a top folder of `src/` (its subfolders
 * included, `src/api/routes/` is `src/api`), else the top folder (`commands`, `tools`).
 */
export function folderOf(file: string): string {
  const parts = file.split('/')
  return parts[0] === 'src' && parts.length > 2 ? `${parts[0]}/${parts[1]}` : (parts[0] as string)
}

/** The imports between folders: folder to the folders its files import (type-only imports count). */
export function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>()
  for (const [file, imports] of graph) {
    const from = folderOf(file)
    const targets = folders.get(from) ?? new Set<string>()
    folders.set(from, targets)
    for (const imported of imports) if (folderOf(imported) !== from) targets.add(folderOf(imported))
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets].sort()]))
}

/** For each import between two folders of a loop, the files that make it: `a -> b: a/x.ts -> b/y.ts`. */
export function folderLoopImports(graph: Map<string, string[]>, loop: string[]): string[] {
  const members = new Set(loop)
  const lines: string[] = []
  for (const [file, imports] of graph)
    for (const imported of imports) {
      const from = folderOf(file)
      const to = folderOf(imported)
      if (from !== to && members.has(from) && members.has(to))
        lines.push(`${from} -> ${to}: ${file} -> ${imported}`)
    }
  return lines.sort()
}

export function folderMap(root: string): { folder: string; files: number; lines: number }[] {
  const folders = new Map<string, { files: number; lines: number }>()
  for (const file of sourceFiles(root)) {
    const folder = dirname(file)
    const entry = folders.get(folder) ?? { files: 0, lines: 0 }
    entry.files++
    entry.lines += readFileSync(join(root, file), 'utf8').split('\n').length
    folders.set(folder, entry)
  }
  return [...folders].map(([folder, entry]) => ({ folder, ...entry })).sort((a, b) => b.lines - a.lines)
}
