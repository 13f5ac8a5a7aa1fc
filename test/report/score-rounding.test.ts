import { describe, expect, it } from 'vitest'
import { LocaleFormat } from '../../src/report/number-format.js'
import { mobilityBuckets } from '../../src/report/report-charts.js'
import type { Mobility } from '../../src/report/report-model.js'

describe("the report's scores", () => {
  it('put a best candidate in the bucket that names the score it is shown with', () => {
    const vacancy = (vacancy_id: string, score: number | undefined) => ({
      vacancy_id,
      title: vacancy_id,
      candidates: score === undefined ? [] : [{ employee_id: 'emp-1', score }],
      strong_candidates: 0,
      best_gap: [],
    })
    const mobility: Mobility = {
      strong_score: 0.7,
      vacancies: [
        vacancy('none', undefined),
        vacancy('low', 0.494),
        vacancy('reads-0.50', 0.4951),
        vacancy('reads-0.69', 0.6949),
        vacancy('reads-0.70', 0.6951),
        vacancy('high', 0.93),
      ],
    }
    const format = new LocaleFormat('en-GB')
    expect(format.matchScore(0.6951)).toBe('0.70')
    expect(mobilityBuckets(mobility, format)).toEqual([
      { bucket: 'No internal candidate', vacancies: 1 },
      { bucket: 'Best candidate below 0.50', vacancies: 1 },
      { bucket: 'Best candidate 0.50 to under 0.70', vacancies: 2 },
      { bucket: 'Best candidate 0.70 or above', vacancies: 2 },
    ])
  })
})
