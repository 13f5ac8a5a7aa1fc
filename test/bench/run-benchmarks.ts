import { writeFileSync } from 'node:fs'
import type { BenchResult } from './bench-result.js'
import { benchIngest } from './ingest.js'

/**
 * `npm run bench -- [name…]`: runs the named benchmarks (all when none is named) on generated
 * data, prints each one's figures and ratios, and writes them to bench-results.json.
 */
const BENCHES: Record<string, () => Promise<BenchResult>> = {
  ingest: benchIngest,
  vocabulary: async () => (await import('./vocabulary.js')).benchVocabulary(),
  extract: async () => (await import('./extract.js')).benchExtract(),
  derive: async () => (await import('./derive.js')).benchDerive(),
  match: async () => (await import('./match.js')).benchMatch(),
  serve: async () => (await import('./serve.js')).benchServe(),
  nightly: async () => (await import('./nightly.js')).benchNightly(),
  webhooks: async () => (await import('./webhooks.js')).benchWebhooks(),
  report: async () => (await import('./report.js')).benchReport(),
  cli: async () => (await import('./cli.js')).benchCli(),
  'serve-nightly': async () => (await import('./serve-nightly.js')).benchServeNightly(),
  recommend: async () => (await import('./recommend.js')).benchRecommend(),
}

const names = process.argv.slice(2)
const unknown = names.filter((name) => !BENCHES[name])
if (unknown.length) {
  console.error(`unknown benchmark(s) ${unknown.join(', ')}; available: ${Object.keys(BENCHES).join(', ')}`)
  process.exit(2)
}
const results: BenchResult[] = []
for (const name of names.length ? names : Object.keys(BENCHES)) {
  console.log(`\n== ${name}`)
  const result = await (BENCHES[name] as () => Promise<BenchResult>)()
  for (const [key, value] of Object.entries(result.figures)) console.log(`  ${key.padEnd(40)} ${value}`)
  for (const [key, value] of Object.entries(result.ratios)) console.log(`  ratio ${key.padEnd(34)} ${value}`)
  results.push(result)
}
writeFileSync('bench-results.json', `${JSON.stringify(results, null, 2)}\n`)
