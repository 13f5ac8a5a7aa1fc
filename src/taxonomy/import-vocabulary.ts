import { DuckDBTimestampValue, listValue } from '@duckdb/node-api'
import { createHash } from 'node:crypto'
import type { ExternalVendor, VocabularyDomainFile } from '../schemas/index.js'
import type { TenantDatabase } from '../store/tenant-database.js'

export interface VocabularyDiff {
  external_vendor: ExternalVendor
  skills: number
  created: string[]
  updated: string[]
  deleted: string[]
}

interface SkillRow {
  external_id: string
  skill_cluster_id: string
  skill_type: string
  description: string | null
  hash: string
  labels: { language: string; kind: 'name' | 'alias'; label: string }[]
}

/**
 * Replaces a vendor's vocabulary in a tenant database with `domains`, in one transaction, and
 * returns which skills were created, updated and deleted (by content). A tenant's custom
 * taxonomy and custom skills are left alone. Re-importing the same vocabulary changes nothing.
 */
export async function importVocabulary(
  database: TenantDatabase,
  vendor: ExternalVendor,
  domains: readonly VocabularyDomainFile[],
): Promise<VocabularyDiff> {
  const skills = new Map<string, SkillRow>()
  for (const domain of domains) {
    for (const subdomain of domain.subdomains) {
      for (const cluster of subdomain.skill_clusters) {
        for (const skill of cluster.skills) {
          const labels: SkillRow['labels'] = []
          for (const [language, name] of Object.entries(skill.names)) labels.push({ language, kind: 'name', label: name })
          for (const [language, aliases] of Object.entries(skill.aliases ?? {})) {
            for (const alias of aliases) labels.push({ language, kind: 'alias', label: alias })
          }
          const hash = createHash('sha1')
            .update(JSON.stringify([cluster.external_id, subdomain.external_id, domain.external_id, skill]))
            .digest('base64url')
          skills.set(skill.external_id, {
            external_id: skill.external_id,
            skill_cluster_id: cluster.external_id,
            skill_type: skill.skill_type,
            description: skill.description ?? null,
            hash,
            labels,
          })
        }
      }
    }
  }
  const existing = new Map(
    (
      await database.all<{ external_id: string; content_hash: string }>(
        'SELECT external_id, content_hash FROM skills WHERE external_vendor = $1 AND NOT custom',
        [vendor],
      )
    ).map((row) => [row.external_id, row.content_hash]),
  )
  const created = [...skills.keys()].filter((id) => !existing.has(id))
  const updated = [...skills.values()].filter((skill) => existing.has(skill.external_id) && existing.get(skill.external_id) !== skill.hash).map((skill) => skill.external_id)
  const deleted = [...existing.keys()].filter((id) => !skills.has(id))
  const changed = new Set([...created, ...updated])
  if (changed.size === 0 && deleted.length === 0) {
    return { external_vendor: vendor, skills: skills.size, created, updated, deleted }
  }

  await database.transaction(async () => {
    for (const table of ['domains', 'subdomains', 'skill_clusters']) {
      await database.run(`DELETE FROM ${table} WHERE external_vendor = $1 AND NOT custom`, [vendor])
    }
    const stale = [...updated, ...deleted]
    if (stale.length) {
      await database.run('DELETE FROM skills WHERE external_vendor = $1 AND NOT custom AND list_contains($2, external_id)', [vendor, listValue(stale)])
      await database.run('DELETE FROM skill_labels WHERE external_vendor = $1 AND list_contains($2, skill_id)', [vendor, listValue(stale)])
    }
    const structure = await database.appender('domains')
    for (const domain of domains) {
      structure.appendVarchar(domain.external_id)
      structure.appendVarchar(vendor)
      structure.appendVarchar(domain.domain_name)
      structure.appendBoolean(false)
      structure.appendNull()
      structure.appendTimestamp(now())
      structure.endRow()
    }
    structure.closeSync()
    const subdomains = await database.appender('subdomains')
    const clusters = await database.appender('skill_clusters')
    for (const domain of domains) {
      for (const subdomain of domain.subdomains) {
        for (const value of [subdomain.external_id, vendor, domain.external_id, subdomain.subdomain_name]) subdomains.appendVarchar(value)
        subdomains.appendBoolean(false)
        subdomains.appendNull()
        subdomains.appendTimestamp(now())
        subdomains.endRow()
        for (const cluster of subdomain.skill_clusters) {
          for (const value of [cluster.external_id, vendor, subdomain.external_id, cluster.skill_cluster_name]) clusters.appendVarchar(value)
          clusters.appendBoolean(false)
          clusters.appendNull()
          clusters.appendTimestamp(now())
          clusters.endRow()
        }
      }
    }
    subdomains.closeSync()
    clusters.closeSync()
    const skillAppender = await database.appender('skills')
    const labelAppender = await database.appender('skill_labels')
    for (const id of changed) {
      const skill = skills.get(id) as SkillRow
      skillAppender.appendVarchar(skill.external_id)
      skillAppender.appendVarchar(vendor)
      skillAppender.appendVarchar(skill.skill_cluster_id)
      skillAppender.appendVarchar(skill.skill_type)
      if (skill.description === null) skillAppender.appendNull()
      else skillAppender.appendVarchar(skill.description)
      skillAppender.appendBoolean(false)
      skillAppender.appendNull()
      skillAppender.appendVarchar(skill.hash)
      skillAppender.appendTimestamp(now())
      skillAppender.endRow()
      for (const label of skill.labels) {
        for (const value of [vendor, skill.external_id, label.language, label.kind, label.label]) labelAppender.appendVarchar(value)
        labelAppender.endRow()
      }
    }
    skillAppender.closeSync()
    labelAppender.closeSync()
  })
  return { external_vendor: vendor, skills: skills.size, created, updated, deleted }
}

const now = () => new DuckDBTimestampValue(BigInt(Date.now()) * 1000n)
