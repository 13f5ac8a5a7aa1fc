import { appendEvents, eventSource, type OutboxEventInput } from '../events/outbox.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { PhaseTimer } from '../util/phase-timer.js'
import { listValue } from '../vendor/duckdb.js'
import type { DerivedProfile } from './employee-profile.js'
import { addProfileRow, emptyProfileRows, PROFILE_SKILL_COLUMNS, type ProfileRows } from './profile-rows.js'

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

/** Profiles whose versions one statement inserts: fewer than the 122,880 rows of a row group. */
const VERSION_SLICE = 100_000

/** Characters of profile text appended between two flushes of the appender. */
const FLUSH_CHARACTERS = 8_000_000

const SOURCE_PATHS: Record<ProfileEntityType, (id: string) => string> = {
  employee: (id) => `/employees/${id}/skill_profile`,
  job: (id) => `/job_architecture/jobs/${id}/skill_profile`,
  course: (id) => `/courses/${id}/skill_profile`,
  job_family: (id) => `/job_architecture/job_families/${id}/skill_profile`,
  vacancy: (id) => `/vacancies/${id}/skill_profile`,
}

/** A profile whose hash (or low-data mark) differs from the stored one. */
type ChangedProfile = {
  entity_type: ProfileEntityType
  entity_id: string
  first: boolean
  suggested_changed: boolean
  skill_count: number
}

/**
 * Profiles waiting to be stored: one row each goes to a temporary table as they are computed
 * (hashes, stored version, and the skills as one JSON text), and `commit` merges the changed ones
 * in one transaction, with new versions and their CloudEvents; only then are the changed
 * profiles' skills unfolded into rows, by SQL.
 */
export class ProfileWriter {
  private appender: Awaited<ReturnType<TenantDatabase['appender']>> | undefined
  private pending = 0
  private unflushed = 0

  private constructor(
    private readonly database: TenantDatabase,
    private readonly vendor: string,
    private readonly versionSlice: number,
  ) {}

  /** `versionSlice`: profiles whose versions one statement inserts (tests make it small). */
  static async open(
    database: TenantDatabase,
    vendor: string,
    versionSlice = VERSION_SLICE,
  ): Promise<ProfileWriter> {
    const writer = new ProfileWriter(database, vendor, versionSlice)
    await database.run('DROP TABLE IF EXISTS new_skill_profiles')
    await database.run(
      `CREATE TEMP TABLE new_skill_profiles (entity_type VARCHAR, entity_id VARCHAR, profile_hash VARCHAR, suggested_hash VARCHAR, skill_count INTEGER, low_data BOOLEAN, skills JSON, skill_rows VARCHAR)`,
    )
    writer.appender = await database.appender('new_skill_profiles')
    return writer
  }

  /** Adds one derived profile. */
  add(entityType: ProfileEntityType, profile: DerivedProfile): void {
    const rows = emptyProfileRows()
    addProfileRow(rows, profile)
    this.addRows(entityType, rows)
  }

  /** Adds profiles already encoded (by a derivation worker). */
  addRows(entityType: ProfileEntityType, rows: ProfileRows): void {
    const appender = this.appender as NonNullable<typeof this.appender>
    for (let index = 0; index < rows.entityIds.length; index++) {
      this.unflushed += (rows.versions[index] as string).length + (rows.skills[index] as string).length
      appender.appendVarchar(entityType)
      appender.appendVarchar(rows.entityIds[index] as string)
      appender.appendVarchar(rows.profileHashes[index] as string)
      appender.appendVarchar(rows.suggestedHashes[index] as string)
      appender.appendInteger(rows.skillCounts[index] as number)
      appender.appendBoolean(rows.lowData[index] as boolean)
      appender.appendVarchar(rows.versions[index] as string)
      appender.appendVarchar(rows.skills[index] as string)
      appender.endRow()
    }
    this.pending += rows.entityIds.length
    // An appender keeps its rows in memory of its own until it has a million or so: handed to
    // the table sooner, they are memory DuckDB manages, bounded by its limit (it spills to disk).
    if (this.unflushed > FLUSH_CHARACTERS) {
      appender.flushSync()
      this.unflushed = 0
    }
  }

