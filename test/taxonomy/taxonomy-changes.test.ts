import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readEvents, readOutbox } from '../../src/events/outbox.js'
import { TaxonomyChangesPage } from '../../src/schemas/index.js'
import { importEsco } from '../../src/taxonomy/import-esco.js'
import { importVocabulary } from '../../src/taxonomy/import-vocabulary.js'
import { listTaxonomyChanges } from '../../src/taxonomy/taxonomy-changes.js'
import {
  createDomain,
  createSkill,
  deleteSkill,
  updateSkill,
} from '../../src/taxonomy/taxonomy-operations.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir, testFixture } from '../helpers/temp-tenant.js'

const BASE = 'http://127.0.0.1:8080/acme/eu'
const MINI = testFixture('esco-mini')

describe('taxonomy changes and their events', () => {
  const temp = tempDir()
  let tenant: OpenTenant

  beforeAll(async () => {
    tenant = await createOpenTenant(join(temp.dir, 'data'), 'acme', { vendors: ['vendor_a'] })
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  const newEvents = async (work: () => Promise<unknown>) => {
    const last = (await readOutbox(tenant.database)).at(-1)?.seq ?? 0
    await work()
    return readEvents(tenant.database, { sinceSeq: last })
  }

  it('records the initial default vocabulary as one change with one taxonomy event and no skill events', async () => {
    const page = await listTaxonomyChanges(tenant.database, {})
    expect(page.records).toHaveLength(1)
    const [change] = page.records
    expect(change).toMatchObject({
      operation_type: 'vocabulary_imported',
      entity_external_id: null,
      external_vendor: 'vendor_default',
      details: { source: 'default', custom: false, skill_events: false },
    })
    expect((change?.details.skills as { created: number } | undefined)?.created).toBeGreaterThan(1000)
    const events = await readEvents(tenant.database)
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      type: 'ai.vendor.taxonomy.updated.v1',
      source: `${BASE}/taxonomy/changes`,
      data: { tenant_name: 'acme', operation_type: 'vocabulary_imported', external_id: change?.external_id },
    })
  })

  it('sends one skill.created per new skill and one taxonomy.updated for an ESCO import', async () => {
    let changeId: string | null = null
    const events = await newEvents(async () => {
      changeId = (await importEsco(tenant, [MINI])).change_id
    })
    const created = events.filter((event) => event.type === 'ai.vendor.taxonomy.skill.created.v1')
    expect(created).toHaveLength(30)
    for (const event of created) {
      expect(event.data).toEqual({
        tenant_name: 'acme',
        external_id: expect.stringMatching(/^esco-/),
        external_vendor: 'vendor_a',
      })
      expect(event.source).toBe(`${BASE}/taxonomy/skills/${event.data.external_id}`)
    }
    expect(events.at(-1)).toMatchObject({
      type: 'ai.vendor.taxonomy.updated.v1',
      data: { operation_type: 'vocabulary_imported', external_id: changeId },
    })
    expect(events).toHaveLength(31)
  })

  it('records nothing and sends nothing when the same vocabulary is imported again', async () => {
    const changes = (await listTaxonomyChanges(tenant.database, {})).records.length
    const events = await newEvents(async () => {
      const summary = await importEsco(tenant, [MINI])
      expect(summary.change_id).toBeNull()
      expect(summary.skill_changes).toEqual({ created: 0, updated: 0, deleted: 0 })
    })
    expect(events).toEqual([])
    expect((await listTaxonomyChanges(tenant.database, {})).records).toHaveLength(changes)
  })

  it('sends skill.updated and skill.deleted for the skills a new vocabulary version changes or drops', async () => {
    const changed = join(temp.dir, 'esco-changed')
    cpSync(MINI, changed, { recursive: true })
    for (const file of ['skills_en.csv', 'skills_nl.csv']) {
      const path = join(changed, file)
      const lines = readFileSync(path, 'utf8').split('\r\n')
      // Drop "think critically" in both languages; rename "present reports" in English.
      const kept = lines.filter((line) => !/,think critically,|,kritisch denken,/.test(line))
      writeFileSync(path, kept.join('\r\n').replace(',present reports,', ',present business reports,'))
    }
    const events = await newEvents(() => importEsco(tenant, [changed]))
    const byType = (type: string) =>
      events.filter((event) => event.type === `ai.vendor.taxonomy.skill.${type}.v1`)
    expect(byType('created')).toHaveLength(0)
    expect(byType('updated')).toHaveLength(1)
    expect(byType('deleted')).toHaveLength(1)
    expect(events.at(-1)?.type).toBe('ai.vendor.taxonomy.updated.v1')
    const deletedId = byType('deleted')[0]?.data.external_id
    const gone = await tenant.database.all('SELECT 1 FROM skills WHERE external_id = $1', [
      deletedId as string,
    ])
    expect(gone).toEqual([])
  })

  it('records each taxonomy operation with its own change id, entity and events', async () => {
    const events = await newEvents(async () => {
      await createDomain(tenant, { external_id: 'dom-ops', domain_name: 'Operations' })
      await createSkill(tenant, { external_id: 'sk-forklift', skill_name: 'Forklift operation' })
      await updateSkill(tenant, 'sk-forklift', { description: 'Driving a forklift truck safely.' })
      await deleteSkill(tenant, 'sk-forklift')
    })
    expect(events.map((event) => event.type)).toEqual([
      'ai.vendor.taxonomy.updated.v1',
      'ai.vendor.taxonomy.skill.created.v1',
      'ai.vendor.taxonomy.updated.v1',
      'ai.vendor.taxonomy.skill.updated.v1',
      'ai.vendor.taxonomy.updated.v1',
      'ai.vendor.taxonomy.skill.deleted.v1',
      'ai.vendor.taxonomy.updated.v1',
    ])
    const taxonomyEvents = events.filter((event) => event.type === 'ai.vendor.taxonomy.updated.v1')
    const operations = taxonomyEvents.map((event) => event.data.operation_type)
    expect(operations).toEqual(['domain_created', 'skill_created', 'skill_updated', 'skill_deleted'])
    for (const event of taxonomyEvents) {
      const page = await listTaxonomyChanges(tenant.database, { external_id: event.data.external_id })
      expect(page.records).toHaveLength(1)
      expect(page.records[0]?.operation_type).toBe(event.data.operation_type)
      expect(page.records[0]?.external_id).toMatch(/^chg-[0-9a-f]{32}$/)
    }
    expect(events[1]?.data).toEqual({
      tenant_name: 'acme',
      external_id: 'sk-forklift',
      external_vendor: 'vendor_default',
    })
  })

  it('filters changes by operation_type and pages them in time order with starting_after', async () => {
    const skills = await listTaxonomyChanges(tenant.database, { operation_type: 'skill_created' })
    expect(skills.records.map((change) => change.entity_external_id)).toEqual(['sk-forklift'])

    const all = await listTaxonomyChanges(tenant.database, {})
    expect(TaxonomyChangesPage.parse(all)).toEqual(all)
    const times = all.records.map((change) => change.time)
    expect(times).toEqual([...times].sort())
    const first = await listTaxonomyChanges(tenant.database, { limit: 2 })
    expect(first.has_next).toBe(true)
    expect(first.next_starting_after).toBe(first.records[1]?.external_id)
    const second = await listTaxonomyChanges(tenant.database, {
      limit: 2,
      starting_after: first.next_starting_after,
    })
    expect(second.records[0]?.external_id).toBe(all.records[2]?.external_id)
    const last = await listTaxonomyChanges(tenant.database, {
      starting_after: all.records.at(-1)?.external_id,
    })
    expect(last).toEqual({ records: [], has_next: false, next_starting_after: null })
  })

  it('answers 422 naming the field for an unknown operation_type or cursor', async () => {
    await expect(
      listTaxonomyChanges(tenant.database, { operation_type: 'skill_renamed' }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^operation_type: /),
    })
    await expect(
      listTaxonomyChanges(tenant.database, { starting_after: 'chg-unknown' }),
    ).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("starting_after: no taxonomy change 'chg-unknown'"),
    })
  })

  it('records nothing when an import fails, because the change and its events share one transaction', async () => {
    const before = (await readOutbox(tenant.database)).length
    const changes = (await listTaxonomyChanges(tenant.database, {})).records.length
    // A vocabulary skill with the id of a custom skill: the import is refused as a whole.
    await createSkill(
      tenant,
      { external_id: 'collides', skill_name: 'Custom' },
      { external_vendor: 'vendor_a' },
    )
    const vocabulary = {
      domains: [{ external_id: 'd', domain_name: 'D' }],
      subdomains: [{ external_id: 's', domain_id: 'd', subdomain_name: 'S' }],
      skill_clusters: [{ external_id: 'c', subdomain_id: 's', skill_cluster_name: 'C' }],
      skills: [
        {
          external_id: 'collides',
          skill_cluster_id: 'c',
          skill_type: 'hard_skill' as const,
          description: null,
          names: { en_uk: 'X' },
          aliases: {},
        },
      ],
    }
    await expect(importVocabulary(tenant.database, 'vendor_a', vocabulary)).rejects.toMatchObject({
      status: 409,
    })
    expect((await readOutbox(tenant.database)).length).toBe(before + 2) // the custom skill's own two events
    expect((await listTaxonomyChanges(tenant.database, {})).records).toHaveLength(changes + 1)
  })
})
