import { parentPort, workerData } from 'node:worker_threads'
import { type CompiledVocabulary, SkillExtractor } from '../../src/extraction/skill-extractor.js'

/** One core of `bench -- extract`: extracts every text it is given, twice, and times the second pass. */
const { vocabulary, texts, languages } = workerData as {
  vocabulary: CompiledVocabulary
  texts: string[]
  languages: string[]
}
const extractor = SkillExtractor.load(vocabulary)
let found = 0
const pass = () => {
  for (let index = 0; index < texts.length; index++) {
    extractor.visitSkills(texts[index] as string, languages[index] as string, () => {
      found++
    })
  }
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
