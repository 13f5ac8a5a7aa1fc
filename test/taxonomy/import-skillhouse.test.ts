import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readEvents, readOutbox } from '../../src/events/outbox.js'
import type { VocabularyDomainFile } from '../../src/schemas/index.js'
import { importSkillhouse } from '../../src/taxonomy/import-skillhouse.js'
import { importTaxonomy } from '../../src/taxonomy/import-taxonomy.js'
import { getSkill, getSubdomain } from '../../src/taxonomy/taxonomy-operations.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const WAREHOUSE: VocabularyDomainFile = {
  external_id: 'acme-dom-logistics',
  domain_name: 'Logistics',
  subdomains: [
    {
      external_id: 'acme-sub-warehouse',
      subdomain_name: 'Warehouse',
      skill_clusters: [
        {
          external_id: 'acme-clu-handling',
          skill_cluster_name: 'Material handling',
          skills: [
            {
              external_id: 'acme-forklift',
              skill_type: 'hard_skill',
              names: { en_uk: 'Forklift operation', nl: 'Heftruck besturen' },
              aliases: { en_uk: ['forklift', 'FLT'] },
            },
            {
              external_id: 'acme-pallet-jack',
              skill_type: 'hard_skill',
              names: { en_uk: 'Pallet jack operation' },
            },
          ],
        },
      ],
    },
  ],
}

