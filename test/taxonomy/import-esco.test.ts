import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LIMITS, TaxonomyImportSummary } from '../../src/schemas/index.js'
import {
  escoExternalId,
  findEscoFiles,
  importEsco,
  readEscoVocabulary,
} from '../../src/taxonomy/import-esco.js'
import { detectVocabularyFormat } from '../../src/taxonomy/import-taxonomy.js'
import { getSkill } from '../../src/taxonomy/taxonomy-operations.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createOpenTenant, runCli, tempDir, testFixture } from '../helpers/temp-tenant.js'

const MINI = testFixture('esco-mini')
const SKILL_URI = 'http://data.europa.eu/esco/skill/'

/** The external_id the import gives a skill of the mini fixture, found by its English name. */
async function idOf(tenant: OpenTenant, name: string): Promise<string> {
  const row = await tenant.database.one<{ id: string }>(
    `SELECT skill_id AS id FROM skill_labels WHERE external_vendor = 'vendor_a' AND language = 'en_uk' AND kind = 'name' AND label = $1`,
    [name],
  )
  if (!row) throw new Error(`no skill named ${name}`)
  return row.id
}

async function clusterNameOf(tenant: OpenTenant, name: string): Promise<string> {
  const skill = await getSkill(tenant, await idOf(tenant, name), 'vendor_a')
  const row = await tenant.database.one<{ name: string }>(
    `SELECT skill_cluster_name AS name FROM skill_clusters WHERE external_vendor = 'vendor_a' AND external_id = $1`,
    [skill.skill_cluster_id as string],
  )
  return row?.name as string
}

