// Every command example of the README and docs/ runs against the demo tenant, as a newcomer would
// type it after `npm run demo`: a wrong id, a missing file or a renamed flag fails here.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectRoot } from '../../src/util/project-paths.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'

/** One example: the command line as written, where it stands, and the section it belongs to. */
interface Example {
  readonly line: string
  readonly file: string
  readonly lineNumber: number
  readonly section: string
}

/**
 * Commands that serve until stopped: the example runs until the command says it is ready. One whose
 * start does not depend on the data directory (the mock answers from the document the code
 * generates) starts the same way in every section, so each of its lines is started once.
 */
const SERVES: Record<string, { ready: RegExp; oncePerLine: boolean }> = {
  serve: { ready: /serving on http/, oncePerLine: false },
  mock: { ready: /Prism mock of the Skills Service API on/, oncePerLine: true },
}

/**
 * The `skillhouse` command lines of a Markdown file: in ```sh blocks the lines that start with
 * `npx skillhouse` (or `$ npx skillhouse`); in the generated command reference the `$ skillhouse`
 * lines of each EXAMPLES part. A section is a `##` heading: examples of one section run in order in
 * one data directory, each section in a fresh copy of the demo's.
 */
function examplesOf(file: string, text: string): Example[] {
  const examples: Example[] = []
  let section = ''
  let fence: string | undefined
  let inExamples = false
  // A line ending in a backslash goes on on the next: the example is the joined line, at its first.
  const lines = text.split('\n')
  for (let i = lines.length - 2; i >= 0; i--) {
    const line = lines[i] as string
    if (line.endsWith('\\')) {
      lines[i] = `${line.slice(0, -1).trimEnd()} ${(lines[i + 1] as string).trim()}`
      lines[i + 1] = ''
    }
  }
  lines.forEach((raw, index) => {
    const line = raw.trim()
    if (!fence && /^## /.test(raw)) section = raw.slice(3)
    if (line.startsWith('```')) {
      fence = fence === undefined ? line.slice(3) : undefined
      inExamples = false
      return
    }
    if (fence === undefined) return
    if (line === 'EXAMPLES') inExamples = true
    else if (/^[A-Z ]+$/.test(line) && line) inExamples = false
    const command = fence === 'sh' ? /^(?:\$ )?npx skillhouse (.*)$/.exec(line) : undefined
    const reference = inExamples ? /^\$ skillhouse (.*)$/.exec(line) : undefined
    const found = command ?? reference
    if (found?.[1])
      examples.push({
        line: found[1].replaceAll('npx skillhouse ', 'skillhouse '),
        file,
        lineNumber: index + 1,
        section,
      })
  })
  return examples
}

/** The line without a trailing `# comment` (outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string
    if (quote) quote = c === quote ? undefined : quote
    else if (c === '"' || c === "'") quote = c
    else if (c === '#' && (i === 0 || line[i - 1] === ' ')) return line.slice(0, i).trimEnd()
  }
  return line
}

const root = projectRoot()
const temp = tempDir('skillhouse-doc-examples-')
const demoData = join(temp.dir, 'demo-data')
const shims = join(temp.dir, 'bin')
let receiver: Server
let receiverUrl = ''

beforeAll(async () => {
  // `skillhouse` (and `npx skillhouse`, with `npx ` dropped) is the built CLI, for lines that chain commands.
  mkdirSync(shims)
  writeFileSync(
    join(shims, 'skillhouse'),
    `#!/bin/sh\nexec node ${JSON.stringify(join(root, 'bin', 'run.js'))} "$@"\n`,
    { mode: 0o755 },
  )
  const demo = await runCli(['demo', '--data-dir', demoData, '--out', join(temp.dir, 'demo-out')])
  expect(demo.exitCode, String(demo.stderr)).toBe(0)
  // Webhook examples name hosts of example.com (reserved for documentation): they are sent to a
  // receiver that acknowledges everything, so that the health check of `webhook add` passes.
  receiver = createServer((request, response) => {
    request.resume()
    request.on('end', () => response.writeHead(204).end())
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
}, 120_000)

afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve))
  temp.cleanup()
})

let workspaces = 0
/** A working folder that sees the repository's fixtures, and a fresh copy of the demo's data. */
function workspace(): { cwd: string; dataDir: string } {
  const cwd = join(temp.dir, `work-${++workspaces}`)
  mkdirSync(cwd)
  symlinkSync(join(root, 'fixtures'), join(cwd, 'fixtures'))
  const dataDir = join(cwd, '.skillhouse')
  cpSync(demoData, dataDir, { recursive: true })
  return { cwd, dataDir }
}

/**
 * What a placeholder in capitals stands for: an id the data directory has, made or found by the
 * command a user would run to get one.
 */
const PLACEHOLDERS: Record<string, { args: () => string[]; pick: (stdout: string) => unknown }> = {
  CLIENT_ID: {
    args: () => ['client', 'list', '--tenant', 'demo', '--json'],
    pick: (stdout) => (JSON.parse(stdout) as { client_id: string }[])[0]?.client_id,
  },
  CHANGE_ID: {
    args: () => ['job', 'preview', 'job-transport-planner', '--tenant', 'demo', '--json'],
    pick: (stdout) => (JSON.parse(stdout) as { change_id: string }).change_id,
  },
  WEBHOOK_ID: {
    args: () => [
      'webhook',
      'add',
      `${receiverUrl}/placeholder-${++workspaces}`,
      '--tenant',
      'demo',
      '--json',
    ],
    pick: (stdout) => (JSON.parse(stdout) as { id: string }).id,
  },
  EVENT_ID: {
    args: () => ['events', 'export', '--tenant', 'demo'],
    pick: (stdout) => (JSON.parse(stdout.split('\n')[0] ?? 'null') as { id: string } | null)?.id,
  },
}

async function withPlaceholders(line: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  let filled = line
  for (const [name, source] of Object.entries(PLACEHOLDERS)) {
    if (!filled.includes(name)) continue
    const made = await execa(join(shims, 'skillhouse'), source.args(), { cwd, env, reject: false })
    const value = made.exitCode === 0 ? source.pick(String(made.stdout)) : undefined
    if (typeof value !== 'string') throw new Error(`no value for ${name}: ${made.stderr}`)
    filled = filled.replaceAll(name, value)
  }
  return filled
}

const startedLines = new Map<string, Promise<{ ok: boolean; output: string }>>()

/** Runs one example line through a shell, as typed, with `skillhouse` on the PATH the built CLI. */
async function run(example: Example, cwd: string, dataDir: string): Promise<{ ok: boolean; output: string }> {
  const env = {
    ...process.env,
    NO_COLOR: '1',
    SKILLHOUSE_HOME: dataDir,
    PATH: `${shims}:${process.env.PATH}`,
  }
  const written = withoutComment(example.line).replaceAll(/https?:\/\/[a-z.]*example\.com/g, receiverUrl)
  const line = await withPlaceholders(written, cwd, env)
  const command = line.split(/\s+/)[0] as string
  const shellLine = `skillhouse ${line}`
  const serves = SERVES[command]
  if (serves) {
    const started =
      (serves.oncePerLine && startedLines.get(line)) || runUntilReady(shellLine, cwd, env, serves.ready)
    if (serves.oncePerLine) startedLines.set(line, started)
    return started
  }
  const result = await execa('bash', ['-c', shellLine], { cwd, env, reject: false, timeout: 120_000 })
  // Exit 3 says rows were rejected: what an example that loads the bad-input samples is about.
  const expected = /fixtures\/bad/.test(line) ? [0, 3] : [0]
  return { ok: expected.includes(result.exitCode ?? -1), output: `${result.stdout}\n${result.stderr}` }
}

function runUntilReady(shellLine: string, cwd: string, env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn('bash', ['-c', `exec ${shellLine}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  return new Promise<{ ok: boolean; output: string }>((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer)
      child.kill('SIGTERM')
      child.once('exit', () => resolve({ ok, output }))
    }
    const timer = setTimeout(() => done(false), 60_000)
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      if (ready.test(output)) done(true)
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve({ ok: ready.test(output), output })
    })
  })
}

const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

describe('documentation examples', () => {
  it('finds the examples of the README, the guide and the command reference', () => {
    const all = documents.flatMap((file) => examplesOf(file, readFileSync(join(root, file), 'utf8')))
    expect(all.filter((example) => example.file === 'README.md').length).toBeGreaterThanOrEqual(8)
    expect(all.filter((example) => example.file === 'docs/guide.md').length).toBeGreaterThanOrEqual(20)
    expect(all.filter((example) => example.file === 'docs/commands.md').length).toBeGreaterThanOrEqual(30)
  })

  for (const file of documents) {
    const examples = examplesOf(file, readFileSync(join(root, file), 'utf8'))
    const sections = [...new Set(examples.map((example) => example.section))]
    for (const section of sections) {
      it(`${file} § ${section || '(top)'}: every example runs against the demo`, async () => {
        const { cwd, dataDir } = workspace()
        for (const example of examples.filter((candidate) => candidate.section === section)) {
          const { ok, output } = await run(example, cwd, dataDir)
          expect(ok, `${file}:${example.lineNumber} skillhouse ${example.line}\n${output.slice(-2000)}`).toBe(
            true,
          )
        }
      }, 600_000)
    }
  }
})
