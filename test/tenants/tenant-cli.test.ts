// A first-time user's way through tenants, vocabularies and the help: what they try first works,
// and a refusal says what to do next.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { TenantSummary } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { runCli, tempDir, testFixture } from '../helpers/temp-tenant.js'

const temp = tempDir('skillhouse-tenant-cli-')
afterAll(() => temp.cleanup())

const listed = async (dataDir: string) =>
  JSON.parse(
    String((await runCli(['tenant', 'list', '--data-dir', dataDir, '--json'])).stdout),
  ) as TenantSummary[]

describe('vendors and languages of a tenant', () => {
  // The library names a setting by its field (`languages`, `name`); the command shows it as the
  // flag or argument the user typed.
  it('names the flag or argument of a refused setting, as typed', async () => {
    const dataDir = join(temp.dir, 'refused')
    const badName = await runCli(['tenant', 'create', 'Acme Corp', '--region', 'eu', '--data-dir', dataDir])
    expect(badName.exitCode).toBe(2)
    expect(String(badName.stderr)).toMatch(/^error: NAME: must be lower-case letters/m)
    const vendorA = await runCli([
      'tenant',
      'create',
      'acme',
      '--region',
      'eu',
      '--language',
      'ja',
      '--data-dir',
      dataDir,
    ])
    expect(vendorA.exitCode).toBe(2)
    expect(String(vendorA.stderr)).toContain(
      "error: --language ja: only vendor_a's vocabulary has this language; add --vendor vendor_a",
    )
  })

  // `tenant create --language es --vendor vendor_a` left only `es`: `de`, a language of the
  // default vocabulary (2.1), was refused afterwards.
  it('adds --language to the default vocabulary languages at creation', async () => {
    const dataDir = join(temp.dir, 'languages')
    const created = await runCli([
      'tenant',
      'create',
      'es',
      '--region',
      'eu',
      '--language',
      'es',
      '--vendor',
      'vendor_a',
      '--data-dir',
      dataDir,
    ])
    expect(created.exitCode, String(created.stderr)).toBe(0)
    const [tenant] = await listed(dataDir)
    expect(tenant?.languages).toEqual(['en_uk', 'en_us', 'de', 'fr', 'nl', 'es'])
    const german = await runCli([
      'extract',
      'Projektmanagement und Python',
      '--tenant',
      'es',
      '--vocab-language',
      'de',
      '--data-dir',
      dataDir,
    ])
    expect(german.exitCode, String(german.stderr)).toBe(0)
  })

  // A tenant could not activate vendor_a after creation; the ESCO import's 403 did not say how.
  it('activates a vendor and a language after creation with tenant update, as the ESCO import refusal says', async () => {
    const dataDir = join(temp.dir, 'update')
    expect(
      (await runCli(['tenant', 'create', 'acme', '--region', 'eu', '--data-dir', dataDir])).exitCode,
    ).toBe(0)
    const esco = ['taxonomy', 'import', testFixture('esco-mini'), '--format', 'esco', '--data-dir', dataDir]
    const refused = await runCli(esco)
    expect(refused.exitCode).toBe(1)
    expect(String(refused.stderr)).toContain(
      "external_vendor 'vendor_a' is not activated on tenant acme; activated vendors: vendor_default; activate it with `skillhouse tenant update acme --vendor vendor_a`",
    )
    const update = await runCli([
      'tenant',
      'update',
      'acme',
      '--vendor',
      'vendor_a',
      '--language',
      'es',
      '--data-dir',
      dataDir,
      '--json',
    ])
    expect(update.exitCode, String(update.stderr)).toBe(0)
    const [tenant] = await listed(dataDir)
    expect(tenant?.vendors).toEqual(['vendor_default', 'vendor_a'])
    expect(tenant?.languages).toContain('es')
    const imported = await runCli(esco)
    expect(imported.exitCode, String(imported.stderr)).toBe(0)
    // A language only vendor_a has is refused while vendor_a is not active, naming the fix.
    expect((await runCli(['tenant', 'create', 'b', '--region', 'eu', '--data-dir', dataDir])).exitCode).toBe(
      0,
    )
    const it = await runCli(['tenant', 'update', 'b', '--language', 'it', '--data-dir', dataDir])
    expect(it.exitCode).toBe(2)
    expect(String(it.stderr)).toMatch(/only vendor_a's vocabulary has this language; add --vendor vendor_a/)
  })
})

describe('extract without --tenant', () => {
  // With several tenants `extract "TEXT"` exited 2 ("several tenants exist"); with one it used
  // that tenant's vocabulary.
  it('uses the embedded default vocabulary however many tenants exist', async () => {
    const dataDir = join(temp.dir, 'extract')
    for (const name of ['one', 'two'])
      expect(
        (await runCli(['tenant', 'create', name, '--region', 'eu', '--data-dir', dataDir])).exitCode,
      ).toBe(0)
    const answer = await runCli([
      'extract',
      'Built ETL pipelines in Python and SQL',
      '--data-dir',
      dataDir,
      '--json',
    ])
    expect(answer.exitCode, String(answer.stderr)).toBe(0)
    const skills = JSON.parse(String(answer.stdout)) as { skill_name: string }[]
    expect(skills.map((skill) => skill.skill_name).join(' ')).toMatch(/Python/)
    // The same answer as with no data directory at all.
    const alone = await runCli([
      'extract',
      'Built ETL pipelines in Python and SQL',
      '--data-dir',
      join(temp.dir, 'none'),
      '--json',
    ])
    expect(JSON.parse(String(alone.stdout))).toEqual(skills)
  })
})

describe('the root --help', () => {
  // Topics were described by their first subcommand ("profile: A course's skill profile…").
  it('describes every topic in its own words, not by one of its commands', async () => {
    const help = String((await runCli(['--help'])).stdout)
    const topics = help.split('TOPICS')[1]?.split('COMMANDS')[0] ?? ''
    const names = readdirSync(join(projectRoot(), 'commands'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
    expect(names.length).toBeGreaterThan(5)
    for (const name of names) {
      const line = new RegExp(`^  ${name} +(.+)$`, 'm').exec(topics)?.[1]
      expect(line, name).toBeDefined()
      for (const file of readdirSync(join(projectRoot(), 'dist', 'commands', name)).filter((file) =>
        file.endsWith('.js'),
      )) {
        const command = (await import(join(projectRoot(), 'dist', 'commands', name, file))) as {
          default: { summary?: string }
        }
        const summary = command.default.summary ?? ''
        expect(summary.startsWith(line?.trim() ?? ''), `${name}: ${line}`).toBe(false)
      }
    }
  })
})
