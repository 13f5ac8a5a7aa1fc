import { errors } from '../errors/skillhouse-error.js'
import {
  type RelatedSkill,
  RelatedSkillsOptions,
  type RelatedSkillsResponse,
} from '../schemas/recommendations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { StampedCache, stampedIndex } from '../store/stamped-cache.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import type { TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import { type AnswerVocabulary, answerVocabulary, checkedOptions, rounded } from './recommend-options.js'

/** What sharing the skill's cluster in the taxonomy adds to a related skill's score. */
export const CLUSTER_BONUS = 0.2

/** How many employees of the vendor's profiles hold each skill, and how many have a profile. */
interface SkillCounts {
  employees: number
  holders: Map<string, number>
}

/** Co-occurrence counts with one skill: employees holding both, per other skill. */
interface Cooccurrence {
  counts: SkillCounts
  together: Map<string, number>
}

const countsCache = new StampedCache<SkillCounts>()
const cooccurrenceCache = new StampedCache<Cooccurrence>()

/**
 * The skills most associated with a skill (a skillhouse extension, docs/recommendations.md): in
 * the tenant's own employee profiles, by normalised pointwise mutual information (NPMI: how much
 * more often two skills are held together than their popularity predicts, from −1 to 1), kept
 * when at least `min_support` employees hold both and the association is positive; merged with
 * the skills of the same cluster in the taxonomy, which add `CLUSTER_BONUS` to the score. Each
 * skill says where it comes from (`sources`).
 *
 * The counts are computed in DuckDB from the profile table and kept per state of the profiles
 * (a new derivation, a new answer: never stale). 404 names a skill the vendor does not know.
 */
export async function relatedSkills(
  tenant: TaxonomyTenant,
  input: RelatedSkillsOptions & AnswerVocabulary,
): Promise<RelatedSkillsResponse> {
  const { external_vendor, vocab_language, ...fields } = input
  const options = checkedOptions(
    RelatedSkillsOptions,
    Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)),
  )
  const { vendor, language } = await answerVocabulary(tenant, { external_vendor, vocab_language })
  const database = tenant.database
  const skillId = options.skill_id
  const cluster = await clusterOf(database, vendor, skillId)
  const { counts, together } = await cooccurrence(database, vendor, skillId, tenant.dataVersion)
  const holders = counts.holders.get(skillId) ?? 0
  const related = new Map<string, RelatedSkill>()
  for (const [other, both] of together) {
    const npmi =
      both >= options.min_support
        ? npmiOf(both, holders, counts.holders.get(other) ?? 0, counts.employees)
        : null
    if (npmi === null || npmi <= 0) continue
    related.set(other, {
      skill_id: other,
      skill_name: other,
      score: npmi,
      sources: ['profiles'],
      npmi: rounded(npmi),
      together: both,
    })
  }
  for (const other of cluster) {
    const known = related.get(other)
    if (known) {
      known.score += CLUSTER_BONUS
      known.sources.push('taxonomy')
    } else {
      related.set(other, {
        skill_id: other,
        skill_name: other,
        score: CLUSTER_BONUS,
        sources: ['taxonomy'],
        npmi: null,
        together: together.get(other) ?? 0,
      })
    }
  }
  const ranked = [...related.values()]
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.together - a.together ||
        (a.skill_id < b.skill_id ? -1 : a.skill_id > b.skill_id ? 1 : 0),
    )
    .slice(0, options.limit)
  const names = await SkillNames.load(database, vendor, [skillId, ...ranked.map((skill) => skill.skill_id)])
  const nameOf = (id: string) => names.name(id, language) ?? id
  return {
    skill_id: skillId,
    skill_name: nameOf(skillId),
    holders,
    employees: counts.employees,
    min_support: options.min_support,
    related: ranked.map((skill) => ({
      ...skill,
      skill_name: nameOf(skill.skill_id),
      score: rounded(skill.score),
    })),
  }
}

/**
 * NPMI of two skills held by `a` and `b` employees, `both` of them holding both, out of `total`:
 * log(p(ab) / (p(a) p(b))) / −log p(ab); 1 when every employee holds both.
 */
export function npmiOf(both: number, a: number, b: number, total: number): number | null {
  if (both <= 0 || a <= 0 || b <= 0 || total <= 0) return null
  const pab = both / total
  if (pab >= 1) return 1
  return Math.log(pab / ((a / total) * (b / total))) / -Math.log(pab)
}

/** The other skills of the skill's cluster (none without a cluster); 404 for a skill the vendor lacks. */
async function clusterOf(
  database: TenantDatabase,
  vendor: ExternalVendor,
  skillId: string,
): Promise<string[]> {
  const skill = await database.one<{ cluster: string | null }>(
    `SELECT skill_cluster_id AS cluster FROM skills WHERE external_vendor = $1 AND external_id = $2`,
    [vendor, skillId],
  )
  if (!skill)
    throw errors.notFound('skill', skillId, `no skill with this external_id exists in the ${vendor} taxonomy`)
  if (skill.cluster === null) return []
  const rows = await database.all<{ external_id: string }>(
    `SELECT external_id FROM skills
      WHERE external_vendor = $1 AND skill_cluster_id = $2 AND external_id <> $3 ORDER BY external_id`,
    [vendor, skill.cluster, skillId],
  )
  return rows.map((row) => row.external_id)
}

const EMPLOYEE_SKILLS = `SELECT entity_id, skill_id FROM profile_skills WHERE entity_type = 'employee' AND external_vendor = $1`

/** The counts of every skill and the co-occurrences of one, per state of the profiles. */
async function cooccurrence(
  database: TenantDatabase,
  vendor: ExternalVendor,
  skillId: string,
  dataVersion: string | undefined,
): Promise<Cooccurrence> {
  const counts = await stampedIndex(countsCache, database, vendor, dataVersion, ['profiles'], async () => {
    const rows = await database.all<{ skill_id: string; holders: number }>(
      `SELECT skill_id, count(*)::INTEGER AS holders FROM (${EMPLOYEE_SKILLS}) GROUP BY skill_id`,
      [vendor],
    )
    const total = await database.one<{ employees: number }>(
      `SELECT count(DISTINCT entity_id)::INTEGER AS employees FROM (${EMPLOYEE_SKILLS})`,
      [vendor],
    )
    return {
      employees: total?.employees ?? 0,
      holders: new Map(rows.map((row) => [row.skill_id, row.holders])),
    }
  })
  return stampedIndex(
    cooccurrenceCache,
    database,
    `${vendor}\u0000${skillId}`,
    dataVersion,
    ['profiles'],
    async () => {
      const rows = await database.all<{ skill_id: string; together: number }>(
        `WITH e AS (${EMPLOYEE_SKILLS})
       SELECT e.skill_id, count(*)::INTEGER AS together
         FROM e JOIN (SELECT entity_id FROM e WHERE skill_id = $2) h ON h.entity_id = e.entity_id
        WHERE e.skill_id <> $2
        GROUP BY e.skill_id`,
        [vendor, skillId],
      )
      return { counts, together: new Map(rows.map((row) => [row.skill_id, row.together])) }
    },
  )
}
