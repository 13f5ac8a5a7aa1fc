import { errors } from '../errors/skillhouse-error.js'
import type { SkillGapEntry } from '../schemas/analytics.js'
import { DEFAULT_VENDOR, type ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor, type TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import { gapCandidatesOf, gapIndex } from './gap-index.js'
import { type GapCandidate, type GapReason, gapSkills } from './gap-rule.js'

/** Query of `GET /employees/{e}/vacancies/{v}/gap` (4.5); names as in docs/api.md. */
export interface SkillGapOptions {
  vocab_language?: string | null | undefined
  external_vendor?: string | null | undefined
}

/**
 * The Skill gap between an Employee and a Vacancy (4.5): the skills of the vacancy's profile
 * (its job's skills plus those found in its title and description) that the employee lacks, or
 * holds below the vacancy's required level when both levels are known (see `gapSkills`). Unlike
 * matching, the level rule applies whether or not the tenant enables proficiency matching: a gap
 * is what the employee would have to learn, and a level-1 Java developer has something to learn
 * for a level-4 Java vacancy.
 *
 * Names are in the requested vocabulary language (any value of 2.1, `en`, or a BCP 47 tag; 422
 * otherwise); the language changes only names, never which skills are listed. The vendor must be
 * activated (403) and valid (422). 404 names the unknown employee, the unknown vacancy, or both.
 * A vacancy with an empty profile has an empty gap; an employee with no profile lacks every skill.
 *
 * The inputs come from the gap index (`gap-index.ts`) when the tenant carries a data version (the
 * server's reads), else from the database; both give the same answer, byte for byte.
 */
export async function skillGap(
  tenant: TaxonomyTenant,
  employeeId: string,
  vacancyId: string,
  options: SkillGapOptions = {},
): Promise<SkillGapEntry[]> {
  return (await skillGapDetail(tenant, employeeId, vacancyId, options)).map((skill) => ({
    skill_name: skill.skill_name,
    skill_id: skill.skill_id,
  }))
}

/** A skill of the gap with what makes it one: the levels asked and held, and whether it is critical. */
export interface SkillGapDetail {
  skill_name: string
  skill_id: string
  reason: GapReason
  critical: boolean
  required_level: number | null
  held_level: number | null
}

/**
 * `skillGap` with each skill's reason, levels and criticality, in the same order: what a person
 * reads on a terminal (the API's answer holds names and ids only, 4.5).
 */
export async function skillGapDetail(
  tenant: TaxonomyTenant,
  employeeId: string,
  vacancyId: string,
  options: SkillGapOptions = {},
): Promise<SkillGapDetail[]> {
  const vendor = requireVendor(tenant, options.external_vendor ?? DEFAULT_VENDOR)
  const language = await resolveVocabLanguage(tenant, vendor, options.vocab_language)
  // A caller that keeps the tenant open and knows its data version (the server) reads the gap
  // index, built once per change of the data; a one-off caller (the CLI) asks the database, which
  // costs milliseconds instead of the index's build.
  const { candidates, names } =
    tenant.dataVersion === undefined
      ? await candidatesFromDatabase(tenant, employeeId, vacancyId, vendor)
      : await candidatesFromIndex(tenant, employeeId, vacancyId, vendor, tenant.dataVersion)
  const gap = gapSkills(candidates)
  if (gap.length === 0) return []
  const skillNames = await names()
  return gap.map((skill) => ({
    skill_name: nameOf(skillNames, skill.skill_id, language),
    skill_id: skill.skill_id,
    reason: skill.reason,
    critical: skill.critical,
    required_level: skill.required_level,
    held_level: skill.held ? skill.held_level : null,
  }))
}

/** What the gap is computed from: the vacancy's skills with what the employee holds, and the names. */
interface GapInputs {
  candidates: GapCandidate[]
  /** Display names of (at least) the vacancy's skills; asked only when the gap is not empty. */
  names: () => Promise<SkillNames>
}

async function candidatesFromIndex(
  tenant: TaxonomyTenant,
  employeeId: string,
  vacancyId: string,
  vendor: ExternalVendor,
  version: string,
): Promise<GapInputs> {
  const index = await gapIndex(tenant.database, vendor, version)
  const employee = index.employees.get(employeeId)
  const vacancy = index.vacancies.get(vacancyId)
  requireEmployeeAndVacancy(employeeId, employee !== undefined, vacancyId, vacancy !== undefined)
  return {
    candidates: gapCandidatesOf(index, employee as number, vacancy as number),
    names: async () => index.names,
  }
}

/** The SQL formulation of the gap's inputs: a self-join of the profile table. */
async function candidatesFromDatabase(
  tenant: TaxonomyTenant,
  employeeId: string,
  vacancyId: string,
  vendor: ExternalVendor,
): Promise<GapInputs> {
  const known = await tenant.database.one<{ employee: boolean; vacancy: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM employees WHERE external_id = $1) AS employee,
            EXISTS (SELECT 1 FROM vacancies WHERE external_id = $2) AS vacancy`,
    [employeeId, vacancyId],
  )
  requireEmployeeAndVacancy(employeeId, known?.employee === true, vacancyId, known?.vacancy === true)
  const candidates = await profileGapCandidates(tenant.database, employeeId, 'vacancy', vacancyId, vendor)
  return { candidates, names: () => vacancySkillNames(tenant, vacancyId, vendor) }
}

/**
 * The inputs of the gap rule from the database: each skill of a vacancy's or a job's profile with
 * what the employee holds of it (the 4.5 gap of the CLI, and the gap a course recommendation closes).
 */
export function profileGapCandidates(
  database: TenantDatabase,
  employeeId: string,
  targetType: 'vacancy' | 'job',
  targetId: string,
  vendor: ExternalVendor,
): Promise<GapCandidate[]> {
  return database.all<GapCandidate & Record<string, unknown>>(
    `SELECT v.skill_id,
            coalesce(v.governed_critical, v.inferred_critical, false) AS critical,
            v.score,
            coalesce(v.governed_proficiency_level, v.proficiency_level) AS required_level,
            e.skill_id IS NOT NULL AS held,
            coalesce(e.governed_proficiency_level, e.proficiency_level) AS held_level
       FROM profile_skills v
       LEFT JOIN profile_skills e
         ON e.entity_type = 'employee' AND e.entity_id = $1
        AND e.external_vendor = v.external_vendor AND e.skill_id = v.skill_id
      WHERE v.entity_type = $2 AND v.entity_id = $3 AND v.external_vendor = $4`,
    [employeeId, targetType, targetId, vendor],
  )
}

/** 404 for an unknown employee or vacancy; both unknown: both named at once, so that a client fixes both ids in one round trip. */
function requireEmployeeAndVacancy(
  employeeId: string,
  employeeKnown: boolean,
  vacancyId: string,
  vacancyKnown: boolean,
) {
  if (!employeeKnown && !vacancyKnown) throw errors.unknownEmployeeAndVacancy(employeeId, vacancyId)
  if (!employeeKnown) throw errors.notFound('employee', employeeId)
  if (!vacancyKnown) throw errors.notFound('vacancy', vacancyId)
}

/** Display names of the vacancy profile's skills only: a few rows, not the whole vocabulary. */
async function vacancySkillNames(tenant: TaxonomyTenant, vacancyId: string, vendor: string) {
  const labels = await tenant.database.all<{ skill_id: string; language: string; label: string }>(
    `SELECT l.skill_id, l.language, l.label
       FROM skill_labels l
       JOIN profile_skills p ON p.skill_id = l.skill_id AND p.external_vendor = l.external_vendor
      WHERE p.entity_type = 'vacancy' AND p.entity_id = $1 AND p.external_vendor = $2 AND l.kind = 'name'`,
    [vacancyId, vendor],
  )
  return SkillNames.fromLabels(labels)
}

/** A skill that lost its names (deleted from the vocabulary after derivation) shows its id. */
const nameOf = (names: SkillNames, skillId: string, language: VocabLanguage) =>
  names.name(skillId, language) ?? skillId
