import { readFileSync } from 'node:fs'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import type { ExtractOptions } from '../../src/extraction/skill-extractor.js'
import { fixturesDir } from '../../src/util/project-paths.js'

export interface EvalItem {
  id: string
  language: 'en' | 'nl' | 'fr' | 'de'
  text: string
  gold: string[]
}

export interface EvalScores {
  language: string
  items: number
  precision: number
  recall: number
  f1: number
  rp_at_5: number
}

/** The explicit-mention evaluation set of test/eval (see its README). */
export function loadEvalSet(): EvalItem[] {
  return JSON.parse(
    readFileSync(fixturesDir('..', 'test', 'eval', 'extraction-eval.json'), 'utf8'),
  ) as EvalItem[]
}

/** The implied-skill evaluation set of test/eval (see its README). */
export function loadImpliedSet(): EvalItem[] {
  return JSON.parse(
    readFileSync(fixturesDir('..', 'test', 'eval', 'implied-skills-eval.json'), 'utf8'),
  ) as EvalItem[]
}

/**
 * Precision and recall of the predicted skills (all above the extractor's threshold) against
 * gold, pooled over the items of a language; RP@5 averaged over the items with gold skills.
 * `language` 'given' passes each item's language; 'auto' lets the extractor detect it.
 */
export function evaluateExtraction(
  items: readonly EvalItem[],
  mode: 'given' | 'auto' = 'given',
  options: Pick<ExtractOptions, 'infer'> = {},
): EvalScores[] {
  const extractor = defaultExtractor()
  const totals = new Map<
    string,
    { items: number; tp: number; fp: number; fn: number; rp: number; rpItems: number }
  >()
  for (const item of items) {
    const predicted = extractor
      .extract(item.text, { ...options, language: mode === 'auto' ? 'auto' : item.language })
      .skills.map((skill) => skill.skill_id)
    const gold = new Set(item.gold)
    for (const key of [item.language, 'all']) {
      const total = totals.get(key) ?? { items: 0, tp: 0, fp: 0, fn: 0, rp: 0, rpItems: 0 }
      total.items++
      const hits = predicted.filter((id) => gold.has(id)).length
      total.tp += hits
      total.fp += predicted.length - hits
      total.fn += gold.size - hits
      if (gold.size > 0) {
        const k = Math.min(5, gold.size)
        total.rp += predicted.slice(0, k).filter((id) => gold.has(id)).length / k
        total.rpItems++
      }
      totals.set(key, total)
    }
  }
  const round = (value: number) => Math.round(value * 1000) / 1000
  return ['en', 'nl', 'fr', 'de', 'all'].map((language) => {
    const total = totals.get(language) ?? { items: 0, tp: 0, fp: 0, fn: 0, rp: 0, rpItems: 0 }
    const precision = total.tp / Math.max(1, total.tp + total.fp)
    const recall = total.tp / Math.max(1, total.tp + total.fn)
    return {
      language,
      items: total.items,
      precision: round(precision),
      recall: round(recall),
      f1: round(precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0),
      rp_at_5: round(total.rp / Math.max(1, total.rpItems)),
    }
  })
}
