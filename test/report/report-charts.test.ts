import { describe, expect, it } from 'vitest'
import { titledCutLabels } from '../../src/report/chart-svg.js'
import { LocaleFormat } from '../../src/report/number-format.js'
import { dataQualityChart, mobilityBuckets } from '../../src/report/report-charts.js'
import type { Mobility } from '../../src/report/report-model.js'

describe("the report's charts", () => {
  it('name event types in words, not as their identifiers cut short', () => {
    const chart = dataQualityChart(
      {
        event_types: [
          { event_type: 'skill_profile_feedback', events: 4, without_skill: null },
          { event_type: 'working_history', events: 10, without_skill: 3 },
        ],
        derived: true,
        future_dated: { after: '2026-06-30', events: 0, latest: null },
        last_run: null,
      },
      new LocaleFormat('en-GB'),
    ) as { data: { values: { type: string }[] }; encoding: { y: { sort: string[] } } }
    expect([...new Set(chart.data.values.map((row) => row.type))]).toEqual([
      'Skill profile feedback',
      'Working history',
    ])
    expect(chart.encoding.y.sort).toEqual(['Skill profile feedback', 'Working history'])
  })

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

  it('give a label cut short its whole text as a title, escaped, and leave whole labels alone', () => {
    const svg = '<svg><text x="1">R&amp;D &lt;Antwerp…</text><text>Sales</text><text>Unknown…</text></svg>'
    expect(titledCutLabels(svg, ['Sales', 'R&D <Antwerp> & Ghent'])).toBe(
      '<svg><text x="1"><title>R&amp;D &lt;Antwerp&gt; &amp; Ghent</title>R&amp;D &lt;Antwerp…</text><text>Sales</text><text>Unknown…</text></svg>',
    )
  })
})
