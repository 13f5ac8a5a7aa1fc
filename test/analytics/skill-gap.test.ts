import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gapSkills } from '../../src/analytics/gap-rule.js'
import { skillGap } from '../../src/analytics/skill-gap.js'
import { SkillGapResponse } from '../../src/schemas/index.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { createAnalyticsTenant, EMPLOYEES, VACANCIES } from './analytics-tenant.js'

/**
 * vac-1 asks for (critical first, then score, then id): Java (critical, level 4), Customer Enquiry
 * Handling (critical by inference), then Project Management 0.9, Python 0.9, SQL 0.9, Dutch 0.7,
 * Data Analysis 0.6, Git 0.6, Teamwork 0.4. e-deep-1 holds Java at 2 (below 4: a gap), Python at 3
 * (≥ 2), SQL at 3 (= 3), Teamwork at 1 (the vacancy states no level) and Dutch without a level.
 */
const GAP_IDS = [
  'skl-java',
  'skl-customer-enquiry-handling',
  'skl-project-management',
  'skl-data-analysis',
  'skl-git',
]
const GAP_NAMES: Record<string, string[]> = {
  en_uk: ['Java', 'Customer Enquiry Handling', 'Project Management', 'Data Analysis', 'Git'],
  en_us: ['Java', 'Customer Inquiry Handling', 'Project Management', 'Data Analysis', 'Git'],
  nl: ['Java', 'Afhandeling van klantvragen', 'Projectmanagement', 'Data-analyse', 'Git'],
  fr: ['Java', 'Traitement des demandes clients', 'Gestion de projet', 'Analyse de données', 'Git'],
  de: ['Java', 'Bearbeitung von Kundenanfragen', 'Projektmanagement', 'Datenanalyse', 'Git'],
}

