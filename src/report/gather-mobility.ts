import { skillGap } from '../analytics/skill-gap.js'
import { vacancyCandidates } from '../matching/vacancy-candidates.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { SkillNames } from '../taxonomy/skill-names.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { belowShownAs } from './number-format.js'
import type { Mobility, MobilityVacancy, Section } from './report-model.js'
import { matchingNotice, skillName } from './section-notices.js'

/** The 4.11 score from which an internal candidate counts as strong, as the report shows scores (two decimals). */
export const STRONG_SCORE = 0.7
/** Candidates kept per vacancy. */
export const CANDIDATES_PER_VACANCY = 3

/**
 * Internal mobility: for each open vacancy, its best internal candidates by the score the
 * default 4.11 request gives them (`vacancyCandidates`), how many score above 0.7, and the 4.5 gap
 * of the best one (`skillGap`; its skills named here in the vocabulary language, as the gap names
 * them, so that the language is not checked again per vacancy). Vacancies with no candidate come
 * first, then those with the fewest strong candidates, then the lowest best score.
 */
export async function gatherMobility(
  tenant: OpenTenant,
  vendor: ExternalVendor,
  language: VocabLanguage,
  names: SkillNames,
  options: { derived: boolean; openVacancies: number; employees: number },
): Promise<Section<Mobility>> {
  const cannotMatch = matchingNotice(
    { targets: options.openVacancies, employees: options.employees, derived: options.derived },
    {
      noTargets: 'The tenant has no open vacancy.',
      noEmployees: 'The tenant has no employees to move into its open vacancies.',
      target: 'a vacancy',
    },
  )
  if (cannotMatch) return cannotMatch
  const found = await vacancyCandidates(tenant, {
    external_vendor: vendor,
    best: CANDIDATES_PER_VACANCY,
    // Counted as shown: a score that reads 0.70 (0.695 and up, two decimals) is a strong one.
    strongScore: belowShownAs(STRONG_SCORE),
  })
  const vacancies: MobilityVacancy[] = []
  for (const vacancy of found) {
    const best = vacancy.best[0]
    const gap = best
      ? await skillGap(tenant, best.employee_id, vacancy.vacancy_id, { external_vendor: vendor })
      : []
    vacancies.push({
      vacancy_id: vacancy.vacancy_id,
      title: vacancy.title,
      candidates: vacancy.best,
      strong_candidates: vacancy.strong,
      best_gap: gap.map((entry) => ({
        skill_id: entry.skill_id,
        skill_name: skillName(names, language, entry.skill_id),
      })),
    })
  }
  vacancies.sort(
    (a, b) =>
      Number(a.candidates.length > 0) - Number(b.candidates.length > 0) ||
      a.strong_candidates - b.strong_candidates ||
      (a.candidates[0]?.score ?? 0) - (b.candidates[0]?.score ?? 0) ||
      (a.vacancy_id < b.vacancy_id ? -1 : 1),
  )
  return { strong_score: STRONG_SCORE, vacancies }
}
