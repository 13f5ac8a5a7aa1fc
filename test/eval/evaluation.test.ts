import { describe, expect, it } from 'vitest'
import { devSetFolder } from './dev-sets.js'
import { evaluateExtraction, loadEvalSet, loadImpliedSet } from './evaluate-extraction.js'
import { devSetRows, type EvaluationRow, impliedSetRows } from './evaluation-table.js'

// Regression guards, not targets: `npm run eval` prints the figures themselves.
const row = (rows: readonly EvaluationRow[], set: string, system = 'engine') => {
  const found = rows.find((candidate) => candidate.set === set && candidate.system === system)
  if (!found) throw new Error(`no row ${set} / ${system}`)
  return found
}

describe('the extraction evaluation sets', () => {
  it('hold at least 300 explicit-mention and 200 implied-skill texts in the four languages', () => {
    const explicit = loadEvalSet()
    const implied = loadImpliedSet()
    expect(explicit.length).toBeGreaterThanOrEqual(300)
    for (const language of ['en', 'nl', 'fr', 'de']) {
      expect(explicit.filter((item) => item.language === language).length).toBeGreaterThanOrEqual(75)
      expect(implied.filter((item) => item.language === language).length).toBeGreaterThanOrEqual(50)
    }
  })

  it('keeps the engine above a floor of precision, recall and RP@5 on named skills in every language', () => {
    for (const scores of evaluateExtraction(loadEvalSet())) {
      expect(scores.precision, scores.language).toBeGreaterThanOrEqual(0.95)
      expect(scores.recall, scores.language).toBeGreaterThanOrEqual(0.85)
      expect(scores.rp_at_5, scores.language).toBeGreaterThanOrEqual(0.85)
    }
    expect(
      evaluateExtraction(loadEvalSet()).find((scores) => scores.language === 'all')?.f1,
    ).toBeGreaterThanOrEqual(0.931)
  })

  it('keeps the ranking of implied skills above a floor in every language, and above the mention finder alone', () => {
    const rows = impliedSetRows(['engine', 'mentions only'])
    const floors: Record<string, number> = { en: 33, nl: 22, fr: 46, de: 32 }
    for (const [language, floor] of Object.entries(floors)) {
      const engine = row(rows, `implied ${language}`)
      expect(engine.rp_at_5, language).toBeGreaterThanOrEqual(floor)
      expect(engine.rp_at_5, language).toBeGreaterThan(
        row(rows, `implied ${language}`, 'mentions only').rp_at_5 ?? 0,
      )
      expect(engine.mrr, language).toBeGreaterThanOrEqual(45)
    }
  })
})

if (devSetFolder()) {
  describe('the public dev sets beside the repository', () => {
    it('keep RP@5, RP@10 and MRR above a floor', async () => {
      const rows = await devSetRows(['engine', 'bm25 baseline'])
      const floors: Record<string, [number, number, number]> = {
        'house dev': [44, 48, 40],
        'tech dev': [65, 70, 52],
      }
      for (const [set, [rp5, rp10, mrr]] of Object.entries(floors)) {
        const engine = row(rows, set)
        expect(engine.rp_at_5, set).toBeGreaterThanOrEqual(rp5)
        expect(engine.rp_at_10, set).toBeGreaterThanOrEqual(rp10)
        expect(engine.mrr, set).toBeGreaterThanOrEqual(mrr)
      }
      // On TECH the engine ranks above the plain BM25 baseline on every figure.
      const tech = row(rows, 'tech dev')
      const baseline = row(rows, 'tech dev', 'bm25 baseline')
      expect(tech.rp_at_5).toBeGreaterThan(baseline.rp_at_5 ?? 0)
      expect(tech.rp_at_10).toBeGreaterThan(baseline.rp_at_10 ?? 0)
    })
  })
}
