// A data team installs the CLI as a package, it does not clone it: the tarball of `npm pack`,
// installed into a fresh prefix, runs the demo and a command of each topic from there.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectRoot } from '../../src/util/project-paths.js'
import { tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-package-')
afterAll(() => temp.cleanup())

/** The installed command, run in a folder of its own (no clone anywhere near it). */
let skillhouse: (args: string[]) => Promise<{ exitCode: number | undefined; stdout: string; stderr: string }>

beforeAll(async () => {
  // `npm test` builds first; packing again (prepack) would only build the same files.
  const packed = await execa(
    'npm',
    ['pack', '--ignore-scripts', '--pack-destination', temp.dir, '--silent'],
    {
      cwd: projectRoot(),
    },
  )
  const tarball = join(temp.dir, String(packed.stdout).trim().split('\n').at(-1) as string)
  const prefix = join(temp.dir, 'prefix')
  await execa(
    'npm',
    ['install', '--global', '--prefix', prefix, tarball, '--no-audit', '--no-fund', '--prefer-offline'],
    {
      cwd: temp.dir,
    },
  )
  const work = join(temp.dir, 'work')
  mkdirSync(work)
  skillhouse = async (args) => {
    const result = await execa(join(prefix, 'bin', 'skillhouse'), args, {
      cwd: work,
      reject: false,
      env: { NO_COLOR: '1', SKILLHOUSE_HOME: join(work, 'data') },
    })
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) }
  }
}, 600_000)

describe('the installed package', () => {
  it('runs the demo, then a command of each topic', async () => {
    const demo = await skillhouse(['demo'])
    expect(demo.exitCode, demo.stderr).toBe(0)
    expect(demo.stdout).toContain('Created tenant demo')
    const commands = [
      ['--version'],
      ['tenant', 'list'],
      ['client', 'list'],
      ['profile', 'employee', 'emp-10001'],
      ['match', 'vacancies', '--employee', 'emp-10001', '--limit', '3', '--json'],
      ['gap', '--employee', 'emp-10001', '--vacancy', 'vac-0001'],
      ['org', 'export', '--low-data'],
      ['events', 'export', '--out', 'events.ndjson'],
      ['webhook', 'list'],
      ['job', 'preview', 'job-warehouse-operative'],
      ['geo', 'import', '--help'],
      ['taxonomy', 'import', '--help'],
      ['openapi', '--out', 'openapi.json'],
    ]
    for (const args of commands) {
      const answer = await skillhouse(args)
      expect(answer.exitCode, `${args.join(' ')}: ${answer.stderr}`).toBe(0)
      expect(answer.stderr, args.join(' ')).not.toMatch(/not found/)
    }
  })
})
