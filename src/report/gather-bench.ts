import { exportAllJobs } from '../matching/match-jobs.js'
import { LIMITS } from '../schemas/limits.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { SkillNames } from '../taxonomy/skill-names.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import type { BenchJob, BenchStrength, Section } from './report-model.js'
import { matchingNotice, skillName } from './section-notices.js'
import type { SkillHolders } from './skill-holders.js'

/** Holders below which a critical skill is a risk: one person leaving takes it away. */
export const THIN_HOLDERS = 2

/**
 * Bench strength: for each job, the employees 4.10 matches to it (the export of every job with
 * `match_limit_per_entity` at its maximum of 100 and the default threshold of 0.5, as
 * `match jobs --all-pages` answers it), and its critical skills (governed, else inferred) that
 * fewer than two employees hold at the job's level (the rule of the 4.5 gap). Thinnest first.
 */
export async function gatherBench(
  tenant: OpenTenant,
  vendor: ExternalVendor,
  language: VocabLanguage,
  names: SkillNames,
  holders: SkillHolders,
  options: { derived: boolean; jobs: number; employees: number },
): Promise<Section<BenchStrength>> {
  const cannotMatch = matchingNotice(
    { targets: options.jobs, employees: options.employees, derived: options.derived },
    {
      noTargets: 'The tenant has no jobs.',
      noEmployees: 'The tenant has no employees to stand in for its jobs.',
      target: 'a job',
    },
  )
  if (cannotMatch) return cannotMatch
  const matchLimit = LIMITS.jobMatching.matchLimitPerEntity.max
  const threshold = LIMITS.jobMatching.scoreMinThreshold.default
  const { response } = await exportAllJobs(
    tenant,
    { filters: [], weights: [], match_limit_per_entity: matchLimit },
    { external_vendor: vendor },
  )
  const titles = new Map(
    (
      await tenant.database.all<{ external_id: string; title: string }>(
        `SELECT external_id, doc->>'title' AS title FROM jobs`,
      )
    ).map((row) => [row.external_id, row.title]),
  )
  const critical = new Map<string, { skill_id: string; level: number | null }[]>()
  for (const row of await tenant.database.all<{ job_id: string; skill_id: string; level: number | null }>(
    `SELECT entity_id AS job_id, skill_id, coalesce(governed_proficiency_level, proficiency_level) AS level
       FROM profile_skills
      WHERE entity_type = 'job' AND external_vendor = $1 AND coalesce(governed_critical, inferred_critical, false)
      ORDER BY entity_id, skill_id`,
    [vendor],
  )) {
    const list = critical.get(row.job_id)
    if (list) list.push(row)
    else critical.set(row.job_id, [row])
  }
  const jobs = response.records.map((record): BenchJob => {
    const skills = critical.get(record.job_id) ?? []
    return {
      job_id: record.job_id,
      title: titles.get(record.job_id) ?? record.job_id,
      matching: record.matches.length,
      best: record.matches[0]
        ? { employee_id: record.matches[0].employee_id, score: record.matches[0].score }
        : null,
      critical_skills: skills.length,
      thin_critical_skills: skills
        .map((skill) => ({
          skill_id: skill.skill_id,
          skill_name: skillName(names, language, skill.skill_id),
          holders: holders.atLevel(skill.skill_id, skill.level),
        }))
        .filter((skill) => skill.holders < THIN_HOLDERS),
    }
  })
  jobs.sort(
    (a, b) =>
      a.matching - b.matching ||
      b.thin_critical_skills.length - a.thin_critical_skills.length ||
      (a.job_id < b.job_id ? -1 : 1),
  )
  return { match_limit: matchLimit, score_threshold: threshold, jobs }
}
