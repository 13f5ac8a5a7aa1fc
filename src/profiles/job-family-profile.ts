import { errors } from '../errors/skillhouse-error.js'
import type {
  JobFamilyProfileHierarchy,
  JobFamilyProfileList,
  JobFamilySkillEntry,
} from '../schemas/profiles.js'
import { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { z } from '../vendor/zod.js'

export const JOB_FAMILY_INCLUDES = [
  'proficiency_level',
  'proficiency_float',
  'critical',
  'properties',
  'skill_validation_state',
] as const

/** Query of 4.12 (names: docs/api.md). */
export const JobFamilyProfileQuery = z.strictObject({
  domain_namespace: z.enum(['vendor_default', 'taxonomy', 'adaptive']).default('vendor_default'),
  vocab_language: z.string().default('en_uk'),
  external_vendor: ExternalVendor.optional(),
  format: z.enum(['list', 'hierarchy']).default('list'),
  include: z.array(z.enum(JOB_FAMILY_INCLUDES)).default([]),
})
export type JobFamilyProfileQuery = z.input<typeof JobFamilyProfileQuery>

export type {
  JobFamilyProfileHierarchy,
  JobFamilyProfileList,
  JobFamilySkillEntry,
} from '../schemas/index.js'

interface Row {
  skill_id: string
  validation_state: 'validated' | 'suggested'
  proficiency_level: number | null
  proficiency_float: number | null
  governed_proficiency_level: number | null
  governed_critical: boolean | null
  inferred_critical: boolean | null
  evidence: string
  skill_type: string | null
  custom_properties: string | null
  custom_domain_id: string | null
  default_domain_id: string | null
  [key: string]: unknown
}

/**
 * The Skill Profile of a Job Family (4.12): governed skills (validated) and suggested ones, in
 * the list form of 2.11 or grouped by the taxonomy (hierarchy). `domain_namespace` chooses the
 * domains skills are mapped to: the default vocabulary's, the tenant's custom taxonomy's, or the
 * custom one where a skill has it (adaptive). `skill_validation_state` cannot be combined with
 * `external_vendor` (422); `validation_state` is always present, as 2.11 lists it.
 */
export async function readJobFamilyProfile(
  tenant: OpenTenant,
  familyId: string,
  input: JobFamilyProfileQuery,
): Promise<JobFamilyProfileList | JobFamilyProfileHierarchy> {
  const query = checkQuery(input)
  const vendor = requireVendor(tenant, query.external_vendor ?? 'vendor_default')
  const language: VocabLanguage = await resolveVocabLanguage(tenant, vendor, query.vocab_language)
  const database = tenant.database
  if (!(await database.one('SELECT 1 AS found FROM job_families WHERE external_id = $1', [familyId]))) {
    throw errors.notFound('job family', familyId)
  }
  const rows = await database.all<Row>(
    `SELECT p.skill_id, p.validation_state, p.proficiency_level, p.proficiency_float, p.governed_proficiency_level,
            p.governed_critical, p.inferred_critical, p.evidence::VARCHAR AS evidence, s.skill_type,
            s.custom_properties::VARCHAR AS custom_properties,
            CASE WHEN s.custom THEN sd.domain_id END AS custom_domain_id,
            CASE WHEN NOT s.custom THEN sd.domain_id END AS default_domain_id,
            s.skill_cluster_id, c.skill_cluster_name, c.subdomain_id, sd.subdomain_name
     FROM profile_skills p
     LEFT JOIN skills s ON s.external_id = p.skill_id AND s.external_vendor = p.external_vendor
     LEFT JOIN skill_clusters c ON c.external_id = s.skill_cluster_id AND c.external_vendor = s.external_vendor
     LEFT JOIN subdomains sd ON sd.external_id = c.subdomain_id AND sd.external_vendor = c.external_vendor
     WHERE p.entity_type = 'job_family' AND p.entity_id = $1 AND p.external_vendor = $2
     ORDER BY p.validation_state = 'validated' DESC, p.score DESC, p.skill_id`,
    [familyId, vendor],
  )
  const domains = new Map(
    (
      await database.all<{ external_id: string; domain_name: string }>(
        'SELECT external_id, domain_name FROM domains WHERE external_vendor = $1',
        [vendor],
      )
    ).map((row) => [row.external_id, row.domain_name]),
  )
  const names = await SkillNames.load(
    database,
    vendor,
    rows.map((row) => row.skill_id as string),
  )
  const domainOf = (row: Row): Domain => {
    const id =
      query.domain_namespace === 'vendor_default'
        ? row.default_domain_id
        : query.domain_namespace === 'taxonomy'
          ? row.custom_domain_id
          : (row.custom_domain_id ?? row.default_domain_id)
    return { id, name: id ? (domains.get(id) ?? null) : null }
  }
  const entries = rows.map((row) => ({
    row,
    entry: skillEntry(row, query, names.name(row.skill_id, language) ?? row.skill_id, domainOf(row).name),
  }))
  if (query.format === 'list') return { external_id: familyId, skills: entries.map((item) => item.entry) }
  return hierarchyOf(familyId, entries, domainOf)
}

type CheckedQuery = z.output<typeof JobFamilyProfileQuery>

/** The query checked (422 naming the parameter); `skill_validation_state` with `external_vendor` is refused. */
function checkQuery(input: JobFamilyProfileQuery): CheckedQuery {
  const parsed = JobFamilyProfileQuery.safeParse(input)
  if (!parsed.success) {
    throw errors.unprocessable(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`),
    )
  }
  const query = parsed.data
  if (query.external_vendor !== undefined && query.include.includes('skill_validation_state')) {
    throw errors.unprocessable(
      'include=skill_validation_state does not work together with external_vendor; drop one of them',
    )
  }
  return query
}

interface Domain {
  id: string | null
  name: string | null
}

/** One skill of the family's profile as 2.11 lists it, with the fields `include` asks for. */
function skillEntry(
  row: Row,
  query: CheckedQuery,
  skill: string,
  domainName: string | null,
): JobFamilySkillEntry {
  const validated = row.validation_state === 'validated'
  const entry: JobFamilySkillEntry = {
    skill,
    skill_id: row.skill_id,
    skill_types: row.skill_type ? [{ skill_type: row.skill_type }] : [],
    domain_name: domainName,
    validation_state: row.validation_state,
    source_data: (JSON.parse(row.evidence) as { external_id: string; event_type: string }[]).map((item) => ({
      external_id: item.external_id,
      source_data_type:
        item.event_type === 'job_profile_data' ? 'job_profile_data' : 'job_family_profile_data',
    })),
  }
  if (query.include.includes('proficiency_level')) {
    entry.governed_proficiency_level = validated ? row.governed_proficiency_level : null
    entry.inferred_proficiency_level = validated ? null : row.proficiency_level
  }
  if (query.include.includes('proficiency_float')) {
    entry.governed_proficiency_float = validated ? row.proficiency_float : null
    entry.inferred_proficiency_float = validated ? null : row.proficiency_float
  }
  if (query.include.includes('critical')) {
    entry.governed_critical = validated ? row.governed_critical : null
    entry.inferred_critical = validated ? null : row.inferred_critical
  }
  if (query.include.includes('properties'))
    entry.properties = row.custom_properties ? JSON.parse(row.custom_properties) : {}
  return entry
}

/** The entries grouped by domain, subdomain and skill cluster, each group in the order its first skill comes. */
function hierarchyOf(
  familyId: string,
  entries: readonly { row: Row; entry: JobFamilySkillEntry }[],
  domainOf: (row: Row) => Domain,
): JobFamilyProfileHierarchy {
  const hierarchy: JobFamilyProfileHierarchy = { external_id: familyId, domains: [] }
  const find = <T>(list: T[], match: (item: T) => boolean, create: () => T) => {
    const known = list.find(match)
    if (known) return known
    const made = create()
    list.push(made)
    return made
  }
  for (const { row, entry } of entries) {
    const domain = domainOf(row)
    const domainNode = find(
      hierarchy.domains,
      (item) => item.domain_id === domain.id,
      () => ({ domain_id: domain.id, domain_name: domain.name, subdomains: [] }),
    )
    const subdomainId = (row.subdomain_id as string | null) ?? null
    const subdomainNode = find(
      domainNode.subdomains,
      (item) => item.subdomain_id === subdomainId,
      () => ({
        subdomain_id: subdomainId,
        subdomain_name: (row.subdomain_name as string | null) ?? null,
        skill_clusters: [],
      }),
    )
    const clusterId = (row.skill_cluster_id as string | null) ?? null
    find(
      subdomainNode.skill_clusters,
      (item) => item.skill_cluster_id === clusterId,
      () => ({
        skill_cluster_id: clusterId,
        skill_cluster_name: (row.skill_cluster_name as string | null) ?? null,
        skills: [],
      }),
    ).skills.push(entry)
  }
  return hierarchy
}
