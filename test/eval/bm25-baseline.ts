import { Stemmers } from '../../src/extraction/text-tokens.js'
import type { LabelInput } from '../../src/extraction/vocabulary-input.js'

const STOP = new Set(
  'a an and are as at be by for from has have in is it its of on or our the this to we with you your will who'.split(
    ' ',
  ),
)

/**
 * The plain baseline the ranker is measured against: BM25 over the English preferred and
 * alternative labels (one document per label, words lower-cased), a label ranked by the share of
 * its idf that the sentence covers, then by its BM25 score; a skill by its best label. About
 * thirty lines, as anyone would write it first. `stemmed`: words stemmed (Snowball, English) and
 * English stop words left out, a stronger variant.
 */
export function bm25Baseline(
  labels: readonly LabelInput[],
  stemmed = false,
): (text: string, top: number) => string[] {
  const stemmers = new Stemmers()
  const words = (text: string) => {
    const all = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
    return stemmed ? all.filter((word) => !STOP.has(word)).map((word) => stemmers.stem(word, 'en')) : all
  }
  const documents = labels
    .filter((label) => label.language.startsWith('en'))
    .map((label) => ({ skill: label.skill_id, terms: [...new Set(words(label.label))] }))
    .filter((document) => document.terms.length > 0)
  const frequency = new Map<string, number>()
  const postings = new Map<string, number[]>()
  for (const [index, document] of documents.entries())
    for (const term of document.terms) {
      frequency.set(term, (frequency.get(term) ?? 0) + 1)
      postings.set(term, [...(postings.get(term) ?? []), index])
    }
  const idf = (term: string) =>
    Math.log(1 + (documents.length - (frequency.get(term) ?? 0) + 0.5) / ((frequency.get(term) ?? 0) + 0.5))
  const averageLength = documents.reduce((sum, document) => sum + document.terms.length, 0) / documents.length
  return (text, top) => {
    const terms = new Set(words(text))
    const covered = new Map<number, number>()
    for (const term of terms)
      for (const index of postings.get(term) ?? []) covered.set(index, (covered.get(index) ?? 0) + idf(term))
    const best = new Map<string, [number, number]>()
    for (const [index, matched] of covered) {
      const document = documents[index] as (typeof documents)[number]
      const total = document.terms.reduce((sum, term) => sum + idf(term), 0)
      const bm25 = (matched * 2.2) / (1 + 1.2 * (0.25 + (0.75 * document.terms.length) / averageLength))
      const score: [number, number] = [matched / total, bm25]
      const known = best.get(document.skill)
      if (!known || score[0] > known[0] || (score[0] === known[0] && score[1] > known[1]))
        best.set(document.skill, score)
    }
    return [...best]
      .sort((a, b) => b[1][0] - a[1][0] || b[1][1] - a[1][1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, top)
      .map(([skill]) => skill)
  }
}
