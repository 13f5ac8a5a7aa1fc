import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { SkillNames } from '../taxonomy/skill-names.js'
import type { Section, SupplyDemand, SupplyDemandSkill } from './report-model.js'
import { NOT_DERIVED, skillName } from './section-notices.js'
import type { SkillHolders } from './skill-holders.js'

/** How many of the most asked-for skills the section compares. */
export const SUPPLY_DEMAND_SKILLS = 30

/**
 * Supply and demand: the skills most asked for by open (active) vacancies, each against the
 * employees who hold it at the level asked (the median of the levels the vacancies ask, governed
 * else inferred, as the 4.5 gap reads them; a holder is someone the gap would not list for it).
 * Demand counts open vacancies only: a job describes a role that is mostly filled already, so
 * counting it as demand made every shortage ≤ 0; how many jobs ask for the skill is shown beside.
 * The 30 most asked for, sorted by shortage (open vacancies − holders).
 */
export async function gatherSupplyDemand(
  database: TenantDatabase,
  vendor: ExternalVendor,
  language: VocabLanguage,
  names: SkillNames,
  holders: SkillHolders,
  options: { derived: boolean },
): Promise<Section<SupplyDemand>> {
  if (!options.derived) return { notice: `${NOT_DERIVED}: no open vacancy asks for a skill yet.` }
  const rows = await database.all<{ skill_id: string; kind: string; level: number | null; n: number }>(
    `SELECT p.skill_id, p.entity_type AS kind,
            coalesce(p.governed_proficiency_level, p.proficiency_level) AS level, count(*)::INTEGER AS n
       FROM profile_skills p
      WHERE p.external_vendor = $1
        AND (p.entity_type = 'job' AND p.entity_id IN (SELECT external_id FROM jobs)
          OR p.entity_type = 'vacancy' AND p.entity_id IN (SELECT external_id FROM vacancies WHERE status = 'active'))
      GROUP BY ALL`,
    [vendor],
  )
  const bySkill = new Map<string, { vacancies: number; jobs: number; levels: Map<number, number> }>()
  for (const row of rows) {
    let entry = bySkill.get(row.skill_id)
    if (!entry) {
      entry = { vacancies: 0, jobs: 0, levels: new Map() }
      bySkill.set(row.skill_id, entry)
    }
    if (row.kind === 'job') entry.jobs += row.n
    else {
      entry.vacancies += row.n
      if (row.level !== null) entry.levels.set(row.level, (entry.levels.get(row.level) ?? 0) + row.n)
    }
  }
  const mostAsked = [...bySkill.entries()]
    .filter(([, entry]) => entry.vacancies > 0)
    .map(([skillId, entry]) => ({ skillId, ...entry, demand: entry.vacancies }))
    .sort((a, b) => b.demand - a.demand || (a.skillId < b.skillId ? -1 : 1))
    .slice(0, SUPPLY_DEMAND_SKILLS)
  if (mostAsked.length === 0)
    return {
      notice:
        'No open vacancy asks for any skill (there are none, or their profiles are empty): demand counts open vacancies only, as a job describes a role that is mostly filled already.',
    }
  const skills = mostAsked.map((entry): SupplyDemandSkill => {
    const level = lowerMedian(entry.levels)
    const held = holders.atLevel(entry.skillId, level)
    return {
      skill_id: entry.skillId,
      skill_name: skillName(names, language, entry.skillId),
      open_vacancies: entry.vacancies,
      jobs: entry.jobs,
      demand: entry.demand,
      asked_level: level,
      holders: held,
      shortage: entry.demand - held,
    }
  })
  skills.sort((a, b) => b.shortage - a.shortage || b.demand - a.demand || (a.skill_id < b.skill_id ? -1 : 1))
  return { skills }
}

/** The median of a histogram of levels; of an even count, the lower of the two middle ones. */
export function lowerMedian(levels: ReadonlyMap<number, number>): number | null {
  let count = 0
  for (const n of levels.values()) count += n
  if (count === 0) return null
  const middle = Math.floor((count - 1) / 2)
  let seen = 0
  for (const level of [...levels.keys()].sort((a, b) => a - b)) {
    seen += levels.get(level) as number
    if (seen > middle) return level
  }
  return null
}
