import type { TextLanguageCode } from './detect-language.js'

/**
 * What a vocabulary is compiled from, shared by the compiler of its word tries
 * (compile-vocabulary.ts) and of its ranker (compile-ranker.ts).
 */

/** One label of the vocabulary: a skill's name or alias in one language. */
export interface LabelInput {
  skill_id: string
  language: string
  kind: 'name' | 'alias'
  label: string
}

/** What the ranker knows of a skill besides its labels: its description and its place in the tree. */
export interface SkillFacts {
  skill_id: string
  description?: string | null | undefined
  /** The skill cluster it belongs to; the subdomain when it has no cluster. */
  cluster?: string | null | undefined
}

/** Text languages in the order of their stemmed tries and ranker postings (and of `wordLanguageWeights`). */
export const TEXT_LANGUAGES: readonly TextLanguageCode[] = ['en', 'nl', 'fr', 'de']
