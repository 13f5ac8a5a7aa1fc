import { createHash } from 'node:crypto'
import { appendEvents, eventSource, type OutboxEventInput } from '../events/outbox.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { DerivedProfile, ProfileSkill } from './employee-profile.js'

export type ProfileEntityType = 'employee' | 'job' | 'job_family' | 'course' | 'vacancy'

/** Event types per entity (6.2): [profile updated, suggested set updated]; courses have one, families and vacancies none. */
const EVENT_TYPES: Record<ProfileEntityType, [string | null, string | null]> = {
  employee: [
    'ai.vendor.employee.skill_profile.updated.v1',
    'ai.vendor.employee.skill_profile.suggested_updated.v1',
  ],
  job: [
    'ai.vendor.job_architecture.job.skill_profile.updated.v1',
    'ai.vendor.job_architecture.job.skill_profile.suggested_updated.v1',
  ],
  course: ['ai.vendor.course.skill_profile.updated.v1', null],
  job_family: [null, null],
  vacancy: [null, null],
}

const SOURCE_PATHS: Record<ProfileEntityType, (id: string) => string> = {
  employee: (id) => `/employees/${id}/skill_profile`,
  job: (id) => `/job_architecture/jobs/${id}/skill_profile`,
  course: (id) => `/courses/${id}/skill_profile`,
  job_family: (id) => `/job_architecture/job_families/${id}/skill_profile`,
  vacancy: (id) => `/vacancies/${id}/skill_profile`,
}

const hash = (value: unknown) => createHash('sha1').update(JSON.stringify(value)).digest('base64url')

/**
 * Profiles waiting to be stored: they go to temporary tables as they are computed (a large
 * tenant has millions of profile skills), and `commit` merges the changed ones in one
 * transaction, with new versions and their CloudEvents.
 */
export class ProfileWriter {
  private skillsAppender: Awaited<ReturnType<TenantDatabase['appender']>> | undefined
  private profilesAppender: Awaited<ReturnType<TenantDatabase['appender']>> | undefined
  private pending = 0

  private constructor(
    private readonly database: TenantDatabase,
    private readonly vendor: string,
  ) {}

  static async open(database: TenantDatabase, vendor: string): Promise<ProfileWriter> {
    const writer = new ProfileWriter(database, vendor)
    await database.run('DROP TABLE IF EXISTS new_profile_skills')
    await database.run('DROP TABLE IF EXISTS new_skill_profiles')
    await database.run(
      `CREATE TEMP TABLE new_profile_skills AS SELECT * EXCLUDE (external_vendor) FROM profile_skills LIMIT 0`,
    )
    await database.run(
      `CREATE TEMP TABLE new_skill_profiles (entity_type VARCHAR, entity_id VARCHAR, profile_hash VARCHAR, suggested_hash VARCHAR, skill_count INTEGER, low_data BOOLEAN, skills JSON)`,
    )
    writer.skillsAppender = await database.appender('new_profile_skills')
    writer.profilesAppender = await database.appender('new_skill_profiles')
    return writer
  }

  add(entityType: ProfileEntityType, profile: DerivedProfile): void {
    const skills = this.skillsAppender as NonNullable<typeof this.skillsAppender>
    const profiles = this.profilesAppender as NonNullable<typeof this.profilesAppender>
    for (const skill of profile.skills) {
      skills.appendVarchar(entityType)
      skills.appendVarchar(profile.entity_id)
      skills.appendVarchar(skill.skill_id)
      skills.appendVarchar(skill.validation_state)
      skills.appendDouble(skill.score)
      nullableDouble(skills, skill.proficiency_float)
      nullableInteger(skills, skill.proficiency_level)
      nullableInteger(skills, skill.governed_proficiency_level)
      nullableBoolean(skills, skill.governed_critical)
      nullableBoolean(skills, skill.inferred_critical)
      nullableVarchar(skills, skill.first_seen)
      nullableVarchar(skills, skill.last_seen)
      skills.appendVarchar(JSON.stringify(skill.evidence))
      skills.endRow()
    }
    const suggested = profile.skills
      .filter((skill) => skill.validation_state === 'suggested')
      .map((skill) => skill.skill_id)
      .sort()
    profiles.appendVarchar(entityType)
    profiles.appendVarchar(profile.entity_id)
    profiles.appendVarchar(hash(profile.skills.map(stable)))
    profiles.appendVarchar(hash(suggested))
    profiles.appendInteger(profile.skills.length)
    profiles.appendBoolean(profile.low_data)
    profiles.appendVarchar(JSON.stringify(profile.skills.map(stable)))
    profiles.endRow()
    this.pending++
  }

