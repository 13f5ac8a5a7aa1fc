import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportAllJobs, matchJobs } from '../../src/matching/match-jobs.js'
import { JobMatchingResponse } from '../../src/schemas/index.js'
import { builtWorkerScript } from '../helpers/built-scripts.js'
import { csv, type MatchingTenantFixture, matchingTenant, ndjson } from './matching-helpers.js'

/**
 * The tenant of the worked example of scoring-model.ts: four jobs (SQL in two of them, Python in
 * one, Communication in all four), proficiency matching and criticalities on. Right answers:
 * emp-1 0.732565500565 (the worked example), emp-0 and emp-4 0.842331321034 (a tie: emp-0 first),
 * emp-2 1 (overqualified), emp-3 0.090457339107.
 */
const JOBS = ndjson([
  {
    external_id: 'job-a',
    title: 'Data Engineer',
    custom_properties: { job_grade: 3, career_track: 'data', tracks: ['data', 'it'] },
  },
  {
    external_id: 'job-b',
    title: 'Analyst',
    custom_properties: { job_grade: 2, career_track: 'finance', tracks: ['finance'] },
  },
  { external_id: 'job-c', title: 'Developer', custom_properties: { career_track: 'it' } },
  { external_id: 'job-d', title: 'Team Lead' },
])
const DEFINITIONS = csv(
  ['entity_type', 'property_name', 'property_type'],
  [
    ['job_architecture/jobs', 'job_grade', 'number'],
    ['job_architecture/jobs', 'career_track', 'text'],
    ['job_architecture/jobs', 'tracks', 'list[text]'],
    ['employees', 'grade', 'number'],
    ['employees', 'track', 'text'],
    ['employees', 'tracks', 'list[text]'],
    ['employees', 'remote_ok', 'boolean'],
  ],
)
const EMPLOYEES = ndjson([
  { external_id: 'emp-0', custom_properties: { grade: 3, track: 'Data', tracks: ['data'], remote_ok: true } },
  {
    external_id: 'emp-1',
    custom_properties: { grade: 2, track: 'data', tracks: ['it', 'finance'], remote_ok: false },
  },
  { external_id: 'emp-2', custom_properties: { grade: 5, track: 'it', tracks: ['data', 'it'] } },
  { external_id: 'emp-3', custom_properties: { grade: 1, track: 'finance' } },
  { external_id: 'emp-4', custom_properties: { grade: 3, track: 'data', tracks: ['hr'] } },
])

async function workedExampleTenant(features: { proficiencyMatching: boolean; useCriticalities: boolean }) {
  const fixture = await matchingTenant(features)
  await fixture.ingest({
    'custom_property_definitions.csv': DEFINITIONS,
    'jobs.ndjson': JOBS,
    'employees.ndjson': EMPLOYEES,
  })
  await fixture.profile('job', 'job-a', [
    { skill_id: 'skl-sql', validated: true, score: 1, governed_level: 4, level: 4, critical: true },
    { skill_id: 'skl-python', score: 0.8, level: 3, inferred_critical: false },
    { skill_id: 'skl-communication', score: 0.5, level: 2 },
  ])
  await fixture.profile('job', 'job-b', [{ skill_id: 'skl-sql' }, { skill_id: 'skl-communication' }])
  await fixture.profile('job', 'job-c', [{ skill_id: 'skl-communication' }, { skill_id: 'skl-java' }])
  await fixture.profile('job', 'job-d', [{ skill_id: 'skl-communication' }, { skill_id: 'skl-leadership' }])
  await fixture.profile('employee', 'emp-1', [
    { skill_id: 'skl-sql', validated: true, score: 0.4, level: 3 },
    { skill_id: 'skl-python', score: 0.9, level: 4 },
  ])
  await fixture.profile('employee', 'emp-2', [
    { skill_id: 'skl-sql', validated: true, level: 5 },
    { skill_id: 'skl-python', validated: true, level: 5 },
    { skill_id: 'skl-communication', validated: true, level: 3 },
  ])
  await fixture.profile('employee', 'emp-3', [{ skill_id: 'skl-communication', score: 1, level: 2 }], {
    lowData: true,
  })
  for (const id of ['emp-0', 'emp-4']) {
    await fixture.profile('employee', id, [
      { skill_id: 'skl-sql', score: 1, level: 4 },
      { skill_id: 'skl-python', score: 0.8, level: 3 },
    ])
  }
  return fixture
}