  /** Stores the changed profiles with a new version each and appends their events. Returns counts. */
  async commit(
    baseUrl: string,
    tenantName: string,
  ): Promise<{ changed: Record<string, number>; events: number; phases: Record<string, number> }> {
    /** Seconds of each step, for the run's report. */
    const timer = new PhaseTimer()
    this.appender?.closeSync()
    const result = await this.database.transaction(() => this.storeChanged(timer, baseUrl, tenantName))
    await this.database.run('DROP TABLE IF EXISTS new_skill_profiles')
    timer.lap('commit')
    return { ...result, phases: timer.phases }
  }

  /** The steps of `commit` inside its transaction, each a phase of `timer`. */
  private async storeChanged(
    timer: PhaseTimer,
    baseUrl: string,
    tenantName: string,
  ): Promise<{ changed: Record<string, number>; events: number }> {
    const changedRows = await this.findChanged()
    const changed: Record<string, number> = {}
    for (const row of changedRows) changed[row.entity_type] = (changed[row.entity_type] ?? 0) + 1
    const events = await this.changeEvents(changedRows, baseUrl, tenantName)
    timer.lap('changes')
    await this.replaceSkills()
    timer.lap('skills')
    await this.database.run(
      `INSERT INTO skill_profiles
       SELECT c.entity_type, c.entity_id, $1, coalesce(p.version, 0) + 1, c.profile_hash, c.suggested_hash, c.skill_count, c.low_data, now()
       FROM changed_profiles c LEFT JOIN skill_profiles p ON p.entity_type = c.entity_type AND p.entity_id = c.entity_id AND p.external_vendor = $1
       ON CONFLICT (entity_type, entity_id, external_vendor) DO UPDATE SET version = excluded.version, profile_hash = excluded.profile_hash,
         suggested_hash = excluded.suggested_hash, skill_count = excluded.skill_count, low_data = excluded.low_data, computed_at = excluded.computed_at`,
      [this.vendor],
    )
    timer.lap('profiles')
    await this.insertVersions(changedRows.length)
    timer.lap('versions')
    await appendEvents(this.database, events)
    await this.database.run('DROP TABLE changed_profiles')
    timer.lap('events')
    return { changed, events: events.length }
  }

  /** The changed profiles (`changed_profiles`, by key: the large columns stay in new_skill_profiles), in key order. */
  private async findChanged(): Promise<ChangedProfile[]> {
    await this.database.run(
      `CREATE TEMP TABLE changed_profiles AS
       SELECT n.entity_type, n.entity_id, n.profile_hash, n.suggested_hash, n.skill_count, n.low_data,
              p.entity_id IS NULL AS first, (p.suggested_hash IS DISTINCT FROM n.suggested_hash) AS suggested_changed,
              row_number() OVER (ORDER BY n.entity_type, n.entity_id) AS position
       FROM new_skill_profiles n
       LEFT JOIN skill_profiles p ON p.entity_type = n.entity_type AND p.entity_id = n.entity_id AND p.external_vendor = $1
       WHERE p.profile_hash IS DISTINCT FROM n.profile_hash OR p.low_data IS DISTINCT FROM n.low_data`,
      [this.vendor],
    )
    return this.database.all<ChangedProfile>(
      `SELECT entity_type, entity_id, first, suggested_changed, skill_count FROM changed_profiles
       ORDER BY entity_type, entity_id`,
    )
  }

  /** The CloudEvents of the changed profiles (6.2). */
  private async changeEvents(
    changedRows: readonly ChangedProfile[],
    baseUrl: string,
    tenantName: string,
  ): Promise<OutboxEventInput[]> {
    const sameCourseSkills = await this.coursesWithSameSkills(changedRows)
    const events: OutboxEventInput[] = []
    for (const row of changedRows) {
      const [updated, suggestedUpdated] = EVENT_TYPES[row.entity_type]
      // A course's event is about skills added or removed: a first profile without skills is no change.
      if (row.entity_type === 'course' && row.first && row.skill_count === 0) continue
      if (row.entity_type === 'course' && sameCourseSkills.has(row.entity_id)) continue
      const data = { tenant_name: tenantName, external_id: row.entity_id }
      const source = eventSource(baseUrl, SOURCE_PATHS[row.entity_type](row.entity_id))
      if (updated) events.push({ type: updated, source, data })
      if (suggestedUpdated && row.suggested_changed && !(row.first && row.skill_count === 0)) {
        events.push({ type: suggestedUpdated, source, data })
      }
    }
    if (this.vendor !== 'vendor_default') for (const event of events) event.data.external_vendor = this.vendor
    return events
  }

