import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importPostalCodes } from '../../src/geo/postal-codes.js'
import { matchAllEmployees, matchVacancies } from '../../src/matching/match-vacancies.js'
import { VacancyMatchingResponse } from '../../src/matching/vacancy-match-schema.js'
import { testFixture } from '../helpers/temp-tenant.js'
import { csv, type MatchingTenantFixture, matchingTenant, ndjson } from './matching-helpers.js'

/**
 * A hand-made tenant around Brussels. emp-1 lives at BE 1000 and holds SQL (validated, from a
 * job), Python (0.6, from a course) and Communication (0.8, from the job). Eight vacancy
 * profiles (seven active), so idf(SQL, in 7) = ln(1 + 8/7) and idf(other, in 1) = ln 9:
 *
 * | vacancy | place                     | km from BE 1000 | skills             | skills score   |
 * |---------|---------------------------|-----------------|--------------------|----------------|
 * | vac-01  | BE 1000 (address)         | 0               | SQL, Python        | 0.703014011113 |
 * | vac-02  | Antwerp (lat/lng)         | 41.6            | SQL, Communication | 0.851507005557 |
 * | vac-03  | BE 4000 Liège (address)   | 89.6            | SQL                | 1              |
 * | vac-04  | BE 9999 (not in table)    | unknown         | SQL                | 1              |
 * | vac-05  | none                      | unknown         | SQL, Java          | 0.257535027783 |
 * | vac-06  | FR 75001 Paris            | 263.5           | SQL                | 1              |
 * | vac-07  | Brussels, closed          | 0               | SQL                | never matched  |
 * | vac-08  | BE 1050 Ixelles           | 1.8             | Leadership         | 0              |
 */
const DEFINITIONS = csv(
  ['entity_type', 'property_name', 'property_type'],
  [
    ['employees', 'contract', 'text'],
    ['employees', 'fte', 'number'],
    ['employees', 'mobility_regions', 'list[text]'],
    ['employees', 'remote_ok', 'boolean'],
    ['vacancies', 'contract_type', 'text'],
    ['vacancies', 'min_fte', 'number'],
    ['vacancies', 'regions', 'list[text]'],
    ['vacancies', 'remote_possible', 'boolean'],
    ['vacancies', 'closing_date', 'datetime'],
  ],
)
const FAMILIES = JSON.stringify([
  { external_id: 'jf-data', name: 'Data' },
  { external_id: 'jf-fin', name: 'Finance' },
])
const JOBS = ndjson([
  { external_id: 'job-a', title: 'Data Engineer', job_family_id: 'jf-data' },
  { external_id: 'job-b', title: 'Controller', job_family_id: 'jf-fin' },
  { external_id: 'job-c', title: 'Developer' },
])
const VACANCIES = ndjson([
  {
    external_id: 'vac-01',
    title: 'Data Engineer Brussels',
    description: 'Pipelines in SQL and Python.',
    job_id: 'job-a',
    location: { country: 'BE', postal_code: '1000' },
    languages: [{ language: 'nl', level: 3 }],
    custom_properties: {
      contract_type: 'permanent',
      min_fte: 0.8,
      regions: ['Brussels', 'Flanders'],
      remote_possible: true,
      closing_date: '2026-12-31T00:00:00Z',
    },
  },
  {
    external_id: 'vac-02',
    title: 'Controller Antwerp',
    job_id: 'job-b',
    location: { lat: 51.2194, lng: 4.4025 },
    languages: [{ language: 'fr', level: 2 }],
    custom_properties: {
      contract_type: 'temporary',
      min_fte: 0.5,
      regions: ['Flanders'],
      remote_possible: false,
    },
  },
  {
    external_id: 'vac-03',
    title: 'Developer Liège',
    job_id: 'job-c',
    location: { country: 'BE', postal_code: '4000' },
    languages: [{ language: 'de', level: 4 }],
    custom_properties: { contract_type: 'permanent', min_fte: 1, regions: ['Wallonia'] },
  },
  { external_id: 'vac-04', title: 'Analyst', location: { country: 'BE', postal_code: '9999' } },
  { external_id: 'vac-05', title: 'Java Developer' },
  { external_id: 'vac-06', title: 'Analyste Paris', location: { country: 'FR', postal_code: '75001' } },
  { external_id: 'vac-07', title: 'Closed one', status: 'closed', location: { lat: 50.8466, lng: 4.3528 } },
  { external_id: 'vac-08', title: 'Team Lead Ixelles', location: { country: 'BE', postal_code: '1050' } },
])
const EMPLOYEES = ndjson([
  {
    external_id: 'emp-1',
    location: { country: 'BE', postal_code: '1000' },
    languages: [
      { language: 'nl', level: 2 },
      { language: 'fr', level: 3 },
      { language: 'en', level: 5 },
    ],
    desired_functions: ['job-b', 'jf-data'],
    custom_properties: { contract: 'permanent', fte: 0.9, mobility_regions: ['Flanders'], remote_ok: true },
  },
  { external_id: 'emp-2' },
  { external_id: 'emp-3', location: { country: 'BE', postal_code: '9999' } },
])
const EVENTS = ndjson([
  {
    external_id: 'ev-1',
    employee_id: 'emp-1',
    event_type: 'working_history',
    timestamp: '2020-01-01',
    source: 'hr',
    content: {
      job_title: 'Data Analyst',
      start_date: '2020-01-01',
      company: 'Northwind',
      job_description: 'SQL reports',
    },
  },
  {
    external_id: 'ev-2',
    employee_id: 'emp-1',
    event_type: 'learning',
    timestamp: '2024-05-01',
    source: 'lms',
    content: { title: 'Python for data' },
  },
])
const FEEDBACK = csv(
  ['employee_id', 'vacancy_id', 'feedback', 'timestamp'],
  [['emp-1', 'vac-02', 'interested', '2026-01-05']],
)