const body = (extra: Record<string, unknown> = {}) => ({ filters: [], weights: [], ...extra })
const matchesOf = (response: JobMatchingResponse, job: string) =>
  response.records.find((record) => record.job_id === job)?.matches ?? []
const idsOf = (response: JobMatchingResponse, job: string) =>
  matchesOf(response, job).map((match) => match.employee_id)

describe('top employees for jobs (4.10) with proficiency matching and criticalities', () => {
  let fixture: MatchingTenantFixture
  beforeAll(async () => {
    fixture = await workedExampleTenant({ proficiencyMatching: true, useCriticalities: true })
  })
  afterAll(() => fixture.close())

  it('scores the worked example of the scoring model to 12 decimals', async () => {
    const response = await matchJobs(fixture.tenant, body({ score_min_threshold: 0 }))
    expect(JobMatchingResponse.safeParse(response).success).toBe(true)
    const scores = Object.fromEntries(
      matchesOf(response, 'job-a').map((match) => [match.employee_id, match.score]),
    )
    expect(scores).toEqual({
      'emp-2': 1,
      'emp-0': 0.842331321034,
      'emp-4': 0.842331321034,
      'emp-1': 0.732565500565,
      'emp-3': 0.090457339107,
    })
  })

  it('ranks by score, breaks ties by employee external_id, and applies the default threshold of 0.5', async () => {
    const response = await matchJobs(fixture.tenant, body())
    expect(idsOf(response, 'job-a')).toEqual(['emp-2', 'emp-0', 'emp-4', 'emp-1'])
    // job-d: only emp-2 and emp-3 hold Communication, Leadership nobody: at most half the weight.
    expect(idsOf(response, 'job-d')).toEqual([])
  })

  it('adds overqualified and critical_skills_match_ratio to each match', async () => {
    const response = await matchJobs(fixture.tenant, body())
    const byId = Object.fromEntries(matchesOf(response, 'job-a').map((match) => [match.employee_id, match]))
    expect(byId['emp-2']).toMatchObject({ overqualified: true, critical_skills_match_ratio: 1 })
    expect(byId['emp-1']).toMatchObject({ overqualified: false, critical_skills_match_ratio: 0.75 })
    expect(byId['emp-0']).toMatchObject({ overqualified: false, critical_skills_match_ratio: 1 })
  })

  it('drops overqualified matches with include_overqualified=false', async () => {
    const response = await matchJobs(fixture.tenant, body({ include_overqualified: false }))
    expect(idsOf(response, 'job-a')).toEqual(['emp-0', 'emp-4', 'emp-1'])
  })

  it('keeps only matches at or above min_critical_skills_match_ratio', async () => {
    const response = await matchJobs(fixture.tenant, body({ min_critical_skills_match_ratio: 0.8 }))
    expect(idsOf(response, 'job-a')).toEqual(['emp-2', 'emp-0', 'emp-4'])
    const all = await matchJobs(fixture.tenant, body({ min_critical_skills_match_ratio: 0.75 }))
    expect(idsOf(all, 'job-a')).toEqual(['emp-2', 'emp-0', 'emp-4', 'emp-1'])
  })

  it('returns at most match_limit_per_entity matches, the best ones', async () => {
    const response = await matchJobs(fixture.tenant, body({ match_limit_per_entity: 2 }))
    expect(idsOf(response, 'job-a')).toEqual(['emp-2', 'emp-0'])
  })

  it('explains each match with matched and missing skills, named in vocab_language', async () => {
    const response = await matchJobs(
      fixture.tenant,
      body({ filters: [{ filter: 'external_id_is_in_list', external_ids: ['emp-1'] }] }),
      { response_format: 'explained', vocab_language: 'fr' },
    )
    const [match] = matchesOf(response, 'job-a')
    expect(match?.employee_id).toBe('emp-1')
    // Typed by the response schema (and so by the OpenAPI document), not passed through untyped.
    expect(
      JobMatchingResponse.shape.records.element.shape.matches.element.strict().safeParse(match).success,
    ).toBe(true)
    const explanation = (match as unknown as { explanation: Record<string, Record<string, unknown>[]> })
      .explanation
    expect(explanation.matched_skills).toEqual([
      {
        skill_id: 'skl-sql',
        skill_name: 'SQL',
        weight: 0.573486,
        contribution: 0.430114,
        required_level: 4,
        level: 3,
        critical: true,
      },
      {
        skill_id: 'skl-python',
        skill_name: 'Python',
        weight: 0.336057,
        contribution: 0.302451,
        required_level: 3,
        level: 4,
        critical: false,
      },
    ])
    expect(explanation.missing_skills).toEqual([
      {
        skill_id: 'skl-communication',
        skill_name: 'Communication',
        weight: 0.090457,
        required_level: 2,
        critical: false,
      },
    ])
  })
})

