import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createAnalyticsTenant } from '../analytics/analytics-tenant.js'

/**
 * The analytics tenant (test/analytics/analytics-tenant.ts) with courses whose profiles are
 * inserted as the derivation would write them. e-deep-1's gap to vac-1 (worked out by hand):
 * skl-java below level (4 asked, 2 held, critical: weight 4), skl-customer-enquiry-handling
 * (critical, no level: 2), skl-project-management (level 3: 3), skl-data-analysis (2), skl-git (2).
 */
export const COURSES = [
  { external_id: 'crs-java-advanced', title: 'Advanced Java' },
  { external_id: 'crs-java-basics', title: 'Java Basics' },
  { external_id: 'crs-projects', title: 'Running Projects' },
  { external_id: 'crs-data-git', title: 'Data Analysis with Git' },
  { external_id: 'crs-forklift', title: 'Forklift Safety' },
]

/** Course, skill, level: crs-gone's profile outlived its course record and must never be recommended. */
export const COURSE_PROFILES: [string, string, number | null][] = [
  ['crs-java-advanced', 'skl-java', 4],
  ['crs-java-advanced', 'skl-git', 2],
  ['crs-java-basics', 'skl-java', 3],
  ['crs-projects', 'skl-project-management', 2],
  ['crs-projects', 'skl-customer-enquiry-handling', null],
  ['crs-data-git', 'skl-data-analysis', 2],
  ['crs-data-git', 'skl-git', 3],
  ['crs-forklift', 'skl-forklift-operation', 3],
  ['crs-gone', 'skl-data-analysis', 5],
]

/** Inserts course profile rows as the derivation writes them. */
export async function insertCourseProfiles(
  tenant: OpenTenant,
  rows: readonly [string, string, number | null][],
): Promise<void> {
  for (const [course, skill, level] of rows) {
    await tenant.database.run(
      `INSERT INTO profile_skills VALUES ('course', $1, 'vendor_default', $2, 'suggested', 0.8, NULL, $3, NULL, NULL, NULL, NULL, NULL, '[]')`,
      [course, skill, level],
    )
  }
  for (const course of new Set(rows.map(([course]) => course))) {
    await tenant.database.run(
      `INSERT INTO skill_profiles VALUES ('course', $1, 'vendor_default', 1, 'h', 'h', 0, false, now())`,
      [course],
    )
  }
}

/** The analytics tenant with the courses above, open. */
export async function createRecommendTenant(dataDir: string, name = 'acme'): Promise<OpenTenant> {
  const tenant = await createAnalyticsTenant(dataDir, name)
  const files = join(dataDir, '..', `${name}-course-files`)
  mkdirSync(files, { recursive: true })
  writeFileSync(
    join(files, 'courses.ndjson'),
    `${COURSES.map((course) => JSON.stringify(course)).join('\n')}\n`,
  )
  await ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths: [files],
    rejectsDir: join(dataDir, '..', `${name}-course-rejects`),
  })
  await insertCourseProfiles(tenant, COURSE_PROFILES)
  return tenant
}

/** Employee skill rows for related skills: who holds what (vendor_default), each with a profile header. */
export async function insertEmployeeSkills(
  tenant: OpenTenant,
  held: Record<string, string[]>,
): Promise<void> {
  for (const [skill, employees] of Object.entries(held)) {
    for (const employee of employees) {
      await tenant.database.run(
        `INSERT INTO profile_skills VALUES ('employee', $1, 'vendor_default', $2, 'suggested', 0.7, NULL, 2, NULL, NULL, NULL, NULL, NULL, '[]')`,
        [employee, skill],
      )
    }
  }
  const employees = new Set(Object.values(held).flat())
  for (const employee of employees) {
    await tenant.database.run(
      `INSERT OR REPLACE INTO skill_profiles VALUES ('employee', $1, 'vendor_default', 1, 'h', 'h', 0, false, now())`,
      [employee],
    )
  }
}
