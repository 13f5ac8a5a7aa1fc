import { describe, expect, it } from 'vitest'
import { evaluateExtraction, loadEvalSet } from './evaluate-extraction.js'

describe('the extraction evaluation set', () => {
  const items = loadEvalSet()

  it('holds at least 300 annotated sentences in the four languages', () => {
    expect(items.length).toBeGreaterThanOrEqual(300)
    for (const language of ['en', 'nl', 'fr', 'de']) {
      expect(items.filter((item) => item.language === language).length).toBeGreaterThanOrEqual(75)
    }
  })

  it('keeps the engine above a floor of precision, recall and RP@5 in every language', () => {
    // A regression guard, not the target: the figures themselves are printed by `npm run eval`.
    for (const row of evaluateExtraction(items)) {
      expect(row.precision, row.language).toBeGreaterThanOrEqual(0.5)
      expect(row.recall, row.language).toBeGreaterThanOrEqual(0.4)
      expect(row.rp_at_5, row.language).toBeGreaterThanOrEqual(0.4)
    }
  })
})