describe('skillhouse-format import of a custom taxonomy', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  const folder = (name: string, files: Record<string, string>) => {
    const dir = join(temp.dir, name)
    mkdirSync(dir, { recursive: true })
    for (const [file, content] of Object.entries(files)) writeFileSync(join(dir, file), content)
    return dir
  }

  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'), 'acme')
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('imports vocabulary JSON files as custom entities of vendor_default and sends skill.created', async () => {
    const dir = folder('json', { 'logistics.json': JSON.stringify(WAREHOUSE), 'README.txt': 'notes' })
    const last = (await readOutbox(tenant.database)).at(-1)?.seq ?? 0
    const summary = await importTaxonomy(tenant, { paths: [dir] })
    expect(summary).toMatchObject({
      format: 'skillhouse',
      external_vendor: 'vendor_default',
      custom: true,
      skills: 2,
      skill_changes: { created: 2, updated: 0, deleted: 0 },
      domains: { created: 1 },
      languages: ['en_uk', 'nl'],
    })
    expect(summary.skipped).toEqual([
      { path: join(dir, 'README.txt'), reason: 'neither a vocabulary JSON file nor a skills CSV' },
    ])
    const skill = await getSkill(tenant, 'acme-forklift', 'vendor_default', { vocab_language: 'nl' })
    expect(skill).toMatchObject({
      skill_name: 'Heftruck besturen',
      custom: true,
      domain_id: 'acme-dom-logistics',
    })
    expect((await getSubdomain(tenant, 'acme-sub-warehouse')).subdomain_name).toBe('Warehouse')
    const events = await readEvents(tenant.database, { sinceSeq: last })
    expect(events.map((event) => event.type)).toEqual([
      'ai.vendor.taxonomy.skill.created.v1',
      'ai.vendor.taxonomy.skill.created.v1',
      'ai.vendor.taxonomy.updated.v1',
    ])
    expect((await importSkillhouse(tenant, [dir])).change_id).toBeNull()
  })

  it('reads the documented skills.csv: names and |-separated aliases per language, BCP 47 tags allowed', async () => {
    const dir = folder('csv', {
      'skills.csv': [
        'external_id,skill_name,skill_cluster_id,skill_type,description,names.nl-BE,aliases.en,aliases.nl',
        'acme-reach-truck,Reach truck operation,acme-clu-handling,hard_skill,"Driving a reach truck, in narrow aisles",Reachtruck besturen,reach truck|reachtruck,reachtruck',
        'acme-safety,Warehouse safety,,soft_skill,,,,',
      ].join('\n'),
    })
    const summary = await importSkillhouse(tenant, [join(dir, 'skills.csv')])
    expect(summary.skill_changes).toEqual({ created: 2, updated: 0, deleted: 0 })
    const reach = await getSkill(tenant, 'acme-reach-truck')
    expect(reach).toMatchObject({
      skill_name: 'Reach truck operation',
      aliases: ['reach truck', 'reachtruck'],
      description: 'Driving a reach truck, in narrow aisles',
      skill_cluster_id: 'acme-clu-handling',
    })
    expect(
      (await getSkill(tenant, 'acme-reach-truck', 'vendor_default', { vocab_language: 'nl' })).skill_name,
    ).toBe('Reachtruck besturen')
    expect(await getSkill(tenant, 'acme-safety')).toMatchObject({
      skill_type: 'soft_skill',
      skill_cluster_id: null,
    })
  })

  it('updates what changed and, with replace, deletes the custom skills the files no longer hold', async () => {
    const changed: VocabularyDomainFile = structuredClone(WAREHOUSE)
    const cluster = changed.subdomains[0]?.skill_clusters[0]
    if (!cluster) throw new Error('fixture')
    cluster.skills = [
      {
        ...(cluster.skills[0] as VocabularyDomainFile['subdomains'][0]['skill_clusters'][0]['skills'][0]),
        description: 'Counterbalance trucks.',
      },
    ]
    const dir = folder('replace', { 'logistics.json': JSON.stringify(changed) })
    const merged = await importSkillhouse(tenant, [dir])
    expect(merged.skill_changes).toEqual({ created: 0, updated: 1, deleted: 0 })
    const replaced = await importSkillhouse(tenant, [dir], { replace: true })
    // acme-pallet-jack and the two skills of skills.csv are gone; the vocabulary is untouched.
    expect(replaced.skill_changes).toEqual({ created: 0, updated: 0, deleted: 3 })
    await expect(getSkill(tenant, 'acme-pallet-jack')).rejects.toMatchObject({ status: 404 })
    const vocabulary = await tenant.database.one<{ n: number }>(
      "SELECT count(*) AS n FROM skills WHERE external_vendor = 'vendor_default' AND NOT custom",
    )
    expect(vocabulary?.n).toBeGreaterThan(1000)
  })

  it('rejects a skills.csv row with 422 naming the file, the row and the field', async () => {
    const dir = folder('bad-row', {
      'skills.csv': 'external_id,skill_name,skill_type\nok-skill,Fine,hard_skill\nbad id,Broken,talent\n',
    })
    const error = await importSkillhouse(tenant, [dir]).catch((caught: unknown) => caught)
    expect(error).toMatchObject({ status: 422 })
    const descriptions = (error as { descriptions: string[] }).descriptions
    expect(descriptions).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /skills\.csv row 2 \(external_id 'bad id'\): external_id: must contain only letters/,
        ),
        expect.stringMatching(/skills\.csv row 2 \(external_id 'bad id'\): skill_type: /),
      ]),
    )
    await expect(getSkill(tenant, 'ok-skill')).rejects.toMatchObject({ status: 404 })
  })

  it('rejects an unknown column and a language only vendor_a may use', async () => {
    const unknown = folder('bad-column', { 'skills.csv': 'external_id,skill_name,colour\nx,X,red\n' })
    await expect(importSkillhouse(tenant, [unknown])).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("column 'colour' is not part of the skills CSV"),
    })
    const spanish = folder('spanish', {
      'skills.csv': 'external_id,skill_name,names.es\nacme-weld,Welding,Soldadura\n',
    })
    await expect(importSkillhouse(tenant, [spanish])).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('names.es: es is a vocabulary language of vendor_a only'),
    })
  })

  it('refuses a custom skill that reuses the id of a vocabulary skill with 409', async () => {
    const row = await tenant.database.one<{ id: string }>(
      "SELECT external_id AS id FROM skills WHERE external_vendor = 'vendor_default' AND NOT custom LIMIT 1",
    )
    const dir = folder('collision', { 'skills.csv': `external_id,skill_name\n${row?.id},Mine\n` })
    await expect(importSkillhouse(tenant, [dir])).rejects.toMatchObject({ status: 409 })
  })

  it('rejects an invalid vocabulary JSON file with 422 naming the file and the path', async () => {
    const broken = structuredClone(WAREHOUSE) as unknown as {
      subdomains: { skill_clusters: { skills: { skill_type: string }[] }[] }[]
    }
    const skill = broken.subdomains[0]?.skill_clusters[0]?.skills[0]
    if (skill) skill.skill_type = 'talent'
    const dir = folder('bad-json', { 'broken.json': JSON.stringify(broken) })
    await expect(importSkillhouse(tenant, [dir])).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('broken.json: subdomains.0.skill_clusters.0.skills.0.skill_type: '),
    })
  })
})
