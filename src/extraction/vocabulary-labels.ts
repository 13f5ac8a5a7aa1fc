import type { VocabularyDomainFile } from '../schemas/vocabulary-file.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { LabelInput, SkillFacts } from './vocabulary-input.js'

/** The labels of vocabulary files (the embedded default), as the extractor compiles them. */
export function labelsOfVocabulary(domains: readonly VocabularyDomainFile[]): LabelInput[] {
  const labels: LabelInput[] = []
  for (const domain of domains) {
    for (const subdomain of domain.subdomains) {
      for (const cluster of subdomain.skill_clusters) {
        for (const skill of cluster.skills) {
          for (const [language, label] of Object.entries(skill.names))
            labels.push({ skill_id: skill.external_id, language, kind: 'name', label })
          for (const [language, aliases] of Object.entries(skill.aliases ?? {})) {
            for (const label of aliases)
              labels.push({ skill_id: skill.external_id, language, kind: 'alias', label })
          }
        }
      }
    }
  }
  return labels
}

/** The labels of a tenant's vocabulary for one vendor (its own skills and custom skills). */
export async function labelsOfTenant(database: TenantDatabase, vendor: string): Promise<LabelInput[]> {
  return database.all<LabelInput & Record<string, unknown>>(
    `SELECT l.skill_id, l.language, l.kind, l.label FROM skill_labels l
     JOIN skills s ON s.external_id = l.skill_id AND s.external_vendor = l.external_vendor
     WHERE l.external_vendor = $1 ORDER BY l.skill_id, l.kind DESC, l.language, l.label`,
    [vendor],
  )
}

/** The descriptions and clusters of vocabulary files' skills, for the ranker. */
export function factsOfVocabulary(domains: readonly VocabularyDomainFile[]): SkillFacts[] {
  const facts: SkillFacts[] = []
  for (const domain of domains)
    for (const subdomain of domain.subdomains)
      for (const cluster of subdomain.skill_clusters)
        for (const skill of cluster.skills)
          facts.push({
            skill_id: skill.external_id,
            description: skill.description,
            cluster: cluster.external_id,
          })
  return facts
}

/** The descriptions and clusters of a tenant's skills for one vendor, for the ranker. */
export async function factsOfTenant(database: TenantDatabase, vendor: string): Promise<SkillFacts[]> {
  return database.all<SkillFacts & Record<string, unknown>>(
    `SELECT external_id AS skill_id, description, skill_cluster_id AS cluster FROM skills
     WHERE external_vendor = $1 ORDER BY external_id`,
    [vendor],
  )
}
