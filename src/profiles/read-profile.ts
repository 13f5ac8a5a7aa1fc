import { errors } from '../errors/skillhouse-error.js'
import type { SkillProfileResponse } from '../schemas/profiles.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import type { OpenTenant } from '../tenants/tenant-service.js'

export type ProfileOwner = 'employee' | 'job' | 'course'

const TABLES: Record<ProfileOwner, { table: string; kind: string }> = {
  employee: { table: 'employees', kind: 'employee' },
  job: { table: 'jobs', kind: 'job' },
  course: { table: 'courses', kind: 'course' },
}

export type { SkillProfileResponse } from '../schemas/index.js'

/**
 * The Skill Profile of an employee, job or course as the API returns it (4.13 endpoints and
 * `skillhouse profile`). Skill names follow the vocabulary language; nothing else does. An
 * entity not yet derived has version 0 and no skills; an unknown one is a 404.
 */
export async function readSkillProfile(
  tenant: OpenTenant,
  owner: ProfileOwner,
  id: string,
  query: { external_vendor: ExternalVendor; vocab_language: VocabLanguage },
): Promise<SkillProfileResponse> {
  const database = tenant.database
  const exists = await database.one(`SELECT 1 AS found FROM ${TABLES[owner].table} WHERE external_id = $1`, [
    id,
  ])
  if (!exists) throw errors.notFound(TABLES[owner].kind, id)
  const profile = await database.one<{ version: number; computed_at: Date }>(
    'SELECT version, computed_at FROM skill_profiles WHERE entity_type = $1 AND entity_id = $2 AND external_vendor = $3',
    [owner, id, query.external_vendor],
  )
  const rows = await database.all<{
    skill_id: string
    validation_state: 'validated' | 'suggested'
    proficiency_level: number | null
    proficiency_float: number | null
    critical: boolean | null
    first_seen: string | null
    last_seen: string | null
    evidence: string
    skill_type: string | null
    domain_name: string | null
  }>(
    `SELECT p.skill_id, p.validation_state, p.proficiency_level, p.proficiency_float,
            coalesce(p.governed_critical, p.inferred_critical) AS critical,
            strftime(p.first_seen, '%Y-%m-%d') AS first_seen, strftime(p.last_seen, '%Y-%m-%d') AS last_seen,
            p.evidence::VARCHAR AS evidence, s.skill_type, d.domain_name
     FROM profile_skills p
     LEFT JOIN skills s ON s.external_id = p.skill_id AND s.external_vendor = p.external_vendor
     LEFT JOIN skill_clusters c ON c.external_id = s.skill_cluster_id AND c.external_vendor = s.external_vendor
     LEFT JOIN subdomains sd ON sd.external_id = c.subdomain_id AND sd.external_vendor = c.external_vendor
     LEFT JOIN domains d ON d.external_id = sd.domain_id AND d.external_vendor = sd.external_vendor
     WHERE p.entity_type = $1 AND p.entity_id = $2 AND p.external_vendor = $3
     ORDER BY p.validation_state = 'validated' DESC, p.score DESC, p.skill_id`,
    [owner, id, query.external_vendor],
  )
  const names = await SkillNames.load(
    database,
    query.external_vendor,
    rows.map((row) => row.skill_id),
  )
  return {
    external_id: id,
    external_vendor: query.external_vendor,
    version: profile?.version ?? 0,
    computed_at: profile ? profile.computed_at.toISOString() : null,
    skills: rows.map((row) => ({
      skill_id: row.skill_id,
      skill: names.name(row.skill_id, query.vocab_language) ?? row.skill_id,
      skill_types: row.skill_type ? [{ skill_type: row.skill_type }] : [],
      domain_name: row.domain_name,
      validation_state: row.validation_state,
      proficiency_level: row.proficiency_level,
      proficiency_float: row.proficiency_float,
      critical: row.critical,
      first_seen: row.first_seen,
      last_seen: row.last_seen,
      evidence: JSON.parse(row.evidence),
    })),
  }
}
