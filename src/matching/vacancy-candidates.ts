import { haversineKm } from '../geo/haversine.js'
import { type Employee, LIMITS } from '../schemas/index.js'
import type { MatchingTenant } from './match-jobs.js'
import { employeeOrigin, prepareVacancyMatching } from './match-vacancies.js'
import { forEachRow } from './profile-columns.js'
import { earnedWeight, roundScore } from './scoring-model.js'
import { vacancyIndex } from './vacancy-index.js'

/** One employee of a vacancy's candidates, with the score 4.11 gives them for it. */
export interface VacancyCandidate {
  employee_id: string
  score: number
}

/** What 4.11 says about one active vacancy, seen from the vacancy. */
export interface VacancyCandidates {
  vacancy_id: string
  title: string
  /** The best `best` candidates, score descending, ties by employee external_id. */
  best: VacancyCandidate[]
  /** Candidates whose score is above `strongScore`. */
  strong: number
}

export interface VacancyCandidatesOptions {
  external_vendor?: string | undefined
  /** How many of the best candidates to keep per vacancy. */
  best: number
  /** The score above which a candidate counts as strong. */
  strongScore: number
}

/**
 * 4.11 turned around: for every active vacancy, the employees whose ranking of the default 4.11
 * request (no filters or weights: skills_match alone, the 50 km geo-distance filter, no minimum
 * score) holds it, with the score they get there. An employee is a candidate of a vacancy exactly
 * when `matchVacancies(employee, {}, {limit: 100})`-style paging would list the vacancy with a
 * score above 0: the same index, the same sums in the same order, the same origin and distance.
 *
 * Asking 4.11 once per employee costs a pass over every vacancy each; here each vacancy walks
 * only the employees holding one of its skills (an inverted index of the vacancy index's
 * employee profiles), and the distance is computed only for a candidate that would be counted
 * or kept.
 */
