import { join } from 'node:path'
import { defaultExtractor, extractorFor } from '../../src/extraction/extractor-cache.js'
import type { ExtractOptions, SkillExtractor } from '../../src/extraction/skill-extractor.js'
import { labelsOfTenant, labelsOfVocabulary } from '../../src/extraction/vocabulary-labels.js'
import { importTaxonomy } from '../../src/taxonomy/import-taxonomy.js'
import { initialiseTenant, loadDefaultVocabulary } from '../../src/tenants/initialise-tenant.js'
import { createTenant, withTenant } from '../../src/tenants/tenant-service.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { bm25Baseline } from './bm25-baseline.js'
import { type DevSetName, devSetFolder, loadDevSet, rankingScores } from './dev-sets.js'
import { type EvalItem, evaluateExtraction, loadEvalSet, loadImpliedSet } from './evaluate-extraction.js'

/** One row of the evaluation table; figures in percent, absent where they do not apply. */
export interface EvaluationRow {
  set: string
  system: string
  items: number
  rp_at_5?: number
  rp_at_10?: number
  mrr?: number
  precision?: number
  recall?: number
  f1?: number
}

/**
 * The systems compared: the engine as shipped, its mention finder alone, the plain BM25 baseline
 * and its stemmed variant.
 */
export const SYSTEMS = ['engine', 'mentions only', 'bm25 baseline', 'bm25 stemmed'] as const
export type SystemName = (typeof SYSTEMS)[number]

const TOP = 10

function engineOptions(system: SystemName, language: 'auto' | EvalItem['language']): ExtractOptions {
  return { language, top: TOP, ...(system === 'mentions only' ? { infer: false } : {}) }
}

/**
 * The rows of the public dev sets: the ESCO folder imported into a scratch tenant (vendor_a), each
 * sentence ranked by each system, the top 10 names compared with the gold labels case-insensitively.
 * Empty when the dev set folder is not beside the repository.
 */
export async function devSetRows(systems: readonly SystemName[] = SYSTEMS): Promise<EvaluationRow[]> {
  const folder = devSetFolder()
  if (!folder) return []
  const scratch = tempDir('skillhouse-eval-')
  try {
    await createTenant({
      dataDir: scratch.dir,
      name: 'eval',
      region: 'eu',
      vendors: ['vendor_a'],
      initialise: initialiseTenant,
    })
    return await withTenant(scratch.dir, 'eval', async (tenant) => {
      await importTaxonomy(tenant, {
        paths: [join(folder, 'esco')],
        format: 'esco',
        external_vendor: 'vendor_a',
      })
      const extractor = await extractorFor(tenant.database, 'vendor_a')
      const labels = await labelsOfTenant(tenant.database, 'vendor_a')
      const baselines = { plain: bm25Baseline(labels), stemmed: bm25Baseline(labels, true) }
      const rows: EvaluationRow[] = []
      for (const name of ['house', 'tech'] as DevSetName[]) {
        const sentences = await loadDevSet(folder, name)
        for (const system of systems) {
          const results = sentences.map((sentence) => ({
            gold: sentence.gold,
            ranked:
              system === 'bm25 baseline' || system === 'bm25 stemmed'
                ? baselines[system === 'bm25 baseline' ? 'plain' : 'stemmed'](sentence.text, TOP).map((id) =>
                    extractor.nameOf(id).toLowerCase(),
                  )
                : extractor
                    .extract(sentence.text, engineOptions(system, 'en'))
                    .skills.map((skill) => skill.skill_name.toLowerCase()),
          }))
          rows.push({ set: `${name} dev`, system, ...rankingScores(results) })
        }
      }
      return rows
    })
  } finally {
    scratch.cleanup()
  }
}

/** Ranking rows of an own set (skill ids as gold), per language and for all, on the default vocabulary. */
function ownSetRows(
  setName: string,
  items: readonly EvalItem[],
  extractor: SkillExtractor,
  systems: readonly SystemName[],
): EvaluationRow[] {
  const rows: EvaluationRow[] = []
  const labels = labelsOfVocabulary(loadDefaultVocabulary())
  const baselines = { plain: bm25Baseline(labels), stemmed: bm25Baseline(labels, true) }
  for (const language of ['en', 'nl', 'fr', 'de', 'all']) {
    const mine = items.filter((item) => language === 'all' || item.language === language)
    for (const system of systems) {
      const results = mine.map((item) => ({
        gold: new Set(item.gold),
        ranked:
          system === 'bm25 baseline' || system === 'bm25 stemmed'
            ? baselines[system === 'bm25 baseline' ? 'plain' : 'stemmed'](item.text, TOP)
            : extractor
                .extract(item.text, engineOptions(system, item.language))
                .skills.map((skill) => skill.skill_id),
      }))
      rows.push({ set: `${setName} ${language}`, system, ...rankingScores(results) })
    }
  }
  return rows
}

/** Every row of `npm run eval`: dev sets, the explicit-mention set and the implied-skill set. */
export async function evaluationRows(systems: readonly SystemName[] = SYSTEMS): Promise<EvaluationRow[]> {
  const rows = await devSetRows(systems)
  const explicit = loadEvalSet()
  for (const system of systems.filter((name) => name === 'engine' || name === 'mentions only')) {
    for (const row of evaluateExtraction(
      explicit,
      'given',
      system === 'mentions only' ? { infer: false } : {},
    ))
      rows.push({
        set: `explicit ${row.language}`,
        system,
        items: row.items,
        rp_at_5: pct(row.rp_at_5),
        precision: pct(row.precision),
        recall: pct(row.recall),
        f1: pct(row.f1),
      })
  }
  rows.push(...impliedSetRows(systems))
  return rows
}

/** The rows of the implied-skill set, per language and for all. */
export function impliedSetRows(systems: readonly SystemName[] = SYSTEMS): EvaluationRow[] {
  return ownSetRows('implied', loadImpliedSet(), defaultExtractor(), systems)
}

const pct = (share: number) => Math.round(share * 1000) / 10

/** The rows as one plain-text table. */
export function formatTable(rows: readonly EvaluationRow[]): string {
  const columns: [keyof EvaluationRow, string, number][] = [
    ['set', 'set', 14],
    ['system', 'system', 14],
    ['items', 'items', 6],
    ['rp_at_5', 'RP@5', 6],
    ['rp_at_10', 'RP@10', 6],
    ['mrr', 'MRR', 6],
    ['precision', 'P', 6],
    ['recall', 'R', 6],
    ['f1', 'F1', 6],
  ]
  const line = (cells: string[]) =>
    cells
      .map((cell, index) =>
        index < 2 ? cell.padEnd(columns[index]?.[2] ?? 0) : cell.padStart(columns[index]?.[2] ?? 0),
      )
      .join(' ')
  const out = [line(columns.map(([, title]) => title))]
  for (const row of rows)
    out.push(
      line(
        columns.map(([key]) => {
          const value = row[key]
          return value === undefined
            ? ''
            : typeof value === 'number' && key !== 'items'
              ? value.toFixed(1)
              : String(value)
        }),
      ),
    )
  return out.join('\n')
}
