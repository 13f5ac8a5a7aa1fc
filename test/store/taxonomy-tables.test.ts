import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  hasPropertyDefinition,
  insertPropertyDefinition,
  propertyDefinitionRows,
  propertyDefinitionRowsInOrder,
} from '../../src/store/taxonomy/custom-property-tables.js'
import {
  childIds,
  deleteLevelRow,
  findLevelRow,
  insertLevelRow,
  skillClusterTotals,
  updateLevelRow,
} from '../../src/store/taxonomy/level-tables.js'
import { pageIds } from '../../src/store/taxonomy/page-ids.js'
import {
  deleteSkillRows,
  findSkillRows,
  insertCustomSkill,
  skillLabelRows,
} from '../../src/store/taxonomy/skill-tables.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tempDir } from '../helpers/temp-tenant.js'

const T0 = new Date('2026-03-01T10:00:00.000Z')
const T1 = new Date('2026-03-02T11:30:00.000Z')
/** An id that would change the statement if it were spliced into the SQL text. */
const HOSTILE = "x' OR '1'='1"

describe('the taxonomy statements of the store, on a real DuckDB file', () => {
  const temp = tempDir()
  let database: TenantDatabase
  beforeAll(async () => {
    database = await TenantDatabase.open(join(temp.dir, 'taxonomy.duckdb'), { create: true })
    const write = { parent: null, properties: null, time: T0 }
    await insertLevelRow(database, 'domains', 'vendor_default', 'dom-1', { ...write, name: 'Logistics' })
    await insertLevelRow(database, 'domains', 'vendor_default', 'dom-2', { ...write, name: 'Finance' })
    await insertLevelRow(database, 'domains', 'vendor_a', 'dom-1', { ...write, name: 'Other vendor' })
    for (const id of ['sub-3', 'sub-1', 'sub-2']) {
      await insertLevelRow(database, 'subdomains', 'vendor_default', id, {
        ...write,
        name: `Subdomain ${id}`,
        parent: 'dom-1',
      })
    }
    await insertLevelRow(database, 'skill_clusters', 'vendor_default', 'cl-1', {
      name: 'Warehousing',
      parent: 'sub-1',
      properties: '{"level":3}',
      time: T1,
    })
  })
  afterAll(() => {
    database.close()
    temp.cleanup()
  })

  it('reads back a level entity as written: name, parent, custom, custom properties and time', async () => {
    expect(await findLevelRow(database, 'skill_clusters', 'vendor_default', 'cl-1')).toEqual({
      external_id: 'cl-1',
      name: 'Warehousing',
      parent: 'sub-1',
      custom: true,
      props: '{"level":3}',
      updated_at: T1,
    })
    expect(await findLevelRow(database, 'domains', 'vendor_default', 'dom-1')).toMatchObject({
      name: 'Logistics',
      parent: null,
      props: null,
    })
  })

  it('keeps each vendor apart and binds ids as values, never as SQL', async () => {
    expect((await findLevelRow(database, 'domains', 'vendor_a', 'dom-1'))?.name).toBe('Other vendor')
    expect(await findLevelRow(database, 'domains', 'vendor_b', 'dom-1')).toBeUndefined()
    expect(await findLevelRow(database, 'domains', 'vendor_default', HOSTILE)).toBeUndefined()
    expect(await childIds(database, 'domains', 'vendor_default', HOSTILE, 10)).toEqual([])
  })

  it('updates the name, the parent and the custom properties of one entity only', async () => {
    await updateLevelRow(database, 'subdomains', 'vendor_default', 'sub-3', {
      name: 'Moved',
      parent: 'dom-2',
      properties: '{"a":"b"}',
      time: T1,
    })
    expect(await findLevelRow(database, 'subdomains', 'vendor_default', 'sub-3')).toMatchObject({
      name: 'Moved',
      parent: 'dom-2',
      props: '{"a":"b"}',
      updated_at: T1,
    })
    expect((await findLevelRow(database, 'subdomains', 'vendor_default', 'sub-2'))?.name).toBe(
      'Subdomain sub-2',
    )
    await updateLevelRow(database, 'domains', 'vendor_default', 'dom-2', {
      name: 'Finance and Tax',
      parent: null,
      properties: null,
      time: T1,
    })
    expect((await findLevelRow(database, 'domains', 'vendor_default', 'dom-2'))?.name).toBe('Finance and Tax')
  })

  it('lists the children that refer to an entity, in order, up to the limit', async () => {
    expect(await childIds(database, 'domains', 'vendor_default', 'dom-1', 10)).toEqual(['sub-1', 'sub-2'])
    expect(await childIds(database, 'domains', 'vendor_default', 'dom-1', 1)).toEqual(['sub-1'])
    expect(await childIds(database, 'subdomains', 'vendor_default', 'sub-1', 10)).toEqual(['cl-1'])
    expect(await childIds(database, 'domains', 'vendor_a', 'dom-1', 10)).toEqual([])
  })

  it('pages through the ids of a vendor after a starting point', async () => {
    expect(await pageIds(database, 'subdomains', 'vendor_default', null, 2)).toEqual(['sub-1', 'sub-2'])
    expect(await pageIds(database, 'subdomains', 'vendor_default', 'sub-2', 2)).toEqual(['sub-3'])
    expect(await pageIds(database, 'domains', 'vendor_a', null, 10)).toEqual(['dom-1'])
    expect(await pageIds(database, 'domains', 'vendor_default', HOSTILE, 10)).toEqual([])
  })

  it('counts the skill clusters of the named vendors with their newest change', async () => {
    expect(await skillClusterTotals(database, ['vendor_default', 'vendor_a'])).toEqual({ count: 1, last: T1 })
    expect(await skillClusterTotals(database, ['vendor_b'])).toEqual({ count: 0, last: null })
  })

  it('deletes one entity of one vendor', async () => {
    await deleteLevelRow(database, 'subdomains', 'vendor_default', 'sub-2')
    expect(await findLevelRow(database, 'subdomains', 'vendor_default', 'sub-2')).toBeUndefined()
    expect(await pageIds(database, 'subdomains', 'vendor_default', null, 10)).toEqual(['sub-1', 'sub-3'])
  })

  describe('skills', () => {
    const skill = {
      external_id: 'sk-forklift',
      skill_cluster_id: 'cl-1',
      skill_type: 'hard_skill' as const,
      description: 'Drives a forklift',
      names: { en_uk: 'Forklift driving', de_de: 'Gabelstaplerfahren' },
      aliases: { en_uk: ['Forklift operation', 'Lift truck driving'] },
      properties: '{"certified":true}',
      content_hash: 'hash-1',
      time: T0,
    }

    it('stores a custom skill and reads it with the subdomain and domain of its cluster', async () => {
      await insertCustomSkill(database, 'vendor_default', skill)
      expect(await findSkillRows(database, 'vendor_default', ['sk-forklift', 'sk-unknown'])).toEqual([
        {
          external_id: 'sk-forklift',
          external_vendor: 'vendor_default',
          skill_cluster_id: 'cl-1',
          skill_type: 'hard_skill',
          description: 'Drives a forklift',
          custom: true,
          props: '{"certified":true}',
          content_hash: 'hash-1',
          updated_at: T0,
          subdomain_id: 'sub-1',
          domain_id: 'dom-1',
        },
      ])
    })

    it('reads its names and aliases in the order they were written', async () => {
      expect(await skillLabelRows(database, 'vendor_default', ['sk-forklift'])).toEqual([
        { skill_id: 'sk-forklift', language: 'en_uk', kind: 'name', label: 'Forklift driving' },
        { skill_id: 'sk-forklift', language: 'de_de', kind: 'name', label: 'Gabelstaplerfahren' },
        { skill_id: 'sk-forklift', language: 'en_uk', kind: 'alias', label: 'Forklift operation' },
        { skill_id: 'sk-forklift', language: 'en_uk', kind: 'alias', label: 'Lift truck driving' },
      ])
      expect(await skillLabelRows(database, 'vendor_a', ['sk-forklift'])).toEqual([])
      expect(await findSkillRows(database, 'vendor_default', [])).toEqual([])
    })

    it('pages skills and deletes a skill with its labels', async () => {
      expect(await pageIds(database, 'skills', 'vendor_default', null, 10)).toEqual(['sk-forklift'])
      await deleteSkillRows(database, 'vendor_default', 'sk-forklift')
      expect(await findSkillRows(database, 'vendor_default', ['sk-forklift'])).toEqual([])
      expect(await skillLabelRows(database, 'vendor_default', ['sk-forklift'])).toEqual([])
    })
  })

  describe('custom property definitions', () => {
    it('stores definitions per entity type and lists them oldest first', async () => {
      await insertPropertyDefinition(
        database,
        'taxonomy/skills',
        { property_name: 'zeta', property_type: 'text' },
        T0,
      )
      await insertPropertyDefinition(
        database,
        'taxonomy/skills',
        { property_name: 'alpha', property_type: 'number' },
        T1,
      )
      await insertPropertyDefinition(
        database,
        'taxonomy/domains',
        { property_name: 'alpha', property_type: 'boolean' },
        T0,
      )
      expect(await propertyDefinitionRowsInOrder(database, 'taxonomy/skills')).toEqual([
        { property_name: 'zeta', property_type: 'text' },
        { property_name: 'alpha', property_type: 'number' },
      ])
      expect(
        (await propertyDefinitionRows(database, 'taxonomy/domains')).map((row) => row.property_type),
      ).toEqual(['boolean'])
      expect(await hasPropertyDefinition(database, 'taxonomy/skills', 'alpha')).toBe(true)
      expect(await hasPropertyDefinition(database, 'taxonomy/subdomains', 'alpha')).toBe(false)
      expect(await hasPropertyDefinition(database, 'taxonomy/skills', HOSTILE)).toBe(false)
    })
  })
})
