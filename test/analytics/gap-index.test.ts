import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gapIndex } from '../../src/analytics/gap-index.js'
import { skillGap } from '../../src/analytics/skill-gap.js'
import { ENTITY_COLLECTIONS } from '../../src/entities/entity-collections.js'
import { createEntity } from '../../src/entities/entity-store.js'
import { storeSkillEvent } from '../../src/entities/skill-event-store.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { derivedGeneratedTenant } from '../helpers/generated-tenant.js'
import { tempDir } from '../helpers/temp-tenant.js'

/**
 * The gap index (what the server reads, `dataVersion` given) against the SQL formulation (what a
 * one-off command reads, no `dataVersion`) on a generated tenant of many employees and vacancies
 * of every status: the same answers, byte for byte, and never an answer of data that changed.
 */
describe('the skill gap from the gap index', () => {
  const temp = tempDir()
  let tenant: OpenTenant
  let employees: string[]
  let vacancies: { id: string; status: string }[]
  const atVersion = (version: string): OpenTenant => ({ ...tenant, dataVersion: version })

  beforeAll(async () => {
    ;({ tenant, employees } = await derivedGeneratedTenant(temp.dir, {
      seed: 11,
      employees: 300,
      events: 1500,
      jobs: 30,
      vacancies: 80,
    }))
    vacancies = await tenant.database.all<{ id: string; status: string }>(
      'SELECT external_id AS id, status FROM vacancies ORDER BY id',
    )
  }, 120_000)
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('gives the same gaps as the database for employees and vacancies of every status', async () => {
    expect(new Set(vacancies.map((vacancy) => vacancy.status)).size).toBeGreaterThan(1)
    const pairs: [string, string][] = []
    employees.forEach((employee, index) => {
      pairs.push([employee, (vacancies[index % vacancies.length] as { id: string }).id])
      pairs.push([employee, (vacancies[(index * 7 + 3) % vacancies.length] as { id: string }).id])
    })
    vacancies.forEach((vacancy, index) => {
      pairs.push([employees[(index * 5) % employees.length] as string, vacancy.id])
    })
    let skills = 0
    for (const [employee, vacancy] of pairs) {
      const fromIndex = await skillGap(atVersion('v1'), employee, vacancy)
      expect(JSON.stringify(fromIndex)).toBe(JSON.stringify(await skillGap(tenant, employee, vacancy)))
      skills += fromIndex.length
    }
    // Not a comparison of empty answers.
    expect(skills).toBeGreaterThan(pairs.length)
  })

  it('names the gap in the requested vocabulary language as the database does', async () => {
    for (const language of ['nl', 'de-AT', 'en-US', 'fr']) {
      for (let index = 0; index < 20; index++) {
        const employee = employees[index * 3] as string
        const vacancy = (vacancies[index] as { id: string }).id
        const options = { vocab_language: language }
        expect(JSON.stringify(await skillGap(atVersion('v1'), employee, vacancy, options))).toBe(
          JSON.stringify(await skillGap(tenant, employee, vacancy, options)),
        )
      }
    }
  })

  it.each([
    ['an unknown employee', 'e-ghost', 'known'],
    ['an unknown vacancy', 'known', 'vac-ghost'],
    ['an unknown employee and vacancy', 'e-ghost', 'vac-ghost'],
  ])('answers %s with the same 404 as the database', async (_, employeeId, vacancyId) => {
    const employee = employeeId === 'known' ? (employees[0] as string) : employeeId
    const vacancy = vacancyId === 'known' ? (vacancies[0] as { id: string }).id : vacancyId
    const fromIndex = await skillGap(atVersion('v1'), employee, vacancy).catch((error: unknown) => error)
    const fromDatabase = await skillGap(tenant, employee, vacancy).catch((error: unknown) => error)
    expect(fromIndex).toMatchObject({ status: 404 })
    expect(fromIndex).toEqual(fromDatabase)
  })

  it('names a skill as the vocabulary names it now, once its name changed', async () => {
    const employee = employees[1] as string
    const vacancy = (vacancies[1] as { id: string }).id
    const [first] = await skillGap(atVersion('v1'), employee, vacancy)
    if (!first) throw new Error('the pair has an empty gap')
    await tenant.database.run(
      `UPDATE skill_labels SET label = 'Renamed skill'
        WHERE external_vendor = 'vendor_default' AND skill_id = $1 AND kind = 'name' AND language = 'en_uk'`,
      [first.skill_id],
    )
    const renamed = await skillGap(atVersion('v1-renamed'), employee, vacancy)
    expect(renamed[0]).toEqual({ skill_name: 'Renamed skill', skill_id: first.skill_id })
    expect(renamed).toEqual(await skillGap(tenant, employee, vacancy))
  })

  it('keeps the index while only the version moves, and rebuilds it once derivation changed the profiles', async () => {
    const vacancy = vacancies.find((candidate) => candidate.status === 'active') as { id: string }
    const employeeCollection = ENTITY_COLLECTIONS.find((collection) => collection.path === 'employees')
    if (!employeeCollection) throw new Error('the employees collection is missing')
    await createEntity(tenant, employeeCollection, { external_id: 'e-gap-new' })

    // A new employee without a profile lacks every skill of the vacancy.
    const before = await skillGap(atVersion('v2'), 'e-gap-new', vacancy.id)
    expect(before).toEqual(await skillGap(tenant, 'e-gap-new', vacancy.id))
    expect(before.length).toBeGreaterThan(0)
    const built = await gapIndex(tenant.database, 'vendor_default', 'v2')
    expect(await gapIndex(tenant.database, 'vendor_default', 'v3')).toBe(built)

    // Once it has worked as the vacancy asks, derivation gives it a profile: the gap shrinks.
    const text = await tenant.database.one<{ title: string; description: string }>(
      `SELECT doc->>'title' AS title, doc->>'description' AS description FROM vacancies WHERE external_id = $1`,
      [vacancy.id],
    )
    await storeSkillEvent(
      tenant,
      'e-gap-new',
      {
        external_id: 'ev-gap-new',
        event_type: 'working_history',
        timestamp: '2026-06-01',
        content: {
          job_title: text?.title,
          company: 'Initech',
          start_date: '2020-01-01',
          end_date: '2026-05-31',
          job_description: text?.description,
        },
        source: 'test',
      },
      {},
    )
    await deriveProfiles({ tenant, asOf: '2026-06-30' })
    const after = await skillGap(atVersion('v4'), 'e-gap-new', vacancy.id)
    expect(await gapIndex(tenant.database, 'vendor_default', 'v4')).not.toBe(built)
    expect(after).toEqual(await skillGap(tenant, 'e-gap-new', vacancy.id))
    expect(after.length).toBeLessThan(before.length)
  })
})
