import { meetsLevel } from '../analytics/gap-rule.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'

/**
 * How many employees hold each skill, by the level they hold it at (governed, else inferred, as
 * the 4.5 gap reads it; unknown levels apart): one GROUP BY over the employees' profiles, small
 * whatever the tenant's size, from which "holders at level L" is a sum.
 */
export class SkillHolders {
  private constructor(private readonly byLevel: Map<string, Map<number | null, number>>) {}

  static async load(database: TenantDatabase, vendor: ExternalVendor): Promise<SkillHolders> {
    const rows = await database.all<{ skill_id: string; level: number | null; n: number }>(
      `SELECT skill_id, coalesce(governed_proficiency_level, proficiency_level) AS level, count(*)::INTEGER AS n
         FROM profile_skills WHERE entity_type = 'employee' AND external_vendor = $1
        GROUP BY ALL`,
      [vendor],
    )
    const byLevel = new Map<string, Map<number | null, number>>()
    for (const row of rows) {
      let levels = byLevel.get(row.skill_id)
      if (!levels) {
        levels = new Map()
        byLevel.set(row.skill_id, levels)
      }
      levels.set(row.level, row.n)
    }
    return new SkillHolders(byLevel)
  }

  /** Employees holding `skillId` at `level` or above (any level when null), by `meetsLevel`. */
  atLevel(skillId: string, level: number | null): number {
    let holders = 0
    for (const [held, count] of this.byLevel.get(skillId) ?? []) if (meetsLevel(level, held)) holders += count
    return holders
  }

  /** Distinct skills held by at least one employee. */
  get skillCount(): number {
    return this.byLevel.size
  }
}
