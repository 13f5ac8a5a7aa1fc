import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportOrganisation } from '../../src/analytics/org-export.js'
import { skillGap } from '../../src/analytics/skill-gap.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { OrgNode } from '../../src/schemas/index.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createOpenTenant, runCli as runBuiltCli, tempDir } from '../helpers/temp-tenant.js'
import { createAnalyticsTenant } from './analytics-tenant.js'

/** Sources of the commands under test and the files they compile to. */
const BUILT = [
  ['commands/org/export.ts', 'dist/commands/org/export.js'],
  ['commands/gap.ts', 'dist/commands/gap.js'],
  ['commands/job/preview.ts', 'dist/commands/job/preview.js'],
  ['src/analytics/org-export.ts', 'dist/src/analytics/org-export.js'],
  ['src/analytics/skill-gap.ts', 'dist/src/analytics/skill-gap.js'],
  ['src/analytics/job-change-preview.ts', 'dist/src/analytics/job-change-preview.js'],
  ['src/analytics/job-description.ts', 'dist/src/analytics/job-description.js'],
] as const

/**
 * Builds the CLI when its output is missing or older than these sources. `npm test` builds first
 * (pretest), so this compiles only when the file is run on its own, and never rewrites dist/ under
 * another test file that reads it.
 */
async function buildWhenStale(): Promise<void> {
  const root = projectRoot()
  const stale = BUILT.some(
    ([source, output]) =>
      !existsSync(join(root, output)) ||
      statSync(join(root, output)).mtimeMs < statSync(join(root, source)).mtimeMs,
  )
  if (stale) await execa('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, reject: false })
}

/** The built CLI's exit code and its output as text. */
async function runCli(args: string[]) {
  const result = await runBuiltCli(args)
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) }
}

/** The depth of the deepest node, without recursion. */
function depthOf(roots: readonly OrgNode[]): number {
  let deepest = 0
  const stack = roots.map((node) => ({ node, depth: 1 }))
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: OrgNode; depth: number }
    deepest = Math.max(deepest, depth)
    for (const child of node.children) stack.push({ node: child, depth: depth + 1 })
  }
  return deepest
}

