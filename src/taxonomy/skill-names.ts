import type { ExternalVendor } from '../schemas/vendors.js'
import {
  DEFAULT_VOCAB_LANGUAGE,
  VOCAB_LANGUAGES,
  type VocabLanguage,
} from '../schemas/vocabulary-languages.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { listValue } from '../vendor/duckdb.js'

/**
 * The languages tried, in order, for a display name in `language`: the language itself, then
 * en_uk (en_us names exist only where US spelling differs, and every other language falls back to
 * the default). A skill with no name in any of them shows the first name it has.
 */
export function nameFallbacks(language: VocabLanguage): VocabLanguage[] {
  return language === DEFAULT_VOCAB_LANGUAGE ? [language] : [language, DEFAULT_VOCAB_LANGUAGE]
}

/** One display-name label: the skill, its language and the name. */
export interface NameLabel {
  skill_id: string
  language: string
  label: string
}

/**
 * Display names of one vendor's skills, loaded once, for hot loops (matching, gap, profiles).
 * Fallbacks are resolved at load time, so a lookup is one Map probe and one array index:
 * `name(skillId, language)` answers many millions of lookups per second.
 */
export class SkillNames {
  private readonly index = new Map<string, number>()
  private readonly ids: string[] = []
  /** Per language, the name of skill i at position i, fallbacks already applied. */
  private readonly byLanguage = new Map<string, readonly string[]>()

  private constructor(labels: readonly NameLabel[]) {
    for (const { skill_id } of labels) {
      if (!this.index.has(skill_id)) {
        this.index.set(skill_id, this.ids.length)
        this.ids.push(skill_id)
      }
    }
    const count = this.ids.length
    const raw = new Map<string, (string | undefined)[]>()
    for (const { skill_id, language, label } of labels) {
      let column = raw.get(language)
      if (!column) {
        column = new Array<string | undefined>(count).fill(undefined)
        raw.set(language, column)
      }
      column[this.index.get(skill_id) as number] = label
    }
    // Columns are built with push, so V8 keeps them as packed arrays: the fastest to index.
    const resolve = (chain: readonly ((string | undefined)[] | undefined)[]) => {
      const resolved: string[] = []
      for (let position = 0; position < count; position++) {
        let name: string | undefined
        for (const column of chain) {
          name = column?.[position]
          if (name !== undefined) break
        }
        // The last resort: the skill's first name in the order of VOCAB_LANGUAGES, else its id.
        if (name === undefined) {
          for (const language of VOCAB_LANGUAGES) {
            name = raw.get(language)?.[position]
            if (name !== undefined) break
          }
        }
        resolved.push(name ?? (this.ids[position] as string))
      }
      return resolved
    }
    const fallback = resolve([raw.get(DEFAULT_VOCAB_LANGUAGE)])
    for (const language of VOCAB_LANGUAGES) {
      // A language without names of its own shares the default's column: less memory, warmer caches.
      const own = raw.get(language) !== undefined && language !== DEFAULT_VOCAB_LANGUAGE
      this.byLanguage.set(
        language,
        own ? resolve(nameFallbacks(language).map((candidate) => raw.get(candidate))) : fallback,
      )
    }
  }

  /**
   * Loads the display names of `vendor`'s skills (vocabulary and custom) from a tenant database:
   * of every skill, or of `skills` only (one profile's, say: a skill's names do not depend on
   * the others', and a vocabulary holds thousands).
   */
  static async load(
    database: TenantDatabase,
    vendor: ExternalVendor,
    skills?: readonly string[],
  ): Promise<SkillNames> {
    const rows = await database.all<{ skill_id: string; language: string; label: string }>(
      skills === undefined
        ? `SELECT skill_id, language, label FROM skill_labels WHERE external_vendor = $1 AND kind = 'name'`
        : `SELECT skill_id, language, label FROM skill_labels
           WHERE external_vendor = $1 AND kind = 'name' AND list_contains($2, skill_id)`,
      skills === undefined ? [vendor] : [vendor, listValue([...skills])],
    )
    return new SkillNames(rows)
  }

  /** Builds the lookup from labels already in memory (tests, benchmarks, a vocabulary being read). */
  static fromLabels(labels: Iterable<NameLabel>): SkillNames {
    return new SkillNames([...labels])
  }

  /** Number of skills with at least one name. */
  get size(): number {
    return this.ids.length
  }

  has(skillId: string): boolean {
    return this.index.has(skillId)
  }

  /** The display name of a skill in `language` (with fallbacks), or undefined for an unknown skill. */
  name(skillId: string, language: VocabLanguage = DEFAULT_VOCAB_LANGUAGE): string | undefined {
    const position = this.index.get(skillId)
    if (position === undefined) return undefined
    return (this.byLanguage.get(language) as readonly string[])[position]
  }

  /** The position of a skill, for callers that look up the same skills in many languages. */
  positionOf(skillId: string): number | undefined {
    return this.index.get(skillId)
  }

  /** All names of one language, by position: the fastest path for a whole column of skills. */
  column(language: VocabLanguage): readonly string[] {
    return this.byLanguage.get(language) as readonly string[]
  }
}
