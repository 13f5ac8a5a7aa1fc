import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseString } from 'fast-csv'
import { projectRoot } from '../../src/util/project-paths.js'

/** A sentence of a public dev set and its gold skills (ESCO preferred labels, lower case). */
export interface DevSentence {
  text: string
  gold: Set<string>
}

export type DevSetName = 'house' | 'tech'

/**
 * The folder of the public dev sets: `SKILLHOUSE_EVAL_DATA`, else `shared/data/skill-extraction-dev`
 * beside the repository; undefined when it is not there.
 */
export function devSetFolder(): string | undefined {
  const folder =
    process.env.SKILLHOUSE_EVAL_DATA ?? join(projectRoot(), '..', 'shared', 'data', 'skill-extraction-dev')
  return existsSync(join(folder, 'esco', 'skills_en.csv')) ? folder : undefined
}

const NOT_SKILLS = new Set(['label not present', 'underspecified'])

/**
 * The sentences of a dev set with at least one gold skill, in the order of the file: a sentence's
 * gold set is the labels of its rows, less LABEL NOT PRESENT and UNDERSPECIFIED.
 */
export async function loadDevSet(folder: string, name: DevSetName): Promise<DevSentence[]> {
  const rows = await new Promise<Record<string, string>[]>((resolve, reject) => {
    const read: Record<string, string>[] = []
    parseString(readFileSync(join(folder, `${name}_validation_annotations.csv`), 'utf8'), { headers: true })
      .on('data', (row: Record<string, string>) => read.push(row))
      .on('error', reject)
      .on('end', () => resolve(read))
  })
  const bySentence = new Map<string, Set<string>>()
  for (const row of rows) {
    const text = row.sentence ?? ''
    const gold = bySentence.get(text) ?? new Set<string>()
    bySentence.set(text, gold)
    const label = (row.label ?? '').trim().toLowerCase()
    if (label && !NOT_SKILLS.has(label)) gold.add(label)
  }
  return [...bySentence].filter(([, gold]) => gold.size > 0).map(([text, gold]) => ({ text, gold }))
}

/** Mean ranking figures over items (each a ranked list of keys and its gold keys). */
export interface RankingScores {
  items: number
  rp_at_5: number
  rp_at_10: number
  mrr: number
}

/**
 * RP@K = relevant keys in the top K ÷ min(K, gold size); MRR = 1 ÷ rank of the first relevant key
 * in the top 10 (0 when none is); each averaged over the items with a gold key.
 */
export function rankingScores(results: readonly { ranked: readonly string[]; gold: ReadonlySet<string> }[]) {
  let rp5 = 0
  let rp10 = 0
  let mrr = 0
  let items = 0
  for (const { ranked, gold } of results) {
    if (gold.size === 0) continue
    items++
    const hits = (k: number) => ranked.slice(0, k).filter((key) => gold.has(key)).length
    rp5 += hits(5) / Math.min(5, gold.size)
    rp10 += hits(10) / Math.min(10, gold.size)
    const first = ranked.slice(0, 10).findIndex((key) => gold.has(key))
    if (first >= 0) mrr += 1 / (first + 1)
  }
  const mean = (sum: number) => Math.round((1000 * sum) / Math.max(1, items)) / 10
  return { items, rp_at_5: mean(rp5), rp_at_10: mean(rp10), mrr: mean(mrr) } satisfies RankingScores
}