const EV1 = { external_id: 'ev-1', event_type: 'working_history' }
const EV2 = { external_id: 'ev-2', event_type: 'learning' }

let fixture: MatchingTenantFixture
beforeAll(async () => {
  fixture = await matchingTenant()
  await fixture.ingest({
    'custom_property_definitions.csv': DEFINITIONS,
    'job_families.json': FAMILIES,
    'jobs.ndjson': JOBS,
    'vacancies.ndjson': VACANCIES,
    'employees.ndjson': EMPLOYEES,
    'skill_events.ndjson': EVENTS,
    'match_feedback.csv': FEEDBACK,
  })
  await importPostalCodes(fixture.tenant.database, [testFixture('geo', 'postal-codes.csv')])
  const sql = { skill_id: 'skl-sql', validated: true }
  await fixture.profile('vacancy', 'vac-01', [sql, { skill_id: 'skl-python', validated: true }])
  await fixture.profile('vacancy', 'vac-02', [sql, { skill_id: 'skl-communication', validated: true }])
  for (const id of ['vac-03', 'vac-04', 'vac-06', 'vac-07']) await fixture.profile('vacancy', id, [sql])
  await fixture.profile('vacancy', 'vac-05', [sql, { skill_id: 'skl-java', validated: true }])
  await fixture.profile('vacancy', 'vac-08', [{ skill_id: 'skl-leadership', validated: true }])
  await fixture.profile('employee', 'emp-1', [
    { skill_id: 'skl-sql', validated: true, score: 0.5, level: 3, evidence: [EV1] },
    { skill_id: 'skl-python', score: 0.6, level: 2, evidence: [EV2] },
    { skill_id: 'skl-communication', score: 0.8, level: 3, evidence: [EV1] },
  ])
  await fixture.profile('employee', 'emp-2', [{ skill_id: 'skl-sql', validated: true }])
  await fixture.profile('employee', 'emp-3', [{ skill_id: 'skl-sql', validated: true }], { lowData: true })
})
afterAll(() => fixture.close())

const everywhere = { filter: 'max_geo_distance', max_geo_distance: 1000 }
const match = (body: Record<string, unknown> = {}, query: Record<string, unknown> = {}, employee = 'emp-1') =>
  matchVacancies(fixture.tenant, employee, body, query)