  /**
   * A course's event is about skills added or removed (spec 6.2): the courses whose changed
   * profile holds the same skills as the stored one (only scores or levels moved) send none.
   */
  private async coursesWithSameSkills(changedRows: readonly ChangedProfile[]): Promise<Set<string>> {
    const changedCourses = changedRows
      .filter((row) => row.entity_type === 'course' && !row.first)
      .map((row) => row.entity_id)
    if (changedCourses.length === 0) return new Set()
    const rows = await this.database.all<{ entity_id: string }>(
      `SELECT n.entity_id FROM new_skill_profiles n
        WHERE n.entity_type = 'course' AND list_contains($2, n.entity_id)
          AND coalesce(list_sort(from_json(n.skill_rows, '{"s":["VARCHAR"]}').s), []) =
              coalesce((SELECT list_sort(list(p.skill_id)) FROM profile_skills p
                         WHERE p.entity_type = 'course' AND p.entity_id = n.entity_id
                           AND p.external_vendor = $1), [])`,
      [this.vendor, listValue(changedCourses)],
    )
    return new Set(rows.map((row) => row.entity_id))
  }

  /** The changed profiles' skill rows, replaced by the new ones unfolded from their JSON columns (zipped: one row per skill). */
  private async replaceSkills(): Promise<void> {
    await this.database.run(
      `DELETE FROM profile_skills p USING changed_profiles c
       WHERE p.external_vendor = $1 AND p.entity_type = c.entity_type AND p.entity_id = c.entity_id`,
      [this.vendor],
    )
    await this.database.run(
      `INSERT INTO profile_skills
       SELECT entity_type, entity_id, $1, unnest(r.s), unnest(r.v), unnest(r.c), unnest(r.f), unnest(r.l),
              unnest(r.g), unnest(r.k), unnest(r.i), unnest(r.a), unnest(r.b), unnest(r.e)
       FROM (SELECT n.entity_type, n.entity_id, from_json(n.skill_rows, '${PROFILE_SKILL_COLUMNS}') AS r
             FROM new_skill_profiles n SEMI JOIN changed_profiles c ON c.entity_type = n.entity_type AND c.entity_id = n.entity_id
             WHERE n.skill_count > 0)`,
      [this.vendor],
    )
  }

  /**
   * The new versions, gathered once, then inserted in slices of fewer profiles than a row group
   * holds: a larger insert is spread over the threads, and one that fills a row group of its own
   * writes it apart from the others' rest, leaving a part-filled row group before a full one. The
   * next checkpoint that finds such a table appended to merges its row groups, rewriting all of
   * the versions' JSON in the first derivation after a full one. A slice reads its own rows only
   * (by position).
   */
  private async insertVersions(changedCount: number): Promise<void> {
    await this.database.run(
      `CREATE OR REPLACE TEMP TABLE new_versions AS
       SELECT c.position, c.entity_type, c.entity_id, p.version, c.profile_hash, p.computed_at, n.skills
       FROM changed_profiles c
       JOIN skill_profiles p ON p.entity_type = c.entity_type AND p.entity_id = c.entity_id AND p.external_vendor = $1
       JOIN new_skill_profiles n ON n.entity_type = c.entity_type AND n.entity_id = c.entity_id`,
      [this.vendor],
    )
    const slice = this.versionSlice
    for (let from = 0; from < changedCount; from += slice) {
      await this.database.run(
        `INSERT INTO skill_profile_versions
         SELECT entity_type, entity_id, $1, version, profile_hash, computed_at, skills
         FROM new_versions WHERE position > $2 AND position <= $3`,
        [this.vendor, from, from + slice],
      )
    }
    await this.database.run('DROP TABLE new_versions')
  }

  get size(): number {
    return this.pending
  }
}
