import { evaluateExtraction, loadEvalSet } from './evaluate-extraction.js'

/** `npm run eval`: precision, recall and RP@5 per language, with the language given and detected. */
const items = loadEvalSet()
for (const mode of ['given', 'auto'] as const) {
  console.log(`\nlanguage ${mode === 'given' ? 'given' : 'detected (auto)'}`)
  console.log('language  items  precision  recall  RP@5')
  for (const row of evaluateExtraction(items, mode)) {
    console.log(
      `${row.language.padEnd(8)} ${String(row.items).padStart(6)} ${row.precision.toFixed(3).padStart(10)} ${row.recall.toFixed(3).padStart(7)} ${row.rp_at_5.toFixed(3).padStart(5)}`,
    )
  }
}