export async function vacancyCandidates(
  tenant: MatchingTenant,
  options: VacancyCandidatesOptions,
): Promise<VacancyCandidates[]> {
  const prepared = await prepareVacancyMatching(
    tenant,
    {},
    options.external_vendor ? { external_vendor: options.external_vendor } : {},
  )
  const minScore = prepared.query.min_score
  const maxKm = LIMITS.vacancyMatching.defaultMaxGeoDistanceKm
  const index = await vacancyIndex(tenant.database, prepared.vendor, prepared.features, tenant.dataVersion)
  const employees = index.employees
  const count = employees.ids.length
  const { originLat, originLng } = await employeeOrigins(tenant, index, employees.ids)

  // Skill → (employee, strength, level), employees in number order.
  const columns = employees.skills
  const skillCount = index.skillIds.length
  const postingStart = new Int32Array(skillCount + 1)
  for (let row = 0; row < columns.skill.length; row++) {
    const skill = columns.skill[row] as number
    postingStart[skill + 1] = (postingStart[skill + 1] as number) + 1
  }
  for (let skill = 0; skill < skillCount; skill++)
    postingStart[skill + 1] = (postingStart[skill + 1] as number) + (postingStart[skill] as number)
  const postingEmployee = new Int32Array(columns.skill.length)
  const postingStrength = new Float64Array(columns.skill.length)
  const postingLevel = new Uint8Array(columns.skill.length)
  const fill = postingStart.slice(0, skillCount)
  for (let employee = 0; employee < count; employee++) {
    for (let row = columns.start[employee] as number; row < (columns.start[employee + 1] as number); row++) {
      const skill = columns.skill[row] as number
      const at = fill[skill] as number
      fill[skill] = at + 1
      postingEmployee[at] = employee
      postingStrength[at] = columns.strength[row] as number
      postingLevel[at] = columns.level[row] as number
    }
  }

  const proficiency = index.features.proficiencyMatching
  const { targets } = index
  const sum = new Float64Array(count)
  const touched = new Int32Array(count)
  const isTouched = new Uint8Array(count)
  const results: VacancyCandidates[] = []
  for (let vacancy = 0; vacancy < index.ids.length; vacancy++) {
    const lat = index.lat[vacancy] as number
    const lng = index.lng[vacancy] as number
    // The default geo filter: applied when the employee's place is known; a vacancy whose place
    // is unknown cannot be shown to be too far.
    const withinReach = (employee: number) => {
      const fromLat = originLat[employee] as number
      if (Number.isNaN(fromLat) || Number.isNaN(lat)) return true
      return haversineKm(fromLat, originLng[employee] as number, lat, lng) <= maxKm
    }
    let reached = 0
    const to = targets.start[vacancy + 1] as number
    for (let row = targets.start[vacancy] as number; row < to; row++) {
      const skill = targets.skill[row] as number
      const weight = targets.weight[row] as number
      const required = targets.required[row] as number
      for (let at = postingStart[skill] as number; at < (postingStart[skill + 1] as number); at++) {
        const employee = postingEmployee[at] as number
        if (isTouched[employee] === 0) {
          isTouched[employee] = 1
          touched[reached++] = employee
        }
        sum[employee] =
          (sum[employee] as number) +
          earnedWeight(
            weight,
            postingStrength[at] as number,
            required,
            postingLevel[at] as number,
            proficiency,
          )
      }
    }
    const total = targets.total[vacancy] as number
    const best: { score: number; employee: number }[] = []
    let strong = 0
    for (let position = 0; position < reached; position++) {
      const employee = touched[position] as number
      const raw = total > 0 ? (sum[employee] as number) / total : 0
      sum[employee] = 0
      isTouched[employee] = 0
      const last = best[best.length - 1]
      // Rounding moves a score by less than 1e-12: a raw score this far below both the last kept
      // candidate and the strong score can neither be kept nor counted, and needs no more work.
      if (
        best.length >= options.best &&
        last !== undefined &&
        raw < last.score - 1e-9 &&
        raw < options.strongScore - 1e-9
      )
        continue
      const score = roundScore(raw)
      if (!(score > 0 && score >= minScore)) continue
      const entersBest = best.length < options.best || (last !== undefined && isBetter(score, employee, last))
      if (!entersBest && score <= options.strongScore) continue
      if (!withinReach(employee)) continue
      if (score > options.strongScore) strong++
      if (!entersBest) continue
      let at = best.length
      while (at > 0 && isBetter(score, employee, best[at - 1] as { score: number; employee: number })) at--
      best.splice(at, 0, { score, employee })
      if (best.length > options.best) best.pop()
    }
    results.push({
      vacancy_id: index.ids[vacancy] as string,
      title: index.titles[vacancy] as string,
      best: best.map((entry) => ({
        employee_id: employees.ids[entry.employee] as string,
        score: entry.score,
      })),
      strong,
    })
  }
  return results
}

/** Better in a 4.11 ranking turned around: higher score, then the smaller employee number (id). */
const isBetter = (score: number, employee: number, other: { score: number; employee: number }) =>
  score > other.score || (score === other.score && employee < other.employee)

/**
 * Every employee's place as 4.11 finds it (`employeeOrigin`: the stored location, an address by
 * the postal-code table); NaN when unknown. Employees share few distinct places: each is looked
 * up once.
 */
async function employeeOrigins(
  tenant: MatchingTenant,
  index: Parameters<typeof employeeOrigin>[1],
  ids: readonly string[],
): Promise<{ originLat: Float64Array; originLng: Float64Array }> {
  const originLat = new Float64Array(ids.length).fill(Number.NaN)
  const originLng = new Float64Array(ids.length).fill(Number.NaN)
  const position = new Map(ids.map((id, at) => [id, at]))
  const byPlace = new Map<string, number[]>()
  await forEachRow(
    tenant.database,
    `SELECT external_id, (doc->'location')::VARCHAR FROM employees WHERE (doc->'location') IS NOT NULL`,
    [],
    2,
    (values) => {
      const at = position.get(values[0] as string)
      const place = values[1] as string | null
      if (at === undefined || place === null || place === 'null') return
      const list = byPlace.get(place)
      if (list) list.push(at)
      else byPlace.set(place, [at])
    },
  )
  for (const [place, members] of byPlace) {
    const record = { location: JSON.parse(place) } as Employee
    const { origin } = await employeeOrigin(tenant.database, index, {
      id: ids[members[0] as number] as string,
      record,
    })
    if (!origin) continue
    for (const at of members) {
      originLat[at] = origin.lat
      originLng[at] = origin.lng
    }
  }
  return { originLat, originLng }
}