describe('ESCO import', () => {
  const temp = tempDir()
  let tenant: OpenTenant

  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'), 'acme', { vendors: ['vendor_a'] })
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('derives stable external_ids from concept URIs', () => {
    expect(escoExternalId(`${SKILL_URI}000f1d3d-220f-4789-9c0a-cc742521fb02`)).toBe(
      'esco-000f1d3d-220f-4789-9c0a-cc742521fb02',
    )
    expect(escoExternalId('http://data.europa.eu/esco/isced-f/0613')).toBe('esco-isced-f-0613')
    const odd = escoExternalId(`https://example.org/${'x'.repeat(200)}`)
    expect(odd).toMatch(LIMITS.externalId.pattern)
    expect(odd.length).toBeLessThanOrEqual(100)
  })

  it('recognises the files of an ESCO download and detects the format from them', () => {
    const files = findEscoFiles([MINI])
    expect(files.hierarchy.map((file) => file.language)).toEqual(['en'])
    expect(files.relations).toHaveLength(1)
    expect([...files.skills.keys()].sort()).toEqual(['en', 'nl'])
    expect(files.skipped.map((file) => file.path.split('/').pop()).sort()).toEqual([
      'digitalSkillsCollection_en.csv',
      'skillGroups_en.csv',
    ])
    expect(detectVocabularyFormat([MINI])).toBe('esco')
    expect(detectVocabularyFormat([projectRoot()])).toBe('skillhouse')
  })

  it('maps Level 0 to domains, Level 1 to subdomains and Level 2 and 3 groups to skill clusters', async () => {
    const summary = await importEsco(tenant, [MINI])
    expect(TaxonomyImportSummary.parse(summary)).toEqual(summary)
    expect(summary).toMatchObject({
      format: 'esco',
      external_vendor: 'vendor_a',
      custom: false,
      languages: ['en_uk', 'nl'],
      skills: 30,
      domains: { created: 4 },
      subdomains: { created: 6 },
      // 8 groups of Level 2 or 3 that hold skills, and the general cluster of "languages".
      skill_clusters: { created: 9 },
      skill_changes: { created: 30, updated: 0, deleted: 0 },
    })
    const domains = await tenant.database.all<{ domain_name: string }>(
      `SELECT domain_name FROM domains WHERE external_vendor = 'vendor_a' ORDER BY domain_name`,
    )
    expect(domains.map((row) => row.domain_name)).toEqual([
      'knowledge',
      'language skills and knowledge',
      'skills',
      'transversal skills and competences',
    ])
    const ids = await tenant.database.all<{ id: string }>(
      `SELECT external_id AS id FROM skills WHERE external_vendor = 'vendor_a'`,
    )
    for (const { id } of ids)
      expect(id).toMatch(/^esco-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  })

  it('places each skill in the cluster of its nearest broader group', async () => {
    expect(await clusterNameOf(tenant, 'negotiate contracts')).toBe('negotiating contracts and agreements')
    // Directly under a Level 2 group that has no Level 3 below it.
    expect(await clusterNameOf(tenant, 'present reports')).toBe('presenting information')
    // Knowledge under an ISCED-F detailed field.
    expect(await clusterNameOf(tenant, 'SQL')).toBe('database and network design and administration')
    // A Level 1 and a Level 3 group above it: the cluster wins.
    expect(await clusterNameOf(tenant, 'use online collaboration platforms')).toBe(
      'using collaboration software',
    )
    // Two Level 3 groups equally near: the first in the hierarchy wins.
    expect(await clusterNameOf(tenant, 'debug software')).toBe('developing software')
  })

  it('gives a skill whose broader concept is another skill that skill’s cluster', async () => {
    expect(await clusterNameOf(tenant, 'write Python scripts')).toBe(
      await clusterNameOf(tenant, 'write computer code'),
    )
    expect(await clusterNameOf(tenant, 'TypeScript')).toBe(
      'software and applications development and analysis',
    )
  })

  it('puts skills found only under a Level 1 group into a general cluster of that subdomain', async () => {
    expect(await clusterNameOf(tenant, 'Dutch')).toBe('languages (general)')
    expect(await clusterNameOf(tenant, 'speak Dutch')).toBe('languages (general)')
    const dutch = await getSkill(tenant, await idOf(tenant, 'Dutch'), 'vendor_a')
    expect(dutch.skill_cluster_id).toMatch(/^esco-[0-9a-f-]{36}-general$/)
    expect(dutch.subdomain_id).toBe(dutch.skill_cluster_id?.replace(/-general$/, ''))
  })

  it('merges names and aliases of several languages, en being en_uk, with the English description', async () => {
    const id = await idOf(tenant, 'write computer code')
    const english = await getSkill(tenant, id, 'vendor_a')
    expect(english).toMatchObject({
      skill_name: 'write computer code',
      aliases: ['program computers', 'code software', 'develop code'],
      description: 'Write instructions in a programming language that a computer can run.',
      skill_type: 'hard_skill',
      custom: false,
    })
    const dutch = await getSkill(tenant, id, 'vendor_a', { vocab_language: 'nl' })
    expect(dutch.skill_name).toBe('computercode schrijven')
    expect(dutch.description).toBe(english.description)
    // A skill the Dutch file does not hold keeps its English name in Dutch requests.
    const reviews = await getSkill(tenant, await idOf(tenant, 'perform code reviews'), 'vendor_a', {
      vocab_language: 'nl',
    })
    expect(reviews.skill_name).toBe('perform code reviews')
  })

  it('maps ESCO skill types: knowledge, transversal reuse, and the language domain', async () => {
    const type = async (name: string) =>
      (await getSkill(tenant, await idOf(tenant, name), 'vendor_a')).skill_type
    expect(await type('SQL')).toBe('knowledge')
    expect(await type('think critically')).toBe('soft_skill')
    expect(await type('negotiate contracts')).toBe('hard_skill')
    expect(await type('speak Dutch')).toBe('language')
  })

  it('imports the skill collections when skills_<lang>.csv is absent', async () => {
    const collections = join(temp.dir, 'collections')
    mkdirSync(collections)
    cpSync(MINI, collections, { recursive: true })
    rmSync(join(collections, 'skills_en.csv'))
    rmSync(join(collections, 'skills_nl.csv'))
    const vocabulary = await readEscoVocabulary([collections], 'vendor_a')
    expect(vocabulary.languages).toEqual(['en_uk'])
    expect(vocabulary.entities.skills).toHaveLength(14)
    const debug = vocabulary.entities.skills.find((skill) => skill.names.en_uk === 'debug software')
    expect(debug?.aliases.en_uk).toEqual(['fix software defects', 'troubleshoot code'])
    const clusters = new Set(vocabulary.entities.skill_clusters.map((cluster) => cluster.external_id))
    for (const skill of vocabulary.entities.skills)
      expect(clusters.has(skill.skill_cluster_id as string)).toBe(true)
  })

  it('refuses an ESCO import into a vendor the tenant has not activated with 403', async () => {
    await expect(importEsco(tenant, [MINI], { external_vendor: 'vendor_b' })).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('activated vendors: vendor_default, vendor_a'),
    })
  })

  it('needs the hierarchy file and says so', async () => {
    const partial = join(temp.dir, 'no-hierarchy')
    mkdirSync(partial)
    cpSync(join(MINI, 'skills_en.csv'), join(partial, 'skills_en.csv'))
    await expect(readEscoVocabulary([partial], 'vendor_a')).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('skillsHierarchy_<lang>.csv'),
    })
  })

  it('answers 404 for a path that does not exist', async () => {
    await expect(readEscoVocabulary([join(temp.dir, 'nowhere')], 'vendor_a')).rejects.toMatchObject({
      status: 404,
    })
  })
})

