import type { SqlParams, TenantDatabase } from '../store/tenant-database.js'
import type { ProfileSkill } from './employee-profile.js'
import { listOf } from './varchar-list.js'

/**
 * Stored job and course profiles, loaded as needed: derivation needs those the changed
 * families, vacancies and employees' events refer to (all of them only for a large run).
 */
export class StoredProfiles {
  private readonly profiles = {
    job: new Map<string, ProfileSkill[]>(),
    course: new Map<string, ProfileSkill[]>(),
  }
  private readonly loaded = { job: new Set<string>(), course: new Set<string>() }

  constructor(
    private readonly database: TenantDatabase,
    private readonly vendor: string,
  ) {}

  /** The stored skills of a job or course (none when it has no profile). */
  skillsOf(entityType: 'job' | 'course', id: string): ProfileSkill[] {
    return this.profiles[entityType].get(id) ?? []
  }

  /** Loads the profiles of these jobs or courses that are not loaded yet. */
  async load(entityType: 'job' | 'course', ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.loaded[entityType].has(id))
    if (missing.length === 0) return
    for (const id of missing) this.loaded[entityType].add(id)
    await this.read(
      `SELECT entity_type, entity_id, ${SKILL_FIELDS} FROM profile_skills
       WHERE external_vendor = $1 AND entity_type = $2 AND list_contains($3, entity_id)`,
      [this.vendor, entityType, listOf(missing)],
    )
  }

  /** The skill ids and scores of every stored job and course profile: what events referring to them need. */
  async allScores(): Promise<Record<'job' | 'course', Map<string, { skill_id: string; score: number }[]>>> {
    const rows = await this.database.all<{
      entity_type: 'job' | 'course'
      entity_id: string
      skill_id: string
      score: number
    }>(
      `SELECT entity_type, entity_id, skill_id, score FROM profile_skills
       WHERE external_vendor = $1 AND entity_type IN ('job', 'course')
       ORDER BY entity_type, entity_id, score DESC, skill_id`,
      [this.vendor],
    )
    const all = {
      job: new Map<string, { skill_id: string; score: number }[]>(),
      course: new Map<string, { skill_id: string; score: number }[]>(),
    }
    for (const row of rows) {
      const skill = { skill_id: row.skill_id, score: row.score }
      const list = all[row.entity_type].get(row.entity_id)
      if (list) list.push(skill)
      else all[row.entity_type].set(row.entity_id, [skill])
    }
    return all
  }

  private async read(sql: string, params: SqlParams) {
    const rows = await this.database.all<
      Omit<ProfileSkill, 'evidence'> & { entity_type: 'job' | 'course'; entity_id: string; evidence: string }
    >(`${sql} ORDER BY entity_type, entity_id, score DESC, skill_id`, params)
    for (const row of rows) {
      const { entity_type: entityType, entity_id: entityId, ...skill } = row
      const profile: ProfileSkill = { ...skill, evidence: JSON.parse(row.evidence) }
      const list = this.profiles[entityType].get(entityId)
      if (list) list.push(profile)
      else this.profiles[entityType].set(entityId, [profile])
    }
  }
}

const SKILL_FIELDS = `skill_id, validation_state, score, proficiency_float, proficiency_level, governed_proficiency_level,
  governed_critical, inferred_critical, strftime(first_seen, '%Y-%m-%d') AS first_seen,
  strftime(last_seen, '%Y-%m-%d') AS last_seen, evidence::VARCHAR AS evidence`