describe('job matching without the tenant features', () => {
  let fixture: MatchingTenantFixture
  beforeAll(async () => {
    fixture = await workedExampleTenant({ proficiencyMatching: false, useCriticalities: false })
  })
  afterAll(() => fixture.close())

  it('weighs critical skills like others and ignores levels', async () => {
    const response = await matchJobs(fixture.tenant, body({ score_min_threshold: 0 }))
    const scores = Object.fromEntries(
      matchesOf(response, 'job-a').map((match) => [match.employee_id, match.score]),
    )
    expect(scores).toEqual({
      'emp-2': 1,
      'emp-1': 0.826061285488,
      'emp-0': 0.778945492689,
      'emp-4': 0.778945492689,
      'emp-3': 0.126822921712,
    })
    expect(matchesOf(response, 'job-a')[0]).toEqual({ employee_id: 'emp-2', score: 1 })
  })

  it('answers 422 for include_overqualified=false and min_critical_skills_match_ratio', async () => {
    await expect(matchJobs(fixture.tenant, body({ include_overqualified: false }))).rejects.toMatchObject({
      status: 422,
      descriptions: [expect.stringMatching(/^include_overqualified: works only when .*proficiency_matching/)],
    })
    await expect(
      matchJobs(fixture.tenant, body({ min_critical_skills_match_ratio: 0.5 })),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        expect.stringMatching(/^min_critical_skills_match_ratio: works only when the use_criticalities/),
      ],
    })
    // The default (true) and null are accepted.
    await expect(
      matchJobs(fixture.tenant, body({ include_overqualified: true, min_critical_skills_match_ratio: null })),
    ).resolves.toBeDefined()
  })
})