const ids = async (
  body: Record<string, unknown> = {},
  query: Record<string, unknown> = {},
  employee = 'emp-1',
) => (await match(body, query, employee)).records.map((record) => record.vacancy_id)
const scores = async (body: Record<string, unknown>) =>
  Object.fromEntries((await match(body)).records.map((record) => [record.vacancy_id, record.score]))

describe('top vacancies for an employee (4.11)', () => {
  it('ranks active vacancies within the default 50 km by skill coverage; unknown places stay', async () => {
    const response = await match()
    expect(VacancyMatchingResponse.safeParse(response).success).toBe(true)
    expect(response).toEqual({
      employee_id: 'emp-1',
      records: [
        { vacancy_id: 'vac-04', score: 1, rank: 1 },
        { vacancy_id: 'vac-02', score: 0.851507005557, rank: 2 },
        { vacancy_id: 'vac-01', score: 0.703014011113, rank: 3 },
        { vacancy_id: 'vac-05', score: 0.257535027783, rank: 4 },
      ],
      offset: 0,
      limit: 10,
      total: 4,
      geo_filter_applied: true,
    })
  })

  it('never returns a vacancy that is not active, and breaks ties by vacancy external_id', async () => {
    expect(await ids({ filters: [everywhere] })).toEqual([
      'vac-03',
      'vac-04',
      'vac-06',
      'vac-02',
      'vac-01',
      'vac-05',
    ])
  })

  it('applies max_geo_distance from the stored address, or from the request location that overrides it', async () => {
    expect(await ids({ filters: [{ filter: 'max_geo_distance', max_geo_distance: 45 }] })).toEqual([
      'vac-04',
      'vac-02',
      'vac-01',
      'vac-05',
    ])
    expect(await ids({ filters: [{ filter: 'max_geo_distance', max_geo_distance: 10 }] })).toEqual([
      'vac-04',
      'vac-01',
      'vac-05',
    ])
    expect(
      await ids({
        filters: [
          {
            filter: 'max_geo_distance',
            max_geo_distance: 10,
            location: { country: 'BE', postal_code: '2000' },
          },
        ],
      }),
    ).toEqual(['vac-04', 'vac-02', 'vac-05'])
    expect(
      await ids({
        filters: [
          { filter: 'max_geo_distance', max_geo_distance: 100, location: { lat: 50.6326, lng: 5.5797 } },
        ],
      }),
    ).toEqual(['vac-03', 'vac-04', 'vac-01', 'vac-05'])
  })

  it('applies multi_max_geo_distances: within any of the areas', async () => {
    expect(
      await ids({
        filters: [
          {
            filter: 'multi_max_geo_distances',
            multi_max_geo_distances: [
              { max_geo_distance: 10, location: { country: 'BE', postal_code: '4000' } },
              { max_geo_distance: 5, location: { lat: 48.8603, lng: 2.3477 } },
            ],
          },
        ],
      }),
    ).toEqual(['vac-03', 'vac-04', 'vac-06', 'vac-05'])
  })

  it('answers 422 naming the field for a postal code the table does not hold', async () => {
    await expect(
      match({
        filters: [
          {
            filter: 'max_geo_distance',
            max_geo_distance: 10,
            location: { country: 'BE', postal_code: '9999' },
          },
        ],
      }),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        "filters[0].location.postal_code: postal code '9999' of country BE is not in the postal-code table; check the code (GB takes outward codes such as SW1A, NL 4-digit codes such as 1012)",
      ],
    })
    await expect(
      match({
        filters: [
          {
            filter: 'multi_max_geo_distances',
            multi_max_geo_distances: [
              { max_geo_distance: 10, location: { country: 'ES', postal_code: '28001' } },
            ],
          },
        ],
      }),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        expect.stringMatching(
          /^filters\[0\]\.multi_max_geo_distances\[0\]\.location\.postal_code: postal code '28001' of country ES is not in the postal-code table; the table holds no postal codes of ES: load them with `skillhouse geo import FILE`/,
        ),
      ],
    })
  })

  it('skips the default distance for an employee without a location, and refuses an explicit one without a location', async () => {
    expect(await ids({}, {}, 'emp-2')).toEqual(['vac-03', 'vac-04', 'vac-06', 'vac-01', 'vac-02', 'vac-05'])
    await expect(
      match({ filters: [{ filter: 'max_geo_distance', max_geo_distance: 20 }] }, {}, 'emp-2'),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: ['filters[0]: employee emp-2 has no location; give filters[0].location to measure from'],
    })
    const explained = await match({}, { response_format: 'explained', limit: 1 }, 'emp-2')
    expect(explained.records[0]?.explanation?.notes).toEqual([
      'employee emp-2 has no location: the default 50 km distance filter was not applied',
    ])
  })

  it('says in the answer when the default distance could not apply: no location, or a postal code the table lacks', async () => {
    const unplaced = await match({}, {}, 'emp-2')
    expect(unplaced).toMatchObject({
      geo_filter_applied: false,
      geo_filter_note: 'employee emp-2 has no location: the default 50 km distance filter was not applied',
    })
    const unknownCode = await match({}, { include: 'location' }, 'emp-3')
    expect(VacancyMatchingResponse.safeParse(unknownCode).success).toBe(true)
    expect(unknownCode.geo_filter_applied).toBe(false)
    expect(unknownCode.geo_filter_note).toBe(
      "employee emp-3's address BE 9999 is not in the postal-code table: the default 50 km distance filter was not applied",
    )
    expect(unknownCode.records.map((record) => record.location?.distance_km)).toEqual(
      unknownCode.records.map(() => null),
    )
    const placed = await match({}, {}, 'emp-1')
    expect(placed.geo_filter_applied).toBe(true)
    expect(placed).not.toHaveProperty('geo_filter_note')
  })

  it('applies the language filter with over- and under-qualification', async () => {
    const strict = { filter: 'language', max_overqualification: 0, max_underqualification: 0 }
    expect(await ids({ filters: [everywhere, strict] })).toEqual(['vac-04', 'vac-06', 'vac-05'])
    const lenient = { filter: 'language', max_overqualification: 1, max_underqualification: 1 }
    expect(await ids({ filters: [everywhere, lenient] })).toEqual([
      'vac-04',
      'vac-06',
      'vac-02',
      'vac-01',
      'vac-05',
    ])
  })

  it('scores the language weight: full within over-qualification, reduced by under-qualification', async () => {
    expect(
      await scores({
        filters: [everywhere],
        weights: [
          { weight: 'skills_match', value: 0 },
          { weight: 'language', value: 1, max_overqualification: 1, max_underqualification: 1 },
        ],
      }),
    ).toEqual({ 'vac-02': 1, 'vac-04': 1, 'vac-05': 1, 'vac-06': 1, 'vac-08': 1, 'vac-01': 0.5 })
  })

  it('scores desired_functions by the vacancy job or its job family', async () => {
    expect(
      await scores({
        filters: [everywhere],
        weights: [
          { weight: 'skills_match', value: 0 },
          { weight: 'desired_functions', value: 2 },
        ],
      }),
    ).toEqual({ 'vac-01': 1, 'vac-02': 1 })
  })

  it('scores geo_distance linearly between the full and zero score distances', async () => {
    expect(
      await scores({
        filters: [everywhere],
        weights: [
          { weight: 'skills_match', value: 0 },
          { weight: 'geo_distance', value: 1, full_score_distance: 10, zero_score_distance: 60 },
        ],
      }),
    ).toEqual({ 'vac-01': 1, 'vac-08': 1, 'vac-02': 0.368020920629 })
  })

  it('combines the weights as a normalised weighted mean', async () => {
    const response = await match(
      {
        filters: [{ filter: 'external_id_is_in_list', external_ids: ['vac-01'] }],
        weights: [{ weight: 'language', value: 1, max_overqualification: 1, max_underqualification: 1 }],
      },
      { include: ['score_breakdown'] },
    )
    expect(response.records[0]).toEqual({
      vacancy_id: 'vac-01',
      score: 0.601507005557,
      rank: 1,
      score_breakdown: [
        { weight: 'skills_match', value: 1, score: 0.703014, contribution: 0.351507 },
        { weight: 'language', value: 1, score: 0.5, contribution: 0.25 },
      ],
    })
  })

  it('applies the custom property filters: the employee is "from", the vacancy is "to"', async () => {
    const run = (filter: Record<string, unknown>) => ids({ filters: [everywhere, filter] })
    expect(
      await run({
        filter: 'custom_property_equal',
        from_entity_property: 'contract',
        to_entity_property: 'contract_type',
      }),
    ).toEqual(['vac-03', 'vac-01'])
    expect(
      await run({ filter: 'custom_property', property_name: 'remote_possible', property_value: true }),
    ).toEqual(['vac-01'])
    expect(
      await run({
        filter: 'custom_property_is_in',
        from_entity_property: 'mobility_regions',
        to_entity_property: 'regions',
      }),
    ).toEqual(['vac-02', 'vac-01'])
    expect(
      await run({
        filter: 'custom_property_is_in_list',
        property_name: 'contract_type',
        possible_values: ['temporary', 'freelance'],
      }),
    ).toEqual(['vac-02'])
    expect(
      await run({
        filter: 'custom_property_contains',
        from_entity_property: 'mobility_regions',
        to_entity_property: 'regions',
      }),
    ).toEqual(['vac-02'])
    expect(
      await run({
        filter: 'custom_property_contains_element',
        property_name: 'regions',
        property_value: 'wallonia',
      }),
    ).toEqual(['vac-03'])
    expect(
      await run({
        filter: 'custom_property_list_overlap',
        from_entity_property: 'mobility_regions',
        to_entity_property: 'regions',
      }),
    ).toEqual(['vac-02', 'vac-01'])
  })

  it('scores the custom property weights', async () => {
    const only = (weight: Record<string, unknown>) =>
      scores({ filters: [everywhere], weights: [{ weight: 'skills_match', value: 0 }, weight] })
    expect(
      await only({
        weight: 'custom_property',
        value: 1,
        property_name: 'min_fte',
        operator: 'lte',
        property_value: 0.9,
      }),
    ).toEqual({
      'vac-01': 1,
      'vac-02': 1,
    })
    expect(
      await only({
        weight: 'custom_property',
        value: 1,
        property_name: 'closing_date',
        operator: 'gt',
        property_value: '2026-06-01T00:00:00Z',
      }),
    ).toEqual({ 'vac-01': 1 })
    expect(
      await only({
        weight: 'custom_property_contains_element',
        value: 1,
        property_name: 'regions',
        property_value: ['Flanders', 'Brussels'],
      }),
    ).toEqual({
      'vac-01': 1,
      'vac-02': 0.5,
    })
    expect(
      await only({
        weight: 'custom_property_list_overlap',
        value: 1,
        from_entity_property: 'mobility_regions',
        to_entity_property: 'regions',
      }),
    ).toEqual({ 'vac-01': 1, 'vac-02': 1 })
    expect(
      await only({
        weight: 'custom_property_is_in_list',
        value: 1,
        property_name: 'contract_type',
        possible_values: ['permanent'],
      }),
    ).toEqual({
      'vac-01': 1,
      'vac-03': 1,
    })
    expect(
      await only({
        weight: 'custom_property_is_in',
        value: 1,
        from_entity_property: 'contract',
        to_entity_property: 'contract_type',
      }),
    ).toEqual({ 'vac-01': 1, 'vac-03': 1 })
    expect(
      await only({
        weight: 'custom_property_contains',
        value: 1,
        from_entity_property: 'mobility_regions',
        to_entity_property: 'regions',
      }),
    ).toEqual({ 'vac-02': 1 })
  })

  it('filters by external_id_is_in_list, exclude_match_feedback and last_updated', async () => {
    expect(
      await ids({
        filters: [
          everywhere,
          { filter: 'external_id_is_in_list', external_ids: ['vac-06', 'vac-05', 'vac-07'] },
        ],
      }),
    ).toEqual(['vac-06', 'vac-05'])
    expect(await ids({ filters: [{ filter: 'exclude_match_feedback' }] })).toEqual([
      'vac-04',
      'vac-01',
      'vac-05',
    ])
    await fixture.tenant.database.run(
      `UPDATE vacancies SET updated_at = CASE WHEN external_id = 'vac-05' THEN TIMESTAMP '2025-03-01 12:00:00' ELSE TIMESTAMP '2026-03-01 00:00:00' END`,
    )
    expect(await ids({ filters: [{ filter: 'last_updated', value: '2025-03-02', operator: 'lt' }] })).toEqual(
      ['vac-05'],
    )
    expect(await ids({ filters: [{ filter: 'last_updated', value: '2025-03-01', operator: 'gt' }] })).toEqual(
      ['vac-04', 'vac-02', 'vac-01'],
    )
  })

  it('excludes everything for an employee with low data availability when asked to', async () => {
    const far = { filter: 'max_geo_distance', max_geo_distance: 1000, location: { lat: 50.85, lng: 4.35 } }
    expect(await ids({ filters: [far] }, {}, 'emp-3')).toHaveLength(6)
    const response = await match(
      { filters: [far, { filter: 'low_data_availability', exclude_low_data_availability: true }] },
      {},
      'emp-3',
    )
    expect(response).toMatchObject({ records: [], total: 0 })
    expect(
      await ids({
        filters: [everywhere, { filter: 'low_data_availability', exclude_low_data_availability: true }],
      }),
    ).toHaveLength(6)
  })

  it('counts only evidence of the requested event types', async () => {
    expect(await scores({ filters: [everywhere], event_types: ['learning'] })).toEqual({
      'vac-01': 0.44547898333,
    })
    expect(await ids({ filters: [everywhere], event_types: ['working_history', 'learning'] })).toHaveLength(6)
  })

  it('applies min_score, limit and the rank offset', async () => {
    expect(await match({}, { limit: 2, offset: 1 })).toMatchObject({
      records: [
        { vacancy_id: 'vac-02', rank: 2 },
        { vacancy_id: 'vac-01', rank: 3 },
      ],
      offset: 1,
      limit: 2,
      total: 4,
    })
    expect(await match({}, { min_score: '0.8' })).toMatchObject({
      total: 2,
      records: [{ vacancy_id: 'vac-04' }, { vacancy_id: 'vac-02' }],
    })
    expect(await match({}, { offset: 10 })).toMatchObject({ records: [], total: 4 })
  })

  it('adds the include attributes', async () => {
    const response = await match(
      { filters: [{ filter: 'external_id_is_in_list', external_ids: ['vac-01', 'vac-02', 'vac-04'] }] },
      { include: ['entity', 'custom_properties', 'location', 'relevant_experience', 'match_feedback'] },
    )
    const [vac04, vac02, vac01] = response.records
    expect(vac01).toMatchObject({
      vacancy_id: 'vac-01',
      entity: { title: 'Data Engineer Brussels', description: 'Pipelines in SQL and Python.' },
      custom_properties: { contract_type: 'permanent', min_fte: 0.8 },
      location: {
        location: { country: 'BE', postal_code: '1000' },
        lat: 50.8466,
        lng: 4.3528,
        known: true,
        distance_km: 0,
      },
      relevant_experience: [
        {
          external_id: 'ev-2',
          event_type: 'learning',
          timestamp: '2024-05-01',
          summary: 'Python for data',
          skill_ids: ['skl-python'],
        },
        {
          external_id: 'ev-1',
          event_type: 'working_history',
          timestamp: '2020-01-01',
          summary: 'Data Analyst (Northwind)',
          skill_ids: ['skl-sql'],
        },
      ],
      match_feedback: null,
    })
    expect(vac02).toMatchObject({
      entity: { title: 'Controller Antwerp', description: null },
      location: { known: true, distance_km: 41.6 },
      match_feedback: { feedback: 'interested', timestamp: '2026-01-05' },
      relevant_experience: [{ external_id: 'ev-1', skill_ids: ['skl-communication', 'skl-sql'] }],
    })
    expect(vac04?.location).toEqual({
      location: { country: 'BE', postal_code: '9999' },
      lat: null,
      lng: null,
      known: false,
      distance_km: null,
      note: "the vacancy's address BE 9999 is not in the postal-code table",
    })
  })

  it('explains matches in the vocabulary language and says when a location is unknown', async () => {
    const response = await match({}, { response_format: 'explained', vocab_language: 'de', limit: 3 })
    const [vac04, , vac01] = response.records
    expect(vac04?.explanation?.notes).toEqual([
      "location unknown: the vacancy's address BE 9999 is not in the postal-code table; geo-distance filters did not exclude it and geo_distance scored 0",
    ])
    expect(vac01?.explanation).toEqual({
      matched_skills: [
        { skill_id: 'skl-python', skill_name: 'Python', weight: 0.742465, contribution: 0.445479 },
        { skill_id: 'skl-sql', skill_name: 'SQL', weight: 0.257535, contribution: 0.257535 },
      ],
      missing_skills: [],
      notes: [],
    })
  })

  it('answers 422 naming the field for every range and bad value, and 404 for an unknown employee', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{}, { limit: 101 }, 'limit: must be between 1 and 100; got 101'],
      [{}, { limit: 0 }, 'limit: must be between 1 and 100; got 0'],
      [{}, { offset: -1 }, 'offset: must be at least 0; got -1'],
      [{}, { min_score: 1.2 }, 'min_score: must be between 0 and 1; got 1.2'],
      [
        {},
        { include: ['salary'] },
        expect.stringMatching(/^include\[0\]: must be one of custom_properties, entity/) as unknown as string,
      ],
      [{}, { response_format: 'full' }, "response_format: must be one of simple, explained; got 'full'"],
      [
        { filters: [{ filter: 'language', max_overqualification: 5, max_underqualification: 0 }] },
        {},
        'filters[0].max_overqualification: must be between 0 and 4; got 5',
      ],
      [
        { event_types: ['feedback'] },
        {},
        expect.stringMatching(/^event_types\[0\]: must be one of working_history, /) as unknown as string,
      ],
      [
        { weights: [{ weight: 'geo_distance', value: 1, full_score_distance: 50, zero_score_distance: 10 }] },
        {},
        'weights[0].zero_score_distance: must be greater than full_score_distance (50); got 10',
      ],
      [{ weights: [{ weight: 'skills_match', value: 0 }] }, {}, 'weights: the values must not all be 0'],
      [
        { filters: [{ filter: 'custom_property', property_name: 'regions', property_value: 'x' }] },
        {},
        'filters[0].property_name: vacancies.regions is a list[text] property; use custom_property_contains_element for lists',
      ],
      [
        {
          weights: [
            {
              weight: 'custom_property',
              value: 1,
              property_name: 'contract_type',
              operator: 'gt',
              property_value: 'a',
            },
          ],
        },
        {},
        'weights[0].operator: gt compares numbers and datetimes only; vacancies.contract_type is text (use eq or neq)',
      ],
    ]
    for (const [body, query, message] of cases) {
      await expect(match(body, query)).rejects.toMatchObject({ status: 422, descriptions: [message] })
    }
    await expect(match({}, {}, 'emp-404')).rejects.toMatchObject({ status: 404 })
    await expect(match({}, {}, 'emp 1')).rejects.toMatchObject({ status: 422 })
    await expect(match({}, { external_vendor: 'nope' })).rejects.toMatchObject({ status: 422 })
    await expect(match({}, { vocab_language: 'klingon' })).rejects.toMatchObject({ status: 422 })
  })

  it('matches every employee in one batch, reporting employees a request cannot serve', async () => {
    const results: VacancyMatchingResponse[] = []
    const summary = await matchAllEmployees(
      fixture.tenant,
      { filters: [{ filter: 'max_geo_distance', max_geo_distance: 45 }] },
      {},
      (result) => {
        results.push(result)
      },
    )
    expect(results.map((result) => result.employee_id)).toEqual(['emp-1'])
    expect(results[0]).toEqual(
      await match({ filters: [{ filter: 'max_geo_distance', max_geo_distance: 45 }] }),
    )
    expect(summary).toMatchObject({
      employees: 3,
      failed: [
        { employee_id: 'emp-2', errors: [expect.stringMatching(/has no location/)] },
        { employee_id: 'emp-3', errors: [expect.stringMatching(/is not in the postal-code table/)] },
      ],
    })
  })
})
