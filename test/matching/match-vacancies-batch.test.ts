import { describe, expect, it } from 'vitest'
import { matchAllEmployees, matchVacancies } from '../../src/matching/match-vacancies.js'
import type { VacancyMatchingQuery } from '../../src/matching/vacancy-match-schema.js'
import { builtWorkerScript } from '../helpers/built-scripts.js'
import { generatedTenantForSuite } from '../helpers/generated-tenant.js'

/** The batch on two worker threads (the compiled worker script), small messages or not. */
const THREADED = { script: builtWorkerScript('matching/vacancy-match-worker'), threads: 2 }

/**
 * The batch of 4.11 answers (`matchAllEmployees`: records read a few thousand at a time, shared
 * places and distances, candidates from the vacancies' posting lists) against 4.11 asked for one
 * employee at a time, on every employee of a generated tenant: the same bytes for each, or the
 * same problems. Half of the places are addresses, some in the postal-code table and some not,
 * so that the 50 km rule applies, is measured from an address and is skipped for an unknown
 * place. The requests go through both ways of ranking: skills_match alone (candidates from the
 * posting lists) and with other weights (every vacancy a candidate). The batch runs on this thread
 * and on two worker threads (whose reads go to this thread): the same bytes both ways.
 */
describe('a batch of 4.11 answers equals 4.11 asked employee by employee', () => {
  const generated = generatedTenantForSuite(
    { seed: 21, employees: 300, events: 2500, jobs: 20, vacancies: 160 },
    { postalCodes: true },
  )

  /** Each employee's answer as text (or its 422's descriptions), asked alone and in one batch. */
  async function bothWays(body: Record<string, unknown>, query: VacancyMatchingQuery) {
    const alone = new Map<string, string>()
    for (const employee of generated.employees) {
      try {
        alone.set(employee, JSON.stringify(await matchVacancies(generated.tenant, employee, body, query)))
      } catch (error) {
        alone.set(employee, JSON.stringify((error as { descriptions?: string[] }).descriptions))
      }
    }
    const batchOf = async (threads: { script?: URL; threads: number }) => {
      const batch = new Map<string, string>()
      const order: string[] = []
      const summary = await matchAllEmployees(
        generated.tenant,
        body,
        query,
        (response) => {
          order.push(response.employee_id)
          batch.set(response.employee_id, JSON.stringify(response))
        },
        { threads },
      )
      for (const failed of summary.failed) batch.set(failed.employee_id, JSON.stringify(failed.errors))
      return { batch, summary, order }
    }
    const single = await batchOf({ threads: 0 })
    const threaded = await batchOf(THREADED)
    return { alone, ...single, threaded }
  }

  /** The employee's regions hold the vacancy's (custom properties of the generated tenant). */
  const REGIONS = { from_entity_property: 'mobility_regions', to_entity_property: 'regions' }

  const requests: [string, Record<string, unknown>, VacancyMatchingQuery][] = [
    ['the nightly request (no filters or weights)', {}, {}],
    [
      'every include, explained, a long page',
      {},
      {
        limit: '60',
        offset: '2',
        response_format: 'explained',
        include: [
          'location',
          'custom_properties',
          'score_breakdown',
          'match_feedback',
          'relevant_experience',
        ],
      },
    ],
    [
      'language and custom property filters, a wider distance, a minimum score',
      {
        filters: [
          { filter: 'max_geo_distance', max_geo_distance: 300 },
          { filter: 'language', max_overqualification: 4, max_underqualification: 1 },
          { filter: 'custom_property_is_in', ...REGIONS },
        ],
      },
      { min_score: '0.2', limit: '25' },
    ],
    [
      'only some event types, from a postal code',
      {
        filters: [
          {
            filter: 'max_geo_distance',
            max_geo_distance: 120,
            location: { country: 'BE', postal_code: '1000' },
          },
        ],
        event_types: ['learning', 'working_history'],
      },
      { include: ['location'] },
    ],
    [
      'weights besides skills_match (every vacancy a candidate)',
      {
        weights: [
          { weight: 'skills_match', value: 3 },
          { weight: 'desired_functions', value: 1 },
          { weight: 'geo_distance', value: 1, full_score_distance: 10, zero_score_distance: 200 },
          { weight: 'custom_property_is_in', value: 1, ...REGIONS },
        ],
      },
      { include: ['score_breakdown'], limit: '30' },
    ],
  ]

  for (const [what, body, query] of requests) {
    it(`gives the same bytes for every employee: ${what}`, async () => {
      const { alone, batch, summary, order, threaded } = await bothWays(body, query)
      expect(summary.employees).toBe(generated.employees.length)
      expect(summary.threads).toBe(0)
      expect([...batch.keys()].sort()).toEqual(generated.employees)
      for (const employee of generated.employees) {
        expect(batch.get(employee), employee).toBe(alone.get(employee))
        expect(threaded.batch.get(employee), `${employee} threaded`).toBe(alone.get(employee))
      }
      // The threads answered, and in the order of the employees, as this thread does.
      expect(threaded.summary.threads).toBe(2)
      expect(threaded.order).toEqual(order)
      expect(threaded.summary.failed).toEqual(summary.failed)
      // The comparison means something: answers with matches for most employees.
      expect(summary.matches).toBeGreaterThan(generated.employees.length / 2)
    }, 120_000)
  }

  it('fails the batch when its worker threads cannot start', async () => {
    const missing = { script: builtWorkerScript('matching/no-such-worker'), threads: 2 }
    await expect(
      matchAllEmployees(generated.tenant, {}, {}, () => undefined, { threads: missing }),
    ).rejects.toThrow()
  })

  it('answers the named employees in their order, and a 404 for one unknown', async () => {
    const named = [generated.employees[7], generated.employees[3], generated.employees[250]] as string[]
    const order: string[] = []
    await matchAllEmployees(generated.tenant, {}, {}, (response) => void order.push(response.employee_id), {
      employees: named,
    })
    expect(order).toEqual(named)
    await expect(
      matchAllEmployees(generated.tenant, {}, {}, () => undefined, { employees: ['emp-nobody'] }),
    ).rejects.toMatchObject({ status: 404 })
  })
})

