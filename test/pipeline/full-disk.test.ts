// A disk that fills up while an output is written: the error names the file meant (not a
// temporary one), the cause and the fix, and no half file is left; an older file stays whole.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import { type TabularFormat, writeTable } from '../../src/pipeline/tabular-output.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { fillDisk } from '../helpers/full-disk.js'
import { createOpenTenant, fixture, runCli, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-full-disk-')
let tenant: Awaited<ReturnType<typeof createOpenTenant>>
beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'))
})
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

const noSpace = (path: string, folder: string) =>
  `cannot write ${path}: no space left on the device; free space on the device of ${folder} (or use another folder) and run again`

/** Every file under `folder`, with its folder (a temporary file left behind shows here). */
const filesUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))

const COLUMNS = [
  { name: 'employee_id', type: 'VARCHAR' as const },
  { name: 'score', type: 'DOUBLE' as const },
]
const ROWS = Array.from({ length: 500 }, (_, index) => ({ employee_id: `e-${index}`, score: index / 500 }))

describe('a table written to a full disk', () => {
  for (const format of ['ndjson', 'parquet', 'arrow'] as TabularFormat[]) {
    it(`names the ${format} file and leaves the one written before whole, and nothing else`, async () => {
      const out = join(temp.dir, `out-${format}`)
      mkdirSync(out)
      const path = join(out, `matching_employees.${format}`)
      writeFileSync(path, 'the file of the run before')
      const giveBack = fillDisk(out, 1000)
      let failure: unknown
      try {
        await writeTable(tenant.database, join(out, 'matching_employees'), format, COLUMNS, ROWS)
      } catch (error) {
        failure = error
      } finally {
        giveBack()
      }
      expect((failure as SkillhouseError | undefined)?.descriptions).toEqual([noSpace(path, out)])
      expect((failure as SkillhouseError).exitCode).toBe(1)
      expect(filesUnder(out)).toEqual([path])
      expect(readFileSync(path, 'utf8')).toBe('the file of the run before')
    })
  }
})

describe('the built CLI on a full disk', () => {
  const fullDisk = (folder: string) => ({
    env: {
      NO_COLOR: '1',
      NODE_OPTIONS: `--import=${join(projectRoot(), 'dist', 'test', 'helpers', 'full-disk.js')}`,
      SKILLHOUSE_TEST_FULL_DISK: folder,
      SKILLHOUSE_TEST_DISK_ROOM: '2000',
    },
  })

  const dataDir = join(temp.dir, 'cli-data')
  beforeAll(async () => {
    const made = await runCli(['tenant', 'create', 'demo', '--region', 'eu', '--data-dir', dataDir])
    expect(made.exitCode, String(made.stderr)).toBe(0)
  })

  for (const format of ['json', 'parquet']) {
    it(`run --format ${format}: one line naming the output file, exit 1, and no half file in the output folder`, async () => {
      const out = join(temp.dir, `run-out-${format}`)
      mkdirSync(out)
      const args = [
        'run',
        '--inbox',
        fixture('demo'),
        '--out',
        out,
        '--data-dir',
        dataDir,
        '--tenant',
        'demo',
      ]
      const answer = await runCli([...args, '--format', format], fullDisk(out))
      expect(answer.exitCode, String(answer.stderr)).toBe(1)
      expect(String(answer.stderr).trim().split('\n').at(-1)).toBe(
        `error: ${noSpace(join(out, `matching_employees.${format}`), out)}`,
      )
      expect(filesUnder(out).filter((file) => /\.tmp$|\/\.[^/]+$|matching_employees/.test(file))).toEqual([])
      expect(existsSync(join(out, 'manifest.json'))).toBe(false)
    })
  }

  it('report: one line naming report.html, exit 1, and no file in the report folder', async () => {
    const out = join(temp.dir, 'report-out')
    mkdirSync(out)
    const answer = await runCli(
      ['report', '--data-dir', dataDir, '--tenant', 'demo', '--out', out],
      fullDisk(out),
    )
    expect(answer.exitCode, String(answer.stderr)).toBe(1)
    expect(String(answer.stderr).trim().split('\n').at(-1)).toBe(
      `error: ${noSpace(join(out, 'report.html'), out)}`,
    )
    expect(filesUnder(out)).toEqual([])
  })
})
