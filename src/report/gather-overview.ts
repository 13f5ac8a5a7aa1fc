import type { OrgExport } from '../analytics/org-export.js'
import { readState } from '../profiles/derive-state.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import type { Overview } from './report-model.js'
import type { SkillHolders } from './skill-holders.js'

/**
 * The overview: counts of the tenant's records, the skills in use, low data availability as the
 * organisational export (4.6, include=low_data_availability_flag: `org`) counts it over its root
 * units, the skills employees hold by level, and how fresh the data and the profiles are.
 */
export async function gatherOverview(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  holders: SkillHolders,
  org: OrgExport,
): Promise<Overview> {
  const database = tenant.database
  const counts = await database.one<{
    employees: number
    jobs: number
    vacancies: number
    open_vacancies: number
    with_profile: number
    latest_event: string | null
    last_ingest: string | null
  }>(
    `SELECT (SELECT count(*) FROM employees)::INTEGER AS employees,
            (SELECT count(*) FROM jobs)::INTEGER AS jobs,
            (SELECT count(*) FROM vacancies)::INTEGER AS vacancies,
            (SELECT count(*) FROM vacancies WHERE status = 'active')::INTEGER AS open_vacancies,
            (SELECT count(*) FROM skill_profiles p JOIN employees e ON e.external_id = p.entity_id
              WHERE p.entity_type = 'employee' AND p.external_vendor = $1)::INTEGER AS with_profile,
            (SELECT strftime(max(timestamp), '%Y-%m-%d') FROM skill_events) AS latest_event,
            (SELECT strftime(max(finished_at), '%Y-%m-%dT%H:%M:%SZ') FROM ingested_files) AS last_ingest`,
    [vendor],
  )
  const derivedAt = await database.one<{ at: string | null }>(
    `SELECT strftime(max(computed_at), '%Y-%m-%dT%H:%M:%SZ') AS at FROM skill_profiles WHERE external_vendor = $1`,
    [vendor],
  )
  const byLevel = await database.all<{ level: number; held: number }>(
    `SELECT coalesce(p.governed_proficiency_level, p.proficiency_level)::INTEGER AS level, count(*)::INTEGER AS held
       FROM profile_skills p JOIN employees e ON e.external_id = p.entity_id
      WHERE p.entity_type = 'employee' AND p.external_vendor = $1
        AND coalesce(p.governed_proficiency_level, p.proficiency_level) IS NOT NULL
      GROUP BY ALL ORDER BY level`,
    [vendor],
  )
  const state = await readState(database)
  let inUnits = 0
  let lowData = 0
  for (const root of org.organisational_structure) {
    inUnits += root.total_nr_of_employees
    lowData += root.low_data_availability ?? 0
  }
  return {
    employees: counts?.employees ?? 0,
    jobs: counts?.jobs ?? 0,
    vacancies: counts?.vacancies ?? 0,
    open_vacancies: counts?.open_vacancies ?? 0,
    skills_in_use: holders.skillCount,
    employees_in_units: inUnits,
    low_data_in_units: lowData,
    employees_with_profile: counts?.with_profile ?? 0,
    skills_by_level: byLevel,
    latest_event: counts?.latest_event ?? null,
    last_ingest: counts?.last_ingest ?? null,
    derived_as_of: state.last_as_of,
    derived_at: derivedAt?.at ?? null,
  }
}