/**
 * Pages of one ranking: the first places are kept in a short list, far offsets keep and sort every
 * vacancy ranked; both give pages of one order (score descending, then vacancy id), in the batch as
 * asked alone. A wide distance ranks most of the tenant's 700 vacancies for each employee.
 */
describe('pages of 4.11 answers are slices of one ranking', () => {
  const generated = generatedTenantForSuite(
    { seed: 22, employees: 24, events: 400, jobs: 12, vacancies: 700 },
    { postalCodes: true },
  )
  const WIDE = {
    filters: [{ filter: 'max_geo_distance', max_geo_distance: 2_000, location: { lat: 50.85, lng: 4.35 } }],
  }
  const PAGES = [0, 100, 200, 300].map((offset) => ({ offset: String(offset), limit: '100' }))
  type Answer = { records: { vacancy_id: string; score: number; rank: number }[]; total: number }

  it('gives near and far pages that follow one another, best first, ties by id', async () => {
    let ranked = 0
    for (const employee of generated.employees) {
      const pages: Answer[] = []
      for (const query of PAGES)
        pages.push((await matchVacancies(generated.tenant, employee, WIDE, query)) as Answer)
      const total = (pages[0] as Answer).total
      const all = pages.flatMap((page) => page.records)
      expect(pages.every((page) => page.total === total)).toBe(true)
      expect(all.length).toBe(total)
      expect(new Set(all.map((record) => record.vacancy_id)).size).toBe(total)
      for (let at = 1; at < all.length; at++) {
        const [a, b] = [all[at - 1], all[at]] as [Answer['records'][0], Answer['records'][0]]
        expect(a.score > b.score || (a.score === b.score && a.vacancy_id < b.vacancy_id), employee).toBe(true)
      }
      // A page across the short list's end: the same records as the pages around it.
      const across = (await matchVacancies(generated.tenant, employee, WIDE, {
        offset: '250',
        limit: '20',
      })) as Answer
      expect(across.records).toEqual(all.slice(250, 270))
      ranked = Math.max(ranked, total)
    }
    // The far pages mean something: some employee has more than 256 vacancies ranked.
    expect(ranked).toBeGreaterThan(270)
  }, 120_000)

  it('gives the same far pages in a batch as asked alone', async () => {
    for (const query of [...PAGES, { offset: '250', limit: '20' }]) {
      const batch = new Map<string, string>()
      await matchAllEmployees(generated.tenant, WIDE, query, (response) => {
        batch.set(response.employee_id, JSON.stringify(response))
      })
      for (const employee of generated.employees)
        expect(batch.get(employee)).toBe(
          JSON.stringify(await matchVacancies(generated.tenant, employee, WIDE, query)),
        )
    }
  }, 120_000)
})