describe('skillhouse taxonomy import --format esco (built CLI)', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('imports the mini ESCO fixture into vendor_a, then finds nothing to change', async () => {
    const created = await runCli([
      'tenant',
      'create',
      'acme',
      '--region',
      'eu',
      '--vendor',
      'vendor_a',
      '--data-dir',
      temp.dir,
    ])
    expect(created.exitCode).toBe(0)
    const first = await runCli([
      'taxonomy',
      'import',
      MINI,
      '--format',
      'esco',
      '--data-dir',
      temp.dir,
      '--json',
    ])
    expect(first.exitCode).toBe(0)
    const summary = TaxonomyImportSummary.parse(JSON.parse(String(first.stdout)))
    expect(summary).toMatchObject({ external_vendor: 'vendor_a', skills: 30, skill_changes: { created: 30 } })
    expect(summary.change_id).toMatch(/^chg-/)
    const again = await runCli([
      'taxonomy',
      'import',
      MINI,
      '--format',
      'esco',
      '--data-dir',
      temp.dir,
      '--tenant',
      'acme',
    ])
    expect(again.exitCode).toBe(0)
    expect(String(again.stdout)).toContain('nothing changed; no change recorded, no event sent')
    const wrongVendor = await runCli([
      'taxonomy',
      'import',
      MINI,
      '--format',
      'esco',
      '--external-vendor',
      'vendor_b',
      '--data-dir',
      temp.dir,
    ])
    expect(wrongVendor.exitCode).toBe(1)
    expect(String(wrongVendor.stderr)).toContain("external_vendor 'vendor_b' is not activated on tenant acme")
  })
})

// The real ESCO download is shared reference data; the project ships none of it.
const SHARED_ESCO = resolve(projectRoot(), '..', 'shared', 'data', 'esco-1.2.0-en')
if (existsSync(SHARED_ESCO)) {
  describe('the real ESCO 1.2.0 download (shared data)', () => {
    const temp = tempDir()
    let tenant: OpenTenant
    beforeAll(async () => {
      tenant = await createOpenTenant(join(temp.dir, 'data'), 'acme', { vendors: ['vendor_a'] })
    })
    afterAll(() => {
      tenant.database.close()
      temp.cleanup()
    })

    it('imports every skill of the collections into clusters of the ESCO hierarchy', async () => {
      const summary = await importEsco(tenant, [SHARED_ESCO])
      const withFullSkills = existsSync(join(SHARED_ESCO, 'skills_en.csv'))
      // 2,302 distinct skills in the four collections; about 13,900 in skills_en.csv.
      expect(summary.skills).toBeGreaterThanOrEqual(withFullSkills ? 13_000 : 2_300)
      expect(summary.domains.created).toBe(4)
      expect(summary.notes).toEqual([])
      const orphans = await tenant.database.all(
        `SELECT s.external_id FROM skills s LEFT JOIN skill_clusters c
            ON c.external_vendor = s.external_vendor AND c.external_id = s.skill_cluster_id
          WHERE s.external_vendor = 'vendor_a' AND c.external_id IS NULL`,
      )
      expect(orphans).toEqual([])
      const haskell = await tenant.database.one<{ id: string }>(
        `SELECT skill_id AS id FROM skill_labels WHERE external_vendor = 'vendor_a' AND label = 'Haskell' AND kind = 'name'`,
      )
      expect(haskell?.id).toBe('esco-000f1d3d-220f-4789-9c0a-cc742521fb02')
      const skill = await getSkill(tenant, haskell?.id as string, 'vendor_a')
      expect(skill).toMatchObject({ skill_type: 'knowledge', aliases: ['Haskell techniques'] })
      expect((await importEsco(tenant, [SHARED_ESCO])).change_id).toBeNull()
    })
  })
}
