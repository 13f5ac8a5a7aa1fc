import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  deleteLevelRows,
  findLevelRow,
  insertLevelRow,
  levelRowsOfVendor,
  renameLevelRow,
} from '../../src/store/taxonomy/level-tables.js'
import {
  deleteSkillsWithLabels,
  insertCustomSkill,
  skillHashesOfVendor,
  skillLabelRows,
  skillPropertiesOf,
} from '../../src/store/taxonomy/skill-tables.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tempDir } from '../helpers/temp-tenant.js'

const T0 = new Date('2026-03-01T10:00:00.000Z')
const T1 = new Date('2026-03-02T11:30:00.000Z')

describe('the statements of a vocabulary import, on a real DuckDB file', () => {
  const temp = tempDir()
  let database: TenantDatabase
  const skill = (id: string, properties: string | null) => ({
    external_id: id,
    skill_cluster_id: null,
    skill_type: 'knowledge' as const,
    description: null,
    names: { en_uk: `Skill ${id}` },
    aliases: {},
    properties,
    content_hash: `hash-${id}`,
    time: T0,
  })
  beforeAll(async () => {
    database = await TenantDatabase.open(join(temp.dir, 'import.duckdb'), { create: true })
    const write = { parent: 'dom-1', properties: '{"kept":1}', time: T0 }
    await insertLevelRow(database, 'domains', 'vendor_default', 'dom-1', {
      ...write,
      name: 'D',
      parent: null,
    })
    await insertLevelRow(database, 'subdomains', 'vendor_default', 'sub-1', { ...write, name: 'One' })
    await insertLevelRow(database, 'subdomains', 'vendor_default', 'sub-2', { ...write, name: 'Two' })
    await insertLevelRow(database, 'subdomains', 'vendor_a', 'sub-1', { ...write, name: 'Other vendor' })
    await insertCustomSkill(database, 'vendor_default', skill('sk-1', '{"level":2}'))
    await insertCustomSkill(database, 'vendor_default', skill('sk-2', null))
    await insertCustomSkill(database, 'vendor_a', skill('sk-1', '{"level":9}'))
  })
  afterAll(() => {
    database.close()
    temp.cleanup()
  })

  it('reads every entity of a vendor level with its name, parent and kind', async () => {
    const rows = await levelRowsOfVendor(database, 'subdomains', 'vendor_default')
    expect(rows.sort((a, b) => a.external_id.localeCompare(b.external_id))).toEqual([
      { external_id: 'sub-1', name: 'One', parent: 'dom-1', custom: true },
      { external_id: 'sub-2', name: 'Two', parent: 'dom-1', custom: true },
    ])
    expect(await levelRowsOfVendor(database, 'domains', 'vendor_default')).toEqual([
      { external_id: 'dom-1', name: 'D', parent: null, custom: true },
    ])
  })

  it('renames an entity and keeps its custom properties', async () => {
    await renameLevelRow(database, 'subdomains', 'vendor_default', 'sub-1', {
      name: 'One renamed',
      parent: 'dom-2',
      time: T1,
    })
    expect(await findLevelRow(database, 'subdomains', 'vendor_default', 'sub-1')).toMatchObject({
      name: 'One renamed',
      parent: 'dom-2',
      props: '{"kept":1}',
      updated_at: T1,
    })
    await renameLevelRow(database, 'domains', 'vendor_default', 'dom-1', {
      name: 'D2',
      parent: null,
      time: T1,
    })
    expect((await findLevelRow(database, 'domains', 'vendor_default', 'dom-1'))?.name).toBe('D2')
    expect((await findLevelRow(database, 'subdomains', 'vendor_a', 'sub-1'))?.name).toBe('Other vendor')
  })

  it('deletes only the entities of the named kind and vendor', async () => {
    await deleteLevelRows(database, 'subdomains', 'vendor_default', false, ['sub-2'])
    expect(await findLevelRow(database, 'subdomains', 'vendor_default', 'sub-2')).toBeDefined()
    await deleteLevelRows(database, 'subdomains', 'vendor_default', true, ['sub-2'])
    expect(await findLevelRow(database, 'subdomains', 'vendor_default', 'sub-2')).toBeUndefined()
    expect(await findLevelRow(database, 'subdomains', 'vendor_a', 'sub-1')).toBeDefined()
  })

  it('reads the content hashes of a vendor and the custom properties of the skills that have them', async () => {
    expect(await skillHashesOfVendor(database, 'vendor_default')).toEqual(
      new Map([
        ['sk-1', { hash: 'hash-sk-1', custom: true }],
        ['sk-2', { hash: 'hash-sk-2', custom: true }],
      ]),
    )
    expect(await skillPropertiesOf(database, 'vendor_default', ['sk-1', 'sk-2'])).toEqual(
      new Map([['sk-1', '{"level":2}']]),
    )
  })

  it('deletes skills with their labels, for one vendor', async () => {
    await deleteSkillsWithLabels(database, 'vendor_default', ['sk-1', 'sk-2'])
    expect(await skillHashesOfVendor(database, 'vendor_default')).toEqual(new Map())
    expect(await skillLabelRows(database, 'vendor_default', ['sk-1', 'sk-2'])).toEqual([])
    expect([...(await skillHashesOfVendor(database, 'vendor_a')).keys()]).toEqual(['sk-1'])
    expect(await skillLabelRows(database, 'vendor_a', ['sk-1'])).toHaveLength(1)
  })
})
