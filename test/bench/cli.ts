import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { projectRoot } from '../../src/util/project-paths.js'
import type { BenchResult } from './bench-result.js'

/**
 * `npm run bench -- cli`: how long whole commands take, as a user starts them, against `node -e 0`
 * (Node starting and doing nothing) measured in the same run. Each round runs every command once,
 * in turn, so that a machine that slows down slows all of them alike; the figures are medians over
 * the rounds, and each ratio is the median of the rounds' own ratios.
 */
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 15)
const WARM_UP = 2

export async function benchCli(): Promise<BenchResult> {
  const root = projectRoot()
  const dataDir = mkdtempSync(join(tmpdir(), 'skillhouse-bench-cli-'))
  try {
    const cli = (...args: string[]) => ['node', join(root, 'bin', 'run.js'), ...args, '--data-dir', dataDir]
    run(cli('demo', '--out', join(dataDir, 'out')), root)
    const commands: Record<string, string[]> = {
      'node -e 0': ['node', '-e', '0'],
      '--version': ['node', join(root, 'bin', 'run.js'), '--version'],
      '--help': ['node', join(root, 'bin', 'run.js'), '--help'],
      'profile employee': cli('profile', 'employee', 'emp-10001', '--tenant', 'demo'),
      'tenant list': cli('tenant', 'list'),
      gap: cli('gap', '--employee', 'emp-10001', '--vacancy', 'vac-0001', '--tenant', 'demo'),
      'match vacancies': cli(
        'match',
        'vacancies',
        '--employee',
        'emp-10001',
        '--limit',
        '3',
        '--tenant',
        'demo',
      ),
    }
    const seconds = roundRobin(commands, root)
    const reference = seconds['node -e 0'] as number[]
    const figures: BenchResult['figures'] = { rounds: ROUNDS }
    const ratios: BenchResult['ratios'] = {}
    for (const [name, times] of Object.entries(seconds)) {
      figures[`${name} median s`] = round(median(times))
      if (name === 'node -e 0') continue
      ratios[`${name} / node -e 0`] = round(
        median(times.map((time, index) => time / (reference[index] as number))),
      )
    }
    return { name: 'cli', figures, ratios }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Every command once a round, in turn; the wall time of each finished process, by command. */
function roundRobin(commands: Record<string, string[]>, cwd: string): Record<string, number[]> {
  const seconds: Record<string, number[]> = Object.fromEntries(
    Object.keys(commands).map((name) => [name, []]),
  )
  for (let round = 0; round < WARM_UP + ROUNDS; round++) {
    for (const [name, command] of Object.entries(commands)) {
      const time = run(command, cwd)
      if (round >= WARM_UP) seconds[name]?.push(time)
    }
  }
  return seconds
}

/** Runs a command to its end and returns its wall time in seconds; a failure ends the benchmark. */
function run(command: string[], cwd: string): number {
  const started = process.hrtime.bigint()
  const result = spawnSync(command[0] as string, command.slice(1), {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (result.status !== 0) throw new Error(`${command.join(' ')} exited ${result.status}: ${result.stderr}`)
  return seconds
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

const round = (value: number) => Math.round(value * 1000) / 1000
