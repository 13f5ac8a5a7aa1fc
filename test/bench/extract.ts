import { createReadStream } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Worker } from 'node:worker_threads'
import { defaultExtractor } from '../../src/extraction/extractor-cache.js'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { eventText } from '../../src/profiles/evidence.js'
import { loadDefaultVocabulary } from '../../src/tenants/initialise-tenant.js'
import type { BenchResult } from './bench-result.js'
import { scaled, scratchDir } from './measure.js'

/**
 * Extraction alone, on both cores: the texts of 200,000 generated skill events (a tenth of the
 * derive benchmark's, held in memory) through the default vocabulary's compiled extractor, half
 * in each of two worker threads started together, so that the two cores extract at once (the
 * derive benchmark measures extraction inside the whole pipeline); once with the ranker of
 * implied skills, as derivation runs it, and once with the mention finder alone. The reference, in the same run
 * on one core: the plain formulation of dictionary extraction (labels in a Map by their folded
 * words, the longest run of words at each word), with neither stemming nor scores, run over the
 * same texts after a warm-up pass as ours.
 */
export async function benchExtract(): Promise<BenchResult> {
  const scratch = scratchDir('extract')
  const events = scaled(200_000)
  try {
    await generateTenant({ out: scratch.dir, seed: 2, employees: scaled(10_000), events })
    const texts: string[] = []
    const languages: string[] = []
    for await (const line of createInterface({
      input: createReadStream(join(scratch.dir, 'skill_events.ndjson')),
    })) {
      if (!line) continue
      const row = JSON.parse(line)
      const text = eventText({ ...row, language: row.language ?? null, ended_on: null })
      if (!text) continue
      texts.push(text)
      languages.push(row.language ?? 'auto')
    }
    const chars = texts.reduce((sum, text) => sum + text.length, 0)
    const megabytes = chars / 1e6
    const figures: Record<string, number | string> = { texts: texts.length, text_mb: round(megabytes) }
    const ratios: Record<string, number> = {}

    const extractor = defaultExtractor()
    const cores = Math.min(2, availableParallelism())
    figures.ours_threads = cores
    const perCoreOf: Record<string, number[]> = {}
    for (const [name, infer] of [
      ['ranked', true],
      ['mentions_only', false],
    ] as const) {
      const ours = await extractInWorkers(extractor.compiled, texts, languages, cores, infer)
      const perCore = ours.map((worker) => worker.chars / 1e6 / worker.seconds)
      perCoreOf[name] = perCore
      const wall = Math.max(...ours.map((worker) => worker.seconds))
      figures[`${name}_mb_per_s_per_core`] = perCore.map(round).join(' / ')
      figures[`${name}_mb_per_s_all_cores`] = round(megabytes / wall)
      figures[`${name}_skills_found`] = ours.reduce((sum, worker) => sum + worker.found, 0)
    }
    ratios.ranked_vs_mentions_only = round(
      Math.min(...(perCoreOf.ranked as number[])) / Math.min(...(perCoreOf.mentions_only as number[])),
    )

    const reference = plainExtractor()
    for (const text of texts) reference(text)
    let found = 0
    const started = performance.now()
    for (const text of texts) found += reference(text)
    const referencePerCore = megabytes / ((performance.now() - started) / 1000)
    figures.reference_mb_per_s_one_core = round(referencePerCore)
    figures.reference_skills_found = found
    ratios.ranked_per_core_vs_plain_lookup = round(
      Math.min(...(perCoreOf.ranked as number[])) / referencePerCore,
    )
    ratios.mentions_only_per_core_vs_plain_lookup = round(
      Math.min(...(perCoreOf.mentions_only as number[])) / referencePerCore,
    )
    return { name: 'extract', figures, ratios }
  } finally {
    scratch.cleanup()
  }
}

async function extractInWorkers(
  vocabulary: ReturnType<typeof defaultExtractor>['compiled'],
  texts: string[],
  languages: string[],
  count: number,
  infer: boolean,
): Promise<{ seconds: number; chars: number; found: number }[]> {
  const workers = Array.from({ length: count }, (_, index) => {
    const mine = texts.filter((_, position) => position % count === index)
    const worker = new Worker(new URL('./extract-worker.js', import.meta.url), {
      workerData: {
        vocabulary,
        texts: mine,
        languages: languages.filter((_, position) => position % count === index),
        infer,
      },
    })
    const chars = mine.reduce((sum, text) => sum + text.length, 0)
    const ready = new Promise<void>((resolve, reject) => {
      worker.once('message', () => resolve())
      worker.once('error', reject)
    })
    return { worker, chars, ready }
  })
  try {
    await Promise.all(workers.map((entry) => entry.ready))
    return await Promise.all(
      workers.map(
        ({ worker, chars }) =>
          new Promise<{ seconds: number; chars: number; found: number }>((resolve, reject) => {
            worker.once('message', (done: { seconds: number; found: number }) => resolve({ ...done, chars }))
            worker.once('error', reject)
            worker.postMessage('go')
          }),
      ),
    )
  } finally {
    await Promise.all(workers.map(({ worker }) => worker.terminate()))
  }
}

/** Lower case without accents: how the plain reference compares words. */
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()

const WORD = /[\p{L}\p{N}]+/gu

/**
 * The plain formulation of dictionary extraction: every label and alias of the default
 * vocabulary, folded, in a Map by its words; a text is folded, split into words, and at each word
 * the longest run of up to `longest` words that is a label is taken.
 */
function plainExtractor(): (text: string) => number {
  const labels = new Map<string, string>()
  let longest = 1
  for (const domain of loadDefaultVocabulary())
    for (const subdomain of domain.subdomains)
      for (const cluster of subdomain.skill_clusters)
        for (const skill of cluster.skills) {
          const all = [...Object.values(skill.names), ...Object.values(skill.aliases ?? {}).flat()]
          for (const label of all) {
            const words = fold(label).match(WORD) ?? []
            if (words.length === 0) continue
            longest = Math.max(longest, words.length)
            labels.set(words.join(' '), skill.external_id)
          }
        }
  return (text) => {
    const words = fold(text).match(WORD) ?? []
    const found = new Set<string>()
    for (let at = 0; at < words.length; at++) {
      for (let length = Math.min(longest, words.length - at); length >= 1; length--) {
        const skill = labels.get(words.slice(at, at + length).join(' '))
        if (skill !== undefined) {
          found.add(skill)
          at += length - 1
          break
        }
      }
    }
    return found.size
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000
