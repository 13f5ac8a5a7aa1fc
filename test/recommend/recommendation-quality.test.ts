import { describe, expect, it } from 'vitest'
import { recommendationRows } from '../eval/recommendation-eval.js'

describe("the recommendations' measured quality on the demo tenant (npm run eval)", () => {
  it('brings back a held-out skill 1.5 times as often as popularity, and covers twice the gap random courses do', async () => {
    const rows = await recommendationRows()
    const row = (set: string, system: string) => rows.find((one) => one.set === set && one.system === system)
    const ours = row('related, demo', 'npmi+cluster')
    const popularity = row('related, demo', 'popularity')
    expect(ours?.items).toBeGreaterThan(300)
    expect(ours?.rp_at_10 ?? 0).toBeGreaterThanOrEqual(
      1.5 * (popularity?.rp_at_10 ?? Number.POSITIVE_INFINITY),
    )
    expect(ours?.mrr ?? 0).toBeGreaterThan(popularity?.mrr ?? Number.POSITIVE_INFINITY)
    const greedy = row('courses, demo', 'greedy top 3')
    const random = row('courses, demo', 'random top 3')
    const largest = row('courses, demo', 'largest top 3')
    expect(greedy?.items).toBeGreaterThan(100)
    expect(greedy?.recall ?? 0).toBeGreaterThanOrEqual(2 * (random?.recall ?? Number.POSITIVE_INFINITY))
    expect(greedy?.recall ?? 0).toBeGreaterThan(largest?.recall ?? Number.POSITIVE_INFINITY)
  }, 180_000)
})
