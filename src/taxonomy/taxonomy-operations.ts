/**
 * The taxonomy operations of the Skills Service API, shared by the CLI and the server: Domains
 * (4.1), Subdomains (4.7), Skill Clusters and custom Skills (create, get, update, delete, list),
 * `GET /taxonomy/skills/{skill_id}`, the deprecated Skill Cluster count (4.9) and Custom Property
 * definitions (4.8). Each takes the tenant, checks its input with the zod schemas (a failure is a
 * 422 naming the field), and returns plain data or throws a SkillhouseError.
 *
 * Every entity lives in one vendor's taxonomy (`external_vendor`, default vendor_default, which must
 * be activated on the tenant). Entities created here are custom; the entities of an imported
 * vocabulary can be read but not changed (403). Every change records a `taxonomy_changes` row and
 * sends `ai.vendor.taxonomy.updated.v1` (and a skill event for a custom skill) in its transaction.
 *
 * The levels (taxonomy-levels.ts), the skills (taxonomy-skills.ts), the custom property
 * definitions (custom-property-definitions.ts) and the lists (taxonomy-lists.ts) each have their
 * own module; their statements are in src/store/taxonomy/.
 */
export {
  createCustomPropertyDefinition,
  listCustomPropertyDefinitions,
} from './custom-property-definitions.js'
export type { TaxonomyGetOptions, TaxonomyOptions } from './taxonomy-entity.js'
export {
  createDomain,
  createSkillCluster,
  createSubdomain,
  deleteDomain,
  deleteSkillCluster,
  deleteSubdomain,
  getDomain,
  getSkillCluster,
  getSubdomain,
  skillClusterCount,
  updateDomain,
  updateSkillCluster,
  updateSubdomain,
} from './taxonomy-levels.js'
export {
  listDomains,
  listSkillClusters,
  listSkills,
  listSubdomains,
  type TaxonomyListQuery,
  type TaxonomyPage,
} from './taxonomy-lists.js'
export { createSkill, deleteSkill, getSkill, updateSkill } from './taxonomy-skills.js'
