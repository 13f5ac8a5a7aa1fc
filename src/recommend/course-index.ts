import { forEachRow } from '../matching/profile-columns.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { StampedCache, stampedIndex } from '../store/stamped-cache.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { CourseTeaching } from './course-sequence.js'

/**
 * The tenant's course profiles of one vendor, in memory by skill: for each skill, the courses
 * that teach it and at what level. Built once per change of the courses or the profiles and kept
 * while they hold, so that a recommendation reads a few postings instead of the profile table.
 */
export interface CourseIndex {
  vendor: ExternalVendor
  stamp: string
  /** Course external ids by number, in external_id order (a smaller number is a smaller id). */
  courseIds: string[]
  titles: string[]
  bySkill: Map<string, CourseTeaching[]>
  seconds: number
}

const cache = new StampedCache<CourseIndex>()

/** The course index of a tenant and vendor (see `stampedIndex` for `dataVersion`). */
export function courseIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  dataVersion: string | undefined,
): Promise<CourseIndex> {
  return stampedIndex(cache, database, vendor, dataVersion, ['courses', 'profiles'], (stamp) =>
    buildCourseIndex(database, vendor, stamp),
  )
}

async function buildCourseIndex(
  database: TenantDatabase,
  vendor: ExternalVendor,
  stamp: string,
): Promise<CourseIndex> {
  const started = performance.now()
  const courseIds: string[] = []
  const titles: string[] = []
  await forEachRow(
    database,
    `SELECT external_id, coalesce(doc->>'title', external_id) FROM courses ORDER BY external_id`,
    [],
    2,
    (values) => {
      courseIds.push(values[0] as string)
      titles.push(values[1] as string)
    },
  )
  const numbers = new Map(courseIds.map((id, number) => [id, number]))
  const bySkill = new Map<string, CourseTeaching[]>()
  // A profile left behind by a deleted course is not a course to take: only courses of the table count.
  await forEachRow(
    database,
    `SELECT p.entity_id, p.skill_id, coalesce(p.governed_proficiency_level, p.proficiency_level)
       FROM profile_skills p JOIN courses c ON c.external_id = p.entity_id
      WHERE p.entity_type = 'course' AND p.external_vendor = $1
      ORDER BY p.entity_id, p.skill_id`,
    [vendor],
    3,
    (values) => {
      const course = numbers.get(values[0] as string)
      if (course === undefined) return
      const skill = values[1] as string
      let teaching = bySkill.get(skill)
      if (!teaching) {
        teaching = []
        bySkill.set(skill, teaching)
      }
      const level = values[2]
      teaching.push({ course, level: level === null ? null : Number(level) })
    },
  )
  return { vendor, stamp, courseIds, titles, bySkill, seconds: (performance.now() - started) / 1000 }
}
