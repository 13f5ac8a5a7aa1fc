import { describe, expect, it } from 'vitest'
import { haversineKm } from '../../src/geo/haversine.js'
import { matchVacancies } from '../../src/matching/match-vacancies.js'
import { vacancyCandidates } from '../../src/matching/vacancy-candidates.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { generatedTenantForSuite } from '../helpers/generated-tenant.js'

type Ranked = { employee_id: string; score: number }[]

/**
 * The internal mobility section's candidates (4.11 turned around: every vacancy scored at once
 * over the posting lists, pruned by bounds, the geo rule as a mask) against 4.11 itself asked for
 * every employee of a generated tenant, page by page: the same best candidates with the same
 * scores, and the same count of strong ones, for several numbers of best candidates and strong
 * scores, with the tenant's features off and on. Half of the places are addresses, some of them
 * in the postal-code table and some not, so that the 50 km rule applies, is measured from an
 * address and is skipped for an unknown place.
 */
describe('vacancy candidates equal 4.11 asked for every employee', () => {
  const generated = generatedTenantForSuite(
    { seed: 5, employees: 400, events: 3000, jobs: 25, vacancies: 90 },
    { postalCodes: true },
  )

  /** Every employee's 4.11 answer to the default request, all pages, turned around per vacancy. */
  async function bruteForce(asked: OpenTenant): Promise<Map<string, Ranked>> {
    const byVacancy = new Map<string, Ranked>()
    for (const employee of generated.employees) {
      let offset = 0
      for (;;) {
        const page = await matchVacancies(asked, employee, {}, { limit: '100', offset: String(offset) })
        for (const record of page.records) {
          const list = byVacancy.get(record.vacancy_id) ?? []
          list.push({ employee_id: employee, score: record.score })
          byVacancy.set(record.vacancy_id, list)
        }
        offset += page.records.length
        if (page.records.length === 0 || offset >= page.total) break
      }
    }
    for (const list of byVacancy.values())
      list.sort((a, b) => b.score - a.score || (a.employee_id < b.employee_id ? -1 : 1))
    return byVacancy
  }

  /** Open vacancies and employees whose stored places are coordinates and who share a held skill. */
  const placedPairsSharingSkills = () =>
    generated.tenant.database.all<{
      vacancy: string
      employee: string
      vlat: number
      vlng: number
      elat: number
      elng: number
    }>(
      `SELECT DISTINCT v.entity_id AS vacancy, e.entity_id AS employee,
              (vd.doc->'location'->>'lat')::DOUBLE AS vlat, (vd.doc->'location'->>'lng')::DOUBLE AS vlng,
              (ed.doc->'location'->>'lat')::DOUBLE AS elat, (ed.doc->'location'->>'lng')::DOUBLE AS elng
         FROM profile_skills v
         JOIN profile_skills e ON e.skill_id = v.skill_id AND e.external_vendor = v.external_vendor
         JOIN vacancies vd ON vd.external_id = v.entity_id AND vd.status = 'active'
         JOIN employees ed ON ed.external_id = e.entity_id
        WHERE v.entity_type = 'vacancy' AND e.entity_type = 'employee' AND v.external_vendor = 'vendor_default'
          AND e.validation_state <> 'rejected' AND (e.validation_state = 'validated' OR e.score > 0)
          AND (vd.doc->'location'->>'lat') IS NOT NULL AND (ed.doc->'location'->>'lat') IS NOT NULL`,
    )

  const variants = [
    { name: 'features off', features: { proficiency_matching: false, use_criticalities: false } },
    {
      name: 'proficiency matching and criticalities on',
      features: { proficiency_matching: true, use_criticalities: true },
    },
  ]

  for (const variant of variants) {
    it(`gives each open vacancy the best candidates and strong count of 4.11 (${variant.name})`, async () => {
      const asked: OpenTenant = {
        ...generated.tenant,
        settings: { ...generated.tenant.settings, features: variant.features },
      }
      const expected = await bruteForce(asked)
      const open = await generated.tenant.database.all<{ id: string }>(
        `SELECT external_id AS id FROM vacancies WHERE status = 'active' ORDER BY id`,
      )
      let strongSeen = 0
      let fullSeen = 0
      for (const [best, strongScore] of [
        [3, 0.7],
        [1, 0.3],
        [10, 0.45],
      ] as const) {
        const found = await vacancyCandidates(asked, { best, strongScore })
        expect(found.map((vacancy) => vacancy.vacancy_id)).toEqual(open.map((row) => row.id))
        for (const vacancy of found) {
          const ranked = expected.get(vacancy.vacancy_id) ?? []
          expect(vacancy.best, `${vacancy.vacancy_id}, best ${best}`).toEqual(ranked.slice(0, best))
          expect(vacancy.strong, `${vacancy.vacancy_id} above ${strongScore}`).toBe(
            ranked.filter((candidate) => candidate.score > strongScore).length,
          )
          strongSeen += vacancy.strong
          if (ranked.length > best) fullSeen++
        }
      }
      // The 50 km rule is at work: employees and vacancies at known places farther apart share
      // skills, and 4.11 never lists those pairs.
      const candidates = new Set(
        [...expected.entries()].flatMap(([vacancy, list]) =>
          list.map((entry) => `${vacancy}/${entry.employee_id}`),
        ),
      )
      let far = 0
      for (const pair of await placedPairsSharingSkills()) {
        if (haversineKm(pair.elat, pair.elng, pair.vlat, pair.vlng) <= 50) continue
        far++
        expect(candidates.has(`${pair.vacancy}/${pair.employee}`)).toBe(false)
      }
      expect(far).toBeGreaterThan(0)
      // Not a comparison of empty answers: vacancies with more candidates than kept, strong ones.
      expect(fullSeen).toBeGreaterThan(open.length)
      expect(strongSeen).toBeGreaterThan(0)
    }, 300_000)
  }
})
