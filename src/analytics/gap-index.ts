import {
  entityIds,
  type ProfileRuns,
  readProfileRuns,
  withSkillNumbering,
} from '../matching/profile-columns.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { StampedCache, stampedIndex } from '../store/stamped-cache.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import type { GapCandidate } from './gap-rule.js'

/**
 * What the skill gap (4.5) reads, in memory for one tenant and vendor: every employee's and every
 * vacancy's (of any status) profile as runs of numbered skills, and the display names of the
 * vendor's skills. Built once per change of the data and kept while it holds, so that a gap is a
 * pass over two short runs instead of scans of the profile table, whose lookups by entity cost
 * milliseconds each.
 */
export interface GapIndex {
  vendor: ExternalVendor
  stamp: string
  /** Skill ids by number: the skills some vacancy profile of the vendor holds. */
  skillIds: string[]
  /** Employees and vacancies by external_id: their numbers in the runs. */
  employees: Map<string, number>
  vacancies: Map<string, number>
  /** Vacancy skills; values: score, required level (NaN when unknown), critical (1 or 0). */
  vacancySkills: ProfileRuns
  /** Employee skills of the numbering (no other can be in a gap); values: level (NaN when unknown). */
  employeeSkills: ProfileRuns
  names: SkillNames
  seconds: number
}

const cache = new StampedCache<GapIndex>()

/**
 * The gap index of a tenant and vendor. `version` is a version of the data that the caller knows
 * to change whenever anything may have written to the database (the server's tenant pool): while
 * it holds, the index is given without a query; when it moves, the data's stamp is asked, and the
 * index is rebuilt only when that changed too.
 */
export function gapIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  version: string,
): Promise<GapIndex> {
  return stampedIndex(
    cache,
    database,
    vendor,
    version,
    ['vacancies', 'employees', 'profiles', 'skill_names'],
    (stamp) => buildGapIndex(database, vendor, stamp),
  )
}

async function buildGapIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  stamp: string,
): Promise<GapIndex> {
  const started = performance.now()
  const employeeIds = await entityIds(database, 'employees')
  const vacancyIds = await entityIds(database, 'vacancies')
  // The columns are those of the SQL formulation of the gap (see skill-gap.ts), NULL as NaN.
  const level = "coalesce(p.governed_proficiency_level, p.proficiency_level, 'NaN'::DOUBLE)"
  const { skillIds, vacancySkills, employeeSkills } = await withSkillNumbering(
    database,
    vendor,
    ['vacancies'],
    async (numbering) => ({
      skillIds: numbering.ids,
      vacancySkills: await readProfileRuns(database, 'vacancies', vendor, vacancyIds, numbering, [
        'p.score',
        level,
        'coalesce(p.governed_critical, p.inferred_critical, false)::INTEGER',
      ]),
      employeeSkills: await readProfileRuns(database, 'employees', vendor, employeeIds, numbering, [level]),
    }),
  )
  return {
    vendor,
    stamp,
    skillIds,
    employees: new Map(employeeIds.map((id, position) => [id, position])),
    vacancies: new Map(vacancyIds.map((id, position) => [id, position])),
    vacancySkills,
    employeeSkills,
    names: await SkillNames.load(database, vendor),
    seconds: (performance.now() - started) / 1000,
  }
}

/**
 * The skills of a vacancy's profile with what an employee holds of each (see `GapCandidate`),
 * both given by their numbers in the index.
 */
export function gapCandidatesOf(index: GapIndex, employee: number, vacancy: number): GapCandidate[] {
  const { start, skill, values } = index.vacancySkills
  const [score, required, critical] = values as [Float64Array, Float64Array, Float64Array]
  const held = index.employeeSkills
  const heldLevel = held.values[0] as Float64Array
  const heldFrom = held.start[employee] as number
  const heldTo = held.start[employee + 1] as number
  const candidates: GapCandidate[] = []
  for (let at = start[vacancy] as number, end = start[vacancy + 1] as number; at < end; at++) {
    const number = skill[at] as number
    // A run holds tens of skills: a scan beats any lookup structure.
    let found = -1
    for (let other = heldFrom; other < heldTo; other++) {
      if (held.skill[other] === number) {
        found = other
        break
      }
    }
    candidates.push({
      skill_id: index.skillIds[number] as string,
      critical: critical[at] === 1,
      score: score[at] as number,
      required_level: levelOf(required[at] as number),
      held: found >= 0,
      held_level: found >= 0 ? levelOf(heldLevel[found] as number) : null,
    })
  }
  return candidates
}

const levelOf = (value: number): number | null => (Number.isNaN(value) ? null : value)
