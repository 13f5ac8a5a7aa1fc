import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matchAllEmployees, matchVacancies } from '../../src/matching/match-vacancies.js'
import type { VacancyMatchingResponse } from '../../src/matching/vacancy-match-schema.js'
import { DEMO_TENANT, runDemo } from '../../src/pipeline/demo-tenant.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { DEMO_AS_OF } from '../../tools/example-run.js'
import { tempDir } from '../helpers/temp-tenant.js'

describe('the demo tenant', () => {
  const temp = tempDir('skillhouse-demo-')
  const dataDir = join(temp.dir, 'data')
  beforeAll(async () => {
    await runDemo({ dataDir, out: join(temp.dir, 'out'), asOf: DEMO_AS_OF })
  }, 300_000)
  afterAll(() => temp.cleanup())

  it('places every employee, so that vacancy matching applies the default 50 km', async () => {
    const answers: VacancyMatchingResponse[] = []
    const run = await withTenant(dataDir, DEMO_TENANT, (tenant) =>
      matchAllEmployees(tenant, {}, {}, (answer) => {
        answers.push(answer)
      }),
    )
    expect(run.employees).toBeGreaterThan(50)
    expect(answers).toHaveLength(run.employees)
    expect(
      answers.filter((answer) => !answer.geo_filter_applied).map((answer) => answer.geo_filter_note),
    ).toEqual([])
  })

  it('scores distances: the geo_distance weight and the location include see how far each vacancy is', async () => {
    const answer = await withTenant(dataDir, DEMO_TENANT, (tenant) =>
      matchVacancies(
        tenant,
        'emp-10001',
        { weights: [{ weight: 'geo_distance', value: 1, full_score_distance: 5, zero_score_distance: 60 }] },
        { include: ['location', 'score_breakdown'], min_score: 0 },
      ),
    )
    expect(answer.records.length).toBeGreaterThan(0)
    for (const record of answer.records) {
      expect(record.location?.known, record.vacancy_id).toBe(true)
      expect(record.location?.distance_km, record.vacancy_id).toBeLessThanOrEqual(50)
    }
    const geo = answer.records.map((record) =>
      record.score_breakdown?.find((entry) => entry.weight === 'geo_distance'),
    )
    expect(geo.some((entry) => (entry?.score ?? 0) > 0)).toBe(true)
  })
})