describe('skillhouse org export, gap and job preview (built CLI)', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let expectedTree: Awaited<ReturnType<typeof exportOrganisation>>
  let expectedPython: Awaited<ReturnType<typeof exportOrganisation>>
  let expectedGap: Awaited<ReturnType<typeof skillGap>>

  beforeAll(async () => {
    await buildWhenStale()
    const tenant = await createAnalyticsTenant(dataDir)
    expectedTree = await exportOrganisation(tenant, { include: ['low_data_availability_flag'] })
    expectedPython = await exportOrganisation(tenant, { skill_id: 'skl-python' })
    expectedGap = await skillGap(tenant, 'e-deep-1', 'vac-1', { vocab_language: 'nl' })
    tenant.database.close()

    // A second tenant: one chain of 3,000 units, deeper than JSON.stringify can write.
    const deep = await createOpenTenant(dataDir, 'deep')
    const files = join(temp.dir, 'deep-files')
    const units = Array.from({ length: 3000 }, (_, index) =>
      JSON.stringify({
        external_id: `u${index}`,
        name: `Unit ${index}`,
        parent_id: index === 0 ? null : `u${index - 1}`,
      }),
    )
    await import('node:fs').then((fs) => fs.mkdirSync(files, { recursive: true }))
    writeFileSync(join(files, 'organisational_units.ndjson'), `${units.join('\n')}\n`)
    writeFileSync(
      join(files, 'employees.ndjson'),
      `${JSON.stringify({ external_id: 'e-1', organisational_unit_id: 'u2999' })}\n`,
    )
    await ingestPaths({
      database: deep.database,
      settings: deep.settings,
      paths: [files],
      rejectsDir: join(temp.dir, 'deep-rejects'),
    })
    deep.database.close()
  }, 180_000)
  afterAll(() => temp.cleanup())

  it('writes org_structure.json into the --out folder, the same as the library computes', async () => {
    const out = join(temp.dir, 'out')
    const result = await runCli([
      'org',
      'export',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--low-data',
      '--out',
      `${out}/`,
    ])
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe(`10 units written to ${join(out, 'org_structure.json')}`)
    expect(JSON.parse(readFileSync(join(out, 'org_structure.json'), 'utf8'))).toEqual(expectedTree)
  })

  it('prints the export with --json, filtered by --skill-id', async () => {
    const result = await runCli([
      'org',
      'export',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--skill-id',
      'skl-python',
      '--json',
    ])
    expect(result.exitCode).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(expectedPython)
  })

  it('prints an indented tree for people', async () => {
    const result = await runCli(['org', 'export', '--data-dir', dataDir, '--tenant', 'acme', '--low-data'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout.split('\n').slice(0, 3)).toEqual([
      'Alpha (ou-a): 7 employees, 3 low data',
      '  Alpha One (ou-a1): 4 employees, 2 low data',
      '    Alpha One X (ou-a1x): 3 employees, 1 low data',
    ])
  })

  it('exits 1 with the 404 message for an unknown skill', async () => {
    const result = await runCli([
      'org',
      'export',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--skill-id',
      'skl-nope',
    ])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/^error: skill 'skl-nope' does not exist/)
  })

  it('writes a hierarchy 3,000 units deep with --json', async () => {
    const result = await runCli(['org', 'export', '--data-dir', dataDir, '--tenant', 'deep', '--json'])
    expect(result.exitCode).toBe(0)
    const parsed = JSON.parse(result.stdout) as { organisational_structure: OrgNode[] }
    expect(depthOf(parsed.organisational_structure)).toBe(3000)
    expect(parsed.organisational_structure[0]?.total_nr_of_employees).toBe(1)
  })

  it('prints the skill gap in the requested vocabulary language', async () => {
    const args = [
      'gap',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--employee',
      'e-deep-1',
      '--vacancy',
      'vac-1',
    ]
    const json = await runCli([...args, '--vocab-language', 'nl', '--json'])
    expect(json.exitCode).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(expectedGap)
    const text = await runCli([...args, '--vocab-language', 'nl'])
    // On a terminal: a table, most important first, with the levels asked and held.
    const lines = text.stdout.split('\n')
    expect(lines[0]).toBe(
      `e-deep-1 lacks ${expectedGap.length} skills of vacancy vac-1, most important first:`,
    )
    expect(lines[1]).toMatch(/^CRITICAL {2}SKILL +GAP +NEEDS {2}HOLDS {2}ID$/)
    expect(lines[3]).toMatch(/Afhandeling van klantvragen .* skl-customer-enquiry-handling$/)
    const unknown = await runCli([
      'gap',
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--employee',
      'x',
      '--vacancy',
      'vac-1',
    ])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toBe("error: employee 'x' does not exist; create it first")
  })

  it('previews a job description and shows it again by its change_id', async () => {
    const args = ['job', 'preview', 'job-dev', '--data-dir', dataDir, '--tenant', 'acme']
    const result = await runCli([...args, '--section', 'summary', '--instructions', 'in Dutch'])
    expect(result.exitCode).toBe(0)
    const [first, , ...text] = result.stdout.split('\n')
    const changeId = first?.replace('change_id: ', '') as string
    expect(changeId).toMatch(/^jcp-[0-9a-f]{32}$/)
    expect(text.join('\n')).toBe(
      '# Software Developer\n\n## Samenvatting\n\nAls Software Developer in ons team Engineering zet je dagelijks Java, Python en Git in.',
    )
    const shown = await runCli([
      'job',
      'show-preview',
      changeId,
      '--data-dir',
      dataDir,
      '--tenant',
      'acme',
      '--json',
    ])
    expect(JSON.parse(shown.stdout)).toMatchObject({ change_id: changeId, language: 'nl', job_id: 'job-dev' })
    const bad = await runCli([...args, '--section', 'benefits'])
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr).toMatch(/'benefits' is not a section; valid: summary, responsibilities/)
  })
})
