import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { SkillNames } from '../taxonomy/skill-names.js'

/** How the notice of every section that needs derived skill profiles begins. */
export const NOT_DERIVED =
  'Skill profiles have not been derived yet (run skillhouse derive or skillhouse run)'

/** What a section that matches employees to jobs or vacancies says when it cannot match. */
export interface MatchingNotices {
  /** There is nothing to match employees to. */
  noTargets: string
  /** There are no employees to match. */
  noEmployees: string
  /** What employees are matched to, as the notice of underived profiles names it ("a job"). */
  target: string
}

/**
 * Why a section that matches employees (4.10 to jobs, 4.11 to vacancies) has nothing to show: no
 * job or vacancy, no employee, or no derived profile; undefined when it can match.
 */
export function matchingNotice(
  facts: { targets: number; employees: number; derived: boolean },
  notices: MatchingNotices,
): { notice: string } | undefined {
  if (facts.targets === 0) return { notice: notices.noTargets }
  if (facts.employees === 0) return { notice: notices.noEmployees }
  if (!facts.derived) return { notice: `${NOT_DERIVED}, so no one can be matched to ${notices.target}.` }
  return undefined
}

/** A skill's name in the report's language; its id when it lost its names (deleted after derivation). */
export function skillName(names: SkillNames, language: VocabLanguage, skillId: string): string {
  return names.name(skillId, language) ?? skillId
}
