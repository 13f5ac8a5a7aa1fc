import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadEmployeeForMatching } from '../../src/matching/vacancy-employee.js'
import { type VacancyIndex, vacancyIndex } from '../../src/matching/vacancy-index.js'
import { checkVacancyRequest } from '../../src/matching/vacancy-request-check.js'
import { VacancyMatchingRequest } from '../../src/schemas/index.js'
import { csv, type MatchingTenantFixture, matchingTenant, ndjson } from './matching-helpers.js'

/**
 * The request checker of 4.11 returns its problems (it does not throw them): every problem of a
 * request, in the request's order, for one employee. emp-1 lives in Brussels (lat/lng); emp-2 has
 * no location. The tenant holds no postal codes.
 */
let fixture: MatchingTenantFixture
let index: VacancyIndex

beforeAll(async () => {
  fixture = await matchingTenant()
  await fixture.ingest({
    'custom_property_definitions.csv': csv(
      ['entity_type', 'property_name', 'property_type'],
      [
        ['employees', 'contract', 'text'],
        ['vacancies', 'contract_type', 'text'],
        ['vacancies', 'regions', 'list[text]'],
      ],
    ),
    'vacancies.ndjson': ndjson([
      {
        external_id: 'vac-01',
        title: 'Data Engineer',
        location: { lat: 51.2194, lng: 4.4025 },
        custom_properties: { contract_type: 'permanent', regions: ['Flanders'] },
      },
      { external_id: 'vac-02', title: 'Analyst', location: { lat: 50.8466, lng: 4.3528 } },
    ]),
    'employees.ndjson': ndjson([
      { external_id: 'emp-1', location: { lat: 50.8466, lng: 4.3528 }, custom_properties: { contract: 'x' } },
      { external_id: 'emp-2' },
    ]),
  })
  await fixture.profile('vacancy', 'vac-01', [{ skill_id: 'skl-sql' }])
  await fixture.profile('vacancy', 'vac-02', [{ skill_id: 'skl-sql' }, { skill_id: 'skl-python' }])
  await fixture.profile('employee', 'emp-1', [{ skill_id: 'skl-sql', validated: true }])
  const { features } = fixture.tenant.settings
  index = await vacancyIndex(fixture.tenant.database, 'vendor_default', {
    proficiencyMatching: features.proficiency_matching,
    useCriticalities: features.use_criticalities,
  })
}, 120_000)
afterAll(() => fixture?.close())

async function check(employeeId: string, body: unknown, needDistance = false) {
  const database = fixture.tenant.database
  const employee = await loadEmployeeForMatching(database, index, employeeId)
  return checkVacancyRequest(database, index, employee, VacancyMatchingRequest.parse(body), {
    needDistance,
    evidence: undefined,
  })
}

describe('checkVacancyRequest', () => {
  it('returns a plan and no problems for a request that holds', async () => {
    const checked = await check(
      'emp-1',
      {
        filters: [{ filter: 'max_geo_distance', max_geo_distance: 100 }],
        weights: [{ weight: 'geo_distance', value: 1, full_score_distance: 10, zero_score_distance: 60 }],
      },
      true,
    )
    expect(checked.problems).toEqual([])
    const plan = checked.plan
    if (!plan) throw new Error('no plan')
    // skills_match comes first (1.0, not given), then the request's weights.
    expect(plan.components.map((component) => [component.weight, component.value])).toEqual([
      ['skills_match', 1],
      ['geo_distance', 1],
    ])
    expect(plan.totalValue).toBe(2)
    expect(plan.geo).toEqual({ applied: true })
    expect(plan.filters).toHaveLength(1)
    expect(plan.distance?.[1]).toBe(0)
    expect(plan.heldMask[index.skillIndex.get('skl-sql') as number]).toBe(1)
    expect(plan.heldMask[index.skillIndex.get('skl-python') as number]).toBe(0)
  })

  it('returns every problem of a request in the order of the request, and no plan', async () => {
    const checked = await check('emp-2', {
      filters: [
        { filter: 'custom_property', property_name: 'seniority', property_value: 'senior' },
        { filter: 'max_geo_distance', max_geo_distance: 10 },
        {
          filter: 'max_geo_distance',
          max_geo_distance: 10,
          location: { country: 'BE', postal_code: '1000' },
        },
      ],
      weights: [
        { weight: 'skills_match', value: 0 },
        { weight: 'geo_distance', value: 0, full_score_distance: 50, zero_score_distance: 10 },
        {
          weight: 'custom_property',
          value: 0,
          property_name: 'regions',
          operator: 'eq',
          property_value: 'x',
        },
      ],
    })
    expect(checked.plan).toBeNull()
    expect(checked.problems).toEqual([
      // The places of the max_geo_distance filters are resolved first.
      expect.stringMatching(
        /^filters\[2\]\.location\.postal_code: postal code '1000' of country BE is not in the postal-code table; the table holds no postal codes of BE/,
      ),
      "filters[0].property_name: no custom property 'seniority' is defined for vacancies; defined: contract_type, regions",
      'filters[1]: employee emp-2 has no location; give filters[1].location to measure from',
      'weights[1].zero_score_distance: must be greater than full_score_distance (50); got 10',
      'weights[2].property_name: vacancies.regions is a list[text] property; use custom_property_contains_element for lists',
      'weights: the values must not all be 0',
    ])
  })

  it('returns the problems that depend on the employee for that employee only', async () => {
    const body = { filters: [{ filter: 'max_geo_distance', max_geo_distance: 10 }] }
    expect((await check('emp-1', body)).problems).toEqual([])
    expect((await check('emp-2', body)).problems).toEqual([
      'filters[0]: employee emp-2 has no location; give filters[0].location to measure from',
    ])
  })

  it('notes, without a problem, that the default distance filter needs the employee’s place', async () => {
    const checked = await check('emp-2', {})
    expect(checked.problems).toEqual([])
    expect(checked.plan?.geo).toEqual({
      applied: false,
      note: 'employee emp-2 has no location: the default 50 km distance filter was not applied',
    })
    expect(checked.plan?.notes).toEqual([
      'employee emp-2 has no location: the default 50 km distance filter was not applied',
    ])
  })
})
