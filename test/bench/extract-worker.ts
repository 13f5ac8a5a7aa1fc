import { parentPort, workerData } from 'node:worker_threads'
import { type CompiledVocabulary, SkillExtractor } from '../../src/extraction/skill-extractor.js'
import { IMPLIED_MIN_CONFIDENCE, IMPLIED_PER_TEXT } from '../../src/profiles/evidence.js'

/**
 * One core of `bench -- extract`: extracts every text it is given, twice, and times the second
 * pass; with `infer`, as derivation does (the named skills and the best implied ones), else the
 * mention finder alone.
 */
const { vocabulary, texts, languages, infer } = workerData as {
  vocabulary: CompiledVocabulary
  texts: string[]
  languages: string[]
  infer: boolean
}
const extractor = SkillExtractor.load(vocabulary)
let found = 0
const count = () => {
  found++
}
const implied = infer
  ? { visit: count, best: IMPLIED_PER_TEXT, minConfidence: IMPLIED_MIN_CONFIDENCE }
  : undefined
const pass = () => {
  for (let index = 0; index < texts.length; index++)
    extractor.visitSkills(texts[index] as string, languages[index] as string, count, undefined, implied)
}
// The first pass warms the optimiser and the extractor's word cache, as a long run would be.
pass()
parentPort?.postMessage({ ready: true })
parentPort?.once('message', () => {
  found = 0
  const started = performance.now()
  pass()
  parentPort?.postMessage({ seconds: (performance.now() - started) / 1000, found })
})