  /** Stores the changed profiles with a new version each and appends their events. Returns counts. */
  async commit(
    baseUrl: string,
    tenantName: string,
  ): Promise<{ changed: Record<string, number>; events: number }> {
    this.skillsAppender?.closeSync()
    this.profilesAppender?.closeSync()
    const database = this.database
    const vendor = this.vendor
    const changedRows = await database.all<{
      entity_type: ProfileEntityType
      entity_id: string
      first: boolean
      suggested_changed: boolean
      skill_count: number
      old_count: number | null
    }>(
      `SELECT n.entity_type, n.entity_id, p.entity_id IS NULL AS first,
              (p.suggested_hash IS DISTINCT FROM n.suggested_hash) AS suggested_changed,
              n.skill_count, p.skill_count AS old_count
       FROM new_skill_profiles n
       LEFT JOIN skill_profiles p ON p.entity_type = n.entity_type AND p.entity_id = n.entity_id AND p.external_vendor = $1
       WHERE p.profile_hash IS DISTINCT FROM n.profile_hash OR p.low_data IS DISTINCT FROM n.low_data
       ORDER BY n.entity_type, n.entity_id`,
      [vendor],
    )
    const changed: Record<string, number> = {}
    for (const row of changedRows) changed[row.entity_type] = (changed[row.entity_type] ?? 0) + 1
    const events: OutboxEventInput[] = []
    for (const row of changedRows) {
      const [updated, suggestedUpdated] = EVENT_TYPES[row.entity_type]
      // A course's event is about skills added or removed: a first profile without skills is no change.
      if (row.entity_type === 'course' && row.first && row.skill_count === 0) continue
      const data = { tenant_name: tenantName, external_id: row.entity_id }
      const source = eventSource(baseUrl, SOURCE_PATHS[row.entity_type](row.entity_id))
      if (updated) events.push({ type: updated, source, data })
      if (suggestedUpdated && row.suggested_changed && !(row.first && row.skill_count === 0)) {
        events.push({ type: suggestedUpdated, source, data })
      }
    }
    if (vendor !== 'vendor_default') for (const event of events) event.data.external_vendor = vendor
    await database.transaction(async () => {
      await database.run(
        'CREATE TEMP TABLE changed_profiles AS SELECT n.* FROM new_skill_profiles n LEFT JOIN skill_profiles p ON p.entity_type = n.entity_type AND p.entity_id = n.entity_id AND p.external_vendor = $1 WHERE p.profile_hash IS DISTINCT FROM n.profile_hash OR p.low_data IS DISTINCT FROM n.low_data',
        [vendor],
      )
      await database.run(
        `DELETE FROM profile_skills p USING changed_profiles c
         WHERE p.external_vendor = $1 AND p.entity_type = c.entity_type AND p.entity_id = c.entity_id`,
        [vendor],
      )
      await database.run(
        `INSERT INTO profile_skills
         SELECT s.entity_type, s.entity_id, $1, s.skill_id, s.validation_state, s.score, s.proficiency_float, s.proficiency_level,
                s.governed_proficiency_level, s.governed_critical, s.inferred_critical, s.first_seen, s.last_seen, s.evidence
         FROM new_profile_skills s SEMI JOIN changed_profiles c ON c.entity_type = s.entity_type AND c.entity_id = s.entity_id`,
        [vendor],
      )
      await database.run(
        `INSERT INTO skill_profiles
         SELECT c.entity_type, c.entity_id, $1, coalesce(p.version, 0) + 1, c.profile_hash, c.suggested_hash, c.skill_count, c.low_data, now()
         FROM changed_profiles c LEFT JOIN skill_profiles p ON p.entity_type = c.entity_type AND p.entity_id = c.entity_id AND p.external_vendor = $1
         ON CONFLICT (entity_type, entity_id, external_vendor) DO UPDATE SET version = excluded.version, profile_hash = excluded.profile_hash,
           suggested_hash = excluded.suggested_hash, skill_count = excluded.skill_count, low_data = excluded.low_data, computed_at = excluded.computed_at`,
        [vendor],
      )
      await database.run(
        `INSERT INTO skill_profile_versions
         SELECT c.entity_type, c.entity_id, $1, p.version, c.profile_hash, p.computed_at, c.skills
         FROM changed_profiles c JOIN skill_profiles p ON p.entity_type = c.entity_type AND p.entity_id = c.entity_id AND p.external_vendor = $1`,
        [vendor],
      )
      await appendEvents(database, events)
      await database.run('DROP TABLE changed_profiles')
    })
    await database.run('DROP TABLE IF EXISTS new_profile_skills')
    await database.run('DROP TABLE IF EXISTS new_skill_profiles')
    return { changed, events: events.length }
  }

  get size(): number {
    return this.pending
  }
}

/** The fields that make a profile what it is (for its hash and its stored versions). */
const stable = (skill: ProfileSkill) => [
  skill.skill_id,
  skill.validation_state,
  skill.score,
  skill.proficiency_float,
  skill.proficiency_level,
  skill.governed_proficiency_level,
  skill.governed_critical,
  skill.inferred_critical,
  skill.first_seen,
  skill.last_seen,
  skill.evidence.map((item) => item.external_id),
]

type Appender = Awaited<ReturnType<TenantDatabase['appender']>>
const nullableDouble = (appender: Appender, value: number | null) =>
  value === null ? appender.appendNull() : appender.appendDouble(value)
const nullableInteger = (appender: Appender, value: number | null) =>
  value === null ? appender.appendNull() : appender.appendInteger(value)
const nullableBoolean = (appender: Appender, value: boolean | null) =>
  value === null ? appender.appendNull() : appender.appendBoolean(value)
const nullableVarchar = (appender: Appender, value: string | null) =>
  value === null ? appender.appendNull() : appender.appendVarchar(value)