describe('skill gap between an employee and a vacancy', () => {
  const temp = tempDir()
  let tenant: OpenTenant

  beforeAll(async () => {
    tenant = await createAnalyticsTenant(join(temp.dir, 'data'))
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('lists the missing skills and those held below the required level, critical first, then by score and id', async () => {
    const gap = await skillGap(tenant, 'e-deep-1', 'vac-1')
    expect(SkillGapResponse.parse(gap)).toEqual(gap)
    expect(gap.map((entry) => entry.skill_id)).toEqual(GAP_IDS)
    expect(gap.map((entry) => entry.skill_name)).toEqual(GAP_NAMES.en_uk)
  })

  it.each([
    ['en', 'en_uk'],
    ['en_uk', 'en_uk'],
    ['en_us', 'en_us'],
    ['en-US', 'en_us'],
    ['nl', 'nl'],
    ['nl-BE', 'nl'],
    ['fr', 'fr'],
    ['de', 'de'],
    ['de-AT', 'de'],
  ])('names the same skills in vocab_language %s (%s)', async (input, language) => {
    const gap = await skillGap(tenant, 'e-deep-1', 'vac-1', { vocab_language: input })
    expect(gap.map((entry) => entry.skill_id)).toEqual(GAP_IDS)
    expect(gap.map((entry) => entry.skill_name)).toEqual(GAP_NAMES[language])
  })

  it('lists every skill of the vacancy, in importance order, for an employee without a profile', async () => {
    const gap = await skillGap(tenant, 'e-none', 'vac-1')
    expect(gap.map((entry) => entry.skill_id)).toEqual([
      'skl-java',
      'skl-customer-enquiry-handling',
      'skl-project-management',
      'skl-python',
      'skl-sql',
      'skl-dutch',
      'skl-data-analysis',
      'skl-git',
      'skl-teamwork',
    ])
  })

  it('answers an empty gap for a vacancy with an empty profile', async () => {
    expect(await skillGap(tenant, 'e-deep-1', 'vac-empty')).toEqual([])
  })

  it('reads the profiles of the requested vendor only', async () => {
    // vendor_a is activated but has no vacancy profile: nothing is asked, nothing is missing.
    expect(await skillGap(tenant, 'e-deep-1', 'vac-1', { external_vendor: 'vendor_a' })).toEqual([])
  })

  it('rejects an unknown employee with 404 naming it', async () => {
    await expect(skillGap(tenant, 'e-ghost', 'vac-1')).rejects.toMatchObject({
      status: 404,
      descriptions: ["employee 'e-ghost' does not exist; create it first"],
    })
  })

  it('rejects an unknown vacancy with 404 naming it', async () => {
    await expect(skillGap(tenant, 'e-deep-1', 'vac-ghost')).rejects.toMatchObject({
      status: 404,
      descriptions: ["vacancy 'vac-ghost' does not exist; create it first"],
    })
  })

  it('names both when the employee and the vacancy are unknown', async () => {
    await expect(skillGap(tenant, 'e-ghost', 'vac-ghost')).rejects.toMatchObject({
      status: 404,
      descriptions: [
        "employee 'e-ghost' does not exist; create it first",
        "vacancy 'vac-ghost' does not exist; create it first",
      ],
    })
  })

  it.each([
    ['klingon', /vocab_language: 'klingon' is not a vocabulary language/],
    ['es', /available only with external_vendor=vendor_a/],
    ['fr-CA', /available only with external_vendor=vendor_a/],
  ])('rejects vocab_language %s with 422', async (input, message) => {
    const error = await skillGap(tenant, 'e-deep-1', 'vac-1', { vocab_language: input }).catch((e) => e)
    expect(error).toMatchObject({ status: 422 })
    expect(error.message).toMatch(message)
  })

  it('answers every employee, vacancy, language and vendor the same from the gap index as from the database', async () => {
    // The server reads the gap index (it knows the data version); the CLI asks the database.
    const indexed = { ...tenant, dataVersion: 'test' }
    for (const employee of [...EMPLOYEES.map((entry) => entry.external_id), 'e-ghost']) {
      for (const vacancy of [...VACANCIES.map((entry) => entry.external_id), 'vac-ghost']) {
        for (const options of [
          {},
          { vocab_language: 'nl' },
          { vocab_language: 'en-US' },
          { external_vendor: 'vendor_a' },
        ]) {
          const answer = (source: OpenTenant) =>
            skillGap(source, employee, vacancy, options).then(JSON.stringify, (error: unknown) => error)
          expect(await answer(indexed)).toEqual(await answer(tenant))
        }
      }
    }
    expect(JSON.stringify(await skillGap(indexed, 'e-deep-1', 'vac-1'))).toBe(
      JSON.stringify(GAP_IDS.map((id, index) => ({ skill_name: GAP_NAMES.en_uk?.[index], skill_id: id }))),
    )
  })

  it('rejects a vendor the tenant has not activated with 403 and a value that is no vendor with 422', async () => {
    await expect(
      skillGap(tenant, 'e-deep-1', 'vac-1', { external_vendor: 'vendor_b' }),
    ).rejects.toMatchObject({
      status: 403,
    })
    await expect(skillGap(tenant, 'e-deep-1', 'vac-1', { external_vendor: 'acme' })).rejects.toMatchObject({
      status: 422,
    })
  })
})

describe('the gap rule on plain data', () => {
  const skill = (skill_id: string, extra: Partial<Parameters<typeof gapSkills>[0][number]> = {}) => ({
    skill_id,
    critical: false,
    score: 0.5,
    required_level: null,
    held: true,
    held_level: null,
    ...extra,
  })

  it('compares levels only when both are known and says why a skill is in the gap', () => {
    const gap = gapSkills([
      skill('a', { required_level: 3, held_level: 2 }),
      skill('b', { required_level: 3, held_level: null }),
      skill('c', { required_level: null, held_level: 1 }),
      skill('d', { held: false }),
      skill('e', { required_level: 3, held_level: 3 }),
    ])
    expect(gap.map((entry) => [entry.skill_id, entry.reason])).toEqual([
      ['a', 'below_required_level'],
      ['d', 'missing'],
    ])
  })

  it('orders critical skills first, then by score, then by skill_id', () => {
    const gap = gapSkills([
      skill('z', { held: false, score: 0.9 }),
      skill('y', { held: false, score: 0.1, critical: true }),
      skill('b', { held: false, score: 0.5 }),
      skill('a', { held: false, score: 0.5 }),
    ])
    expect(gap.map((entry) => entry.skill_id)).toEqual(['y', 'z', 'a', 'b'])
  })
})