describe('job matching pages, filters and errors', () => {
  let fixture: MatchingTenantFixture
  beforeAll(async () => {
    fixture = await workedExampleTenant({ proficiencyMatching: true, useCriticalities: true })
  })
  afterAll(() => fixture.close())

  it('pages through jobs in external_id order; pages concatenated equal the unpaged answer', async () => {
    const request = body({ score_min_threshold: 0 })
    const whole = await matchJobs(fixture.tenant, { ...request, limit: 50 })
    expect(whole.records.map((record) => record.job_id)).toEqual(['job-a', 'job-b', 'job-c', 'job-d'])
    expect(whole).toMatchObject({ has_next: false, next_starting_after: null })
    for (const limit of [1, 2, 3]) {
      const pages: JobMatchingResponse['records'] = []
      let cursor: string | null = null
      let calls = 0
      for (;;) {
        const page: JobMatchingResponse = await matchJobs(fixture.tenant, {
          ...request,
          limit,
          starting_after: cursor,
        })
        pages.push(...page.records)
        calls++
        expect(page.records.length).toBeLessThanOrEqual(limit)
        if (!page.has_next) {
          expect(page.next_starting_after).toBeNull()
          break
        }
        expect(page.next_starting_after).toBe(page.records[page.records.length - 1]?.job_id)
        cursor = page.next_starting_after
      }
      expect(calls).toBe(Math.ceil(4 / limit))
      expect(pages).toEqual(whole.records)
    }
    const all = await exportAllJobs(fixture.tenant, { ...request, limit: 1 })
    expect(all.response.records).toEqual(whole.records)
  })

  it('starts after a cursor that is no job id, and answers an empty last page', async () => {
    const after = await matchJobs(fixture.tenant, body({ starting_after: 'job-b0', limit: 1 }))
    expect(after.records.map((record) => record.job_id)).toEqual(['job-c'])
    expect(after).toMatchObject({ has_next: true, next_starting_after: 'job-c' })
    const end = await matchJobs(fixture.tenant, body({ starting_after: 'job-z' }))
    expect(end).toEqual({ records: [], has_next: false, next_starting_after: null })
    const empty = await matchJobs(fixture.tenant, body({ starting_after: '' }))
    expect(empty.records).toHaveLength(4)
  })

  it('filters employees by external_id_is_in_list and low_data_availability', async () => {
    const request = body({ score_min_threshold: 0 })
    const listed = await matchJobs(fixture.tenant, {
      ...request,
      filters: [{ filter: 'external_id_is_in_list', external_ids: ['emp-3', 'emp-4', 'emp-9'] }],
    })
    expect(idsOf(listed, 'job-a')).toEqual(['emp-4', 'emp-3'])
    const noLowData = await matchJobs(fixture.tenant, {
      ...request,
      filters: [{ filter: 'low_data_availability', exclude_low_data_availability: true }],
    })
    expect(idsOf(noLowData, 'job-a')).not.toContain('emp-3')
    expect(idsOf(noLowData, 'job-a')).toHaveLength(4)
  })

  it('answers 422 naming the filter for an external_id_is_in_list that names no employee (job ids), instead of every job without matches', async () => {
    await expect(
      matchJobs(
        fixture.tenant,
        body({ filters: [{ filter: 'external_id_is_in_list', external_ids: ['job-a', 'job-b', 'nobody'] }] }),
      ),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        expect.stringMatching(
          /^filters\[0\]\.external_ids: names no employee of tenant .*the filters of 4\.10 select the employees .*job-a, job-b are jobs/,
        ),
      ],
    })
  })

  it('filters employees by last_updated', async () => {
    await fixture.tenant.database.run(
      `UPDATE employees SET updated_at = CASE external_id WHEN 'emp-0' THEN TIMESTAMP '2024-01-01 10:00:00' ELSE TIMESTAMP '2026-06-01 00:00:00' END`,
    )
    const request = body({ score_min_threshold: 0 })
    const before = await matchJobs(fixture.tenant, {
      ...request,
      filters: [{ filter: 'last_updated', value: '2025-01-01', operator: 'lt' }],
    })
    expect(idsOf(before, 'job-a')).toEqual(['emp-0'])
    const onOrAfter = await matchJobs(fixture.tenant, {
      ...request,
      filters: [{ filter: 'last_updated', value: '2026-06-01', operator: 'gte' }],
    })
    expect(idsOf(onOrAfter, 'job-a')).toEqual(['emp-2', 'emp-4', 'emp-1', 'emp-3'])
    const sameDay = await matchJobs(fixture.tenant, {
      ...request,
      filters: [{ filter: 'last_updated', value: '2024-01-01', operator: 'lte' }],
    })
    expect(idsOf(sameDay, 'job-a')).toEqual(['emp-0'])
    const after = await matchJobs(fixture.tenant, {
      ...request,
      filters: [{ filter: 'last_updated', value: '2024-01-01', operator: 'gt' }],
    })
    expect(idsOf(after, 'job-a')).not.toContain('emp-0')
  })

  it('applies the custom property filters: the job is "from", the employee is "to"', async () => {
    const run = async (filter: Record<string, unknown>) =>
      idsOf(await matchJobs(fixture.tenant, body({ score_min_threshold: 0, filters: [filter] })), 'job-a')
    // job-a: job_grade 3, career_track data, tracks [data, it].
    expect(
      await run({
        filter: 'custom_property_equal',
        from_entity_property: 'job_grade',
        to_entity_property: 'grade',
      }),
    ).toEqual(['emp-0', 'emp-4'])
    expect(await run({ filter: 'custom_property', property_name: 'track', property_value: 'DATA' })).toEqual([
      'emp-0',
      'emp-4',
      'emp-1',
    ])
    expect(
      await run({ filter: 'custom_property', property_name: 'remote_ok', property_value: false }),
    ).toEqual(['emp-1'])
    expect(
      await run({
        filter: 'custom_property_is_in',
        from_entity_property: 'career_track',
        to_entity_property: 'tracks',
      }),
    ).toEqual(['emp-2', 'emp-0'])
    expect(
      await run({ filter: 'custom_property_is_in_list', property_name: 'grade', possible_values: [1, 5] }),
    ).toEqual(['emp-2', 'emp-3'])
    expect(
      await run({
        filter: 'custom_property_contains',
        from_entity_property: 'tracks',
        to_entity_property: 'track',
      }),
    ).toEqual(['emp-2', 'emp-0', 'emp-4', 'emp-1'])
    expect(
      await run({
        filter: 'custom_property_contains_element',
        property_name: 'tracks',
        property_value: 'finance',
      }),
    ).toEqual(['emp-1'])
    expect(
      await run({
        filter: 'custom_property_list_overlap',
        from_entity_property: 'tracks',
        to_entity_property: 'tracks',
      }),
    ).toEqual(['emp-2', 'emp-0', 'emp-1'])
    // job-d has no custom properties: a from/to rule can never hold for it.
    const response = await matchJobs(
      fixture.tenant,
      body({
        score_min_threshold: 0,
        filters: [
          { filter: 'custom_property_equal', from_entity_property: 'job_grade', to_entity_property: 'grade' },
        ],
      }),
    )
    expect(idsOf(response, 'job-d')).toEqual([])
  })

  it('answers 422 naming the field for every range of section 8', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ limit: 80 }, 'limit: must be between 1 and 50; got 80'],
      [{ limit: 0 }, 'limit: must be between 1 and 50; got 0'],
      [{ match_limit_per_entity: 101 }, 'match_limit_per_entity: must be between 1 and 100; got 101'],
      [{ match_limit_per_entity: 0 }, 'match_limit_per_entity: must be between 1 and 100; got 0'],
      [{ score_min_threshold: 1.5 }, 'score_min_threshold: must be between 0 and 1; got 1.5'],
      [{ score_min_threshold: -0.1 }, 'score_min_threshold: must be between 0 and 1; got -0.1'],
      [
        { min_critical_skills_match_ratio: 2 },
        'min_critical_skills_match_ratio: must be between 0 and 1; got 2',
      ],
      [
        { starting_after: 'job a' },
        "starting_after: must contain only letters, digits, hyphens and underscores; got 'job a'",
      ],
      [{ starting_after: 'x'.repeat(101) }, 'starting_after: must be at most 100 characters; got 101'],
      [{ limit: 2.5 }, expect.stringMatching(/^limit: /) as unknown as string],
    ]
    for (const [extra, message] of cases) {
      await expect(matchJobs(fixture.tenant, body(extra))).rejects.toMatchObject({
        status: 422,
        descriptions: [message],
      })
    }
  })

  it('answers 422 for filters and weights of the wrong kind and for unknown properties, 400 for a missing list', async () => {
    await expect(
      matchJobs(fixture.tenant, body({ filters: [{ filter: 'max_geo_distance', max_geo_distance: 10 }] })),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        expect.stringMatching(
          /^filters\[0\]\.filter: must be one of last_updated, .*; got 'max_geo_distance'$/,
        ),
      ],
    })
    await expect(
      matchJobs(fixture.tenant, body({ weights: [{ weight: 'geo_distance', value: 1 }] })),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        expect.stringMatching(/^weights\[0\]\.weight: must be one of skills_match; got 'geo_distance'$/),
      ],
    })
    await expect(
      matchJobs(fixture.tenant, body({ weights: [{ weight: 'skills_match', value: 0 }] })),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: ['weights[0].value: the skills_match weight must be greater than 0; got 0'],
    })
    await expect(
      matchJobs(
        fixture.tenant,
        body({ filters: [{ filter: 'custom_property', property_name: 'shoe_size', property_value: 42 }] }),
      ),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [
        expect.stringMatching(
          /^filters\[0\]\.property_name: no custom property 'shoe_size' is defined for employees; defined: grade, remote_ok, track, tracks$/,
        ),
      ],
    })
    await expect(
      matchJobs(
        fixture.tenant,
        body({ filters: [{ filter: 'custom_property', property_name: 'grade', property_value: 'high' }] }),
      ),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [`filters[0].property_value: must be a number for employees.grade (number); got "high"`],
    })
    await expect(
      matchJobs(
        fixture.tenant,
        body({
          filters: [
            {
              filter: 'custom_property_equal',
              from_entity_property: 'career_track',
              to_entity_property: 'grade',
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({
      status: 422,
      descriptions: [expect.stringMatching(/^filters\[0\]: custom_property_equal cannot compare/)],
    })
    // A missing field is a body of the wrong structure (section 7): 400, named all the same.
    await expect(matchJobs(fixture.tenant, { weights: [] })).rejects.toMatchObject({
      status: 400,
      descriptions: ['filters: is required (array)'],
    })
  })

  it('answers 422 for an unknown vendor, response format or vocabulary language, 403 for a vendor not activated', async () => {
    await expect(matchJobs(fixture.tenant, body(), { external_vendor: 'vendor_x' })).rejects.toMatchObject({
      status: 422,
      descriptions: [expect.stringMatching(/^external_vendor: 'vendor_x' is not a vendor/)],
    })
    await expect(matchJobs(fixture.tenant, body(), { external_vendor: 'vendor_a' })).rejects.toMatchObject({
      status: 403,
    })
    await expect(matchJobs(fixture.tenant, body(), { response_format: 'verbose' })).rejects.toMatchObject({
      status: 422,
      descriptions: ["response_format: must be one of simple, explained; got 'verbose'"],
    })
    await expect(matchJobs(fixture.tenant, body(), { vocab_language: 'xx' })).rejects.toMatchObject({
      status: 422,
      descriptions: [expect.stringMatching(/^vocab_language: 'xx' is not a vocabulary language/)],
    })
    await expect(matchJobs(fixture.tenant, body(), { vocab_language: 'ja' })).rejects.toMatchObject({
      status: 422,
    })
  })

  it('scores on worker threads (the compiled worker script) to the same answer as on this thread', async () => {
    const request = body({ score_min_threshold: 0 })
    const query = { response_format: 'explained' }
    const here = await exportAllJobs(fixture.tenant, request, query, { threads: { threads: 0 } })
    const threaded = await exportAllJobs(fixture.tenant, request, query, {
      threads: { script: builtWorkerScript('matching/job-match-worker'), threads: 2 },
    })
    expect(here.response.records.some((record) => record.matches.length > 0)).toBe(true)
    expect(threaded.response).toEqual(here.response)
    // The threads did the scoring: a script that is not there fails it.
    await expect(
      exportAllJobs(fixture.tenant, request, query, {
        threads: { script: builtWorkerScript('matching/no-such-worker'), threads: 2 },
      }),
    ).rejects.toThrow()
  })

  it('gives the same answer on every run', async () => {
    const first = await matchJobs(fixture.tenant, body({ score_min_threshold: 0 }), {
      response_format: 'explained',
    })
    for (let run = 0; run < 3; run++) {
      expect(
        await matchJobs(fixture.tenant, body({ score_min_threshold: 0 }), { response_format: 'explained' }),
      ).toEqual(first)
    }
  })
})

describe('job matching at a data version (the server reads)', () => {
  let fixture: MatchingTenantFixture
  beforeAll(async () => {
    fixture = await workedExampleTenant({ proficiencyMatching: true, useCriticalities: true })
  })
  afterAll(() => fixture.close())

  it('keeps the index while the version holds, and sees a changed profile once it moves', async () => {
    const request = body({ score_min_threshold: 0 })
    const atVersion = (version: string) => ({ ...fixture.tenant, dataVersion: version })
    const before = await matchJobs(atVersion('v1'), request)
    expect(before).toEqual(await matchJobs(fixture.tenant, request))
    expect(idsOf(before, 'job-a')).toContain('emp-4')

    // A derivation that empties emp-4's profile (its rows go, its version moves).
    await fixture.tenant.database.run(
      "DELETE FROM profile_skills WHERE entity_type = 'employee' AND entity_id = 'emp-4'",
    )
    await fixture.tenant.database.run(
      "UPDATE skill_profiles SET version = version + 1, skill_count = 0 WHERE entity_type = 'employee' AND entity_id = 'emp-4'",
    )
    // The version has not moved: the index kept at it answers, without asking the database.
    expect(await matchJobs(atVersion('v1'), request)).toEqual(before)
    // It moved: the stamp is asked, the profile change seen, as a one-off command sees it.
    const after = await matchJobs(atVersion('v2'), request)
    expect(idsOf(after, 'job-a')).not.toContain('emp-4')
    expect(after).toEqual(await matchJobs(fixture.tenant, request))
  })
})
