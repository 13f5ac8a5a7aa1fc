import type { SeededRandom } from '../util/seeded-random.js'
import type { Lang } from './generator-word-lists.js'
import type { SampleSkill } from './vocabulary-sample.js'

/**
 * Writes about skills with the generator's random source: a word for a skill (its name or an
 * alias) and a template whose `{n}` places each take a word of a skill drawn from a pool.
 */
export class SkillText {
  constructor(private readonly random: SeededRandom) {}

  /** A word a writer would use for `skill` in `lang`. */
  word(skill: SampleSkill, lang: Lang): string {
    return this.random.pick(skill.words[lang])
  }

  /** `template` with every `{n}` replaced by a word of a skill drawn from `pool`. */
  fill(template: string, lang: Lang, pool: SampleSkill[]): string {
    return template.replace(/\{(\d)\}/g, () => this.word(this.random.pick(pool), lang))
  }
}

/** The calendar day `days` after the first of January of `fromYear`, as YYYY-MM-DD. */
export function isoDate(fromYear: number, days: number): string {
  return new Date(Date.UTC(fromYear, 0, 1) + days * 86_400_000).toISOString().slice(0, 10)
}
