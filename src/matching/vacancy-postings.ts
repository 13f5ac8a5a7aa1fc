import type { VacancyIndex } from './vacancy-index.js'
import type { VacancyReach } from './vacancy-places.js'
import type { VacancyPlan } from './vacancy-request-check.js'

/** Per skill of the vacancy index, the vacancies that ask for it: start[s] … start[s + 1] in vacancy. */
interface VacancyPostings {
  start: Int32Array
  vacancy: Int32Array
}

const postings = new WeakMap<VacancyIndex, VacancyPostings>()

/** The vacancy index's skills inverted into posting lists, made once per index. */
function vacancyPostings(index: VacancyIndex): VacancyPostings {
  let inverted = postings.get(index)
  if (!inverted) {
    const { targets } = index
    const skills = index.skillIds.length
    const vacancies = index.ids.length
    const start = new Int32Array(skills + 1)
    for (let row = 0; row < targets.skill.length; row++) {
      const skill = targets.skill[row] as number
      start[skill + 1] = (start[skill + 1] as number) + 1
    }
    for (let skill = 0; skill < skills; skill++)
      start[skill + 1] = (start[skill + 1] as number) + (start[skill] as number)
    const fill = start.slice(0, skills)
    const vacancy = new Int32Array(targets.skill.length)
    for (let at = 0; at < vacancies; at++) {
      const to = targets.start[at + 1] as number
      for (let row = targets.start[at] as number; row < to; row++) {
        const skill = targets.skill[row] as number
        vacancy[fill[skill] as number] = at
        fill[skill] = (fill[skill] as number) + 1
      }
    }
    inverted = { start, vacancy }
    postings.set(index, inverted)
  }
  return inverted
}

/**
 * The vacancies that can be ranked for one employee's plan, for a batch of 4.11 answers. Filters
 * are all met, so a distance filter's reach holds every vacancy that can pass (employees share
 * few places: the reach of each is found once). When skills_match is the only weight, a vacancy
 * that asks for none of the employee's skills scores 0 and is never ranked, so only the vacancies
 * of the posting lists of the skills the employee holds are candidates (those in the reach); any
 * other weight can score any vacancy, and then every vacancy in the reach is a candidate, or
 * every vacancy (null) without one.
 */
export class VacancyCandidateFinder {
  private readonly postings: VacancyPostings
  /** Skill rows per vacancy, on average: what scoring a vacancy costs, in posting entries. */
  private readonly rowsPerVacancy: number
  /** The last search that found each vacancy. */
  private readonly seenIn: Int32Array
  private readonly found: Int32Array
  private search = 0

  constructor(index: VacancyIndex) {
    this.postings = vacancyPostings(index)
    this.rowsPerVacancy = index.targets.skill.length / Math.max(1, index.ids.length)
    this.seenIn = new Int32Array(index.ids.length)
    this.found = new Int32Array(index.ids.length)
  }

  /** The candidate vacancies of `plan` (valid until the next call), or null for every vacancy. */
  candidates(plan: VacancyPlan): ArrayLike<number> | null {
    let reach: VacancyReach | undefined
    for (const filter of plan.filters) {
      if (filter.reach && !(reach && reach.members.length <= filter.reach.members.length))
        reach = filter.reach
    }
    const only = plan.components.length === 1 ? plan.components[0] : undefined
    if (only?.weight !== 'skills_match') return reach ? reach.members : null
    const { start, vacancy } = this.postings
    let entries = 0
    for (const skill of plan.heldNumbers) entries += (start[skill + 1] as number) - (start[skill] as number)
    // Scoring every vacancy in reach can cost less than walking the posting lists.
    if (reach && reach.members.length * this.rowsPerVacancy < entries) return reach.members
    const mask = reach?.mask
    const { seenIn, found } = this
    const search = ++this.search
    let count = 0
    for (const skill of plan.heldNumbers) {
      const to = start[skill + 1] as number
      for (let at = start[skill] as number; at < to; at++) {
        const candidate = vacancy[at] as number
        if (seenIn[candidate] === search || (mask && mask[candidate] === 0)) continue
        seenIn[candidate] = search
        found[count++] = candidate
      }
    }
    return found.subarray(0, count)
  }
}
