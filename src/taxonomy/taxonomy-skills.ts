import { errors } from '../errors/skillhouse-error.js'
import { Skill, type TaxonomyChange } from '../schemas/taxonomy.js'
import { type SkillDetailResponse, SkillPatch } from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import {
  DEFAULT_VOCAB_LANGUAGE,
  VOCAB_LANGUAGES,
  type VocabLanguage,
} from '../schemas/vocabulary-languages.js'
import {
  deleteSkillRows,
  findSkillRows,
  insertCustomSkill,
  type SkillRow,
  skillLabelRows,
} from '../store/taxonomy/skill-tables.js'
import { checkProperties } from './custom-property-definitions.js'
import { skillContentHash, type VocabularyEntrySkill, vocabularyEntryOf } from './import-vocabulary.js'
import { nameFallbacks } from './skill-names.js'
import {
  includes,
  mergeProperties,
  propertiesJson,
  recordChange,
  requireCustom,
  sameJson,
  storedProperties,
  type TaxonomyOptions,
} from './taxonomy-entity.js'
import { requireSkillCluster } from './taxonomy-levels.js'
import { isoTime, parseInput, requireVendor, type TaxonomyTenant } from './taxonomy-tenant.js'
import { resolveVocabLanguage } from './vocabulary-languages.js'

/**
 * Skills: `GET /taxonomy/skills/{skill_id}` for a vocabulary or a custom skill, and the custom
 * Skills a tenant creates, changes and deletes (custom=true in `skills`, their names and aliases
 * in `skill_labels`).
 */

/** Options of a skill's GET: the language of its name and aliases, and the optional attributes. */
export type SkillReadOptions = {
  vocab_language?: string | undefined
  include?: readonly string[] | undefined
}

async function findSkill(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  id: string,
): Promise<SkillRow | undefined> {
  return (await findSkillRows(tenant.database, vendor, [id]))[0]
}

async function requireSkill(tenant: TaxonomyTenant, vendor: ExternalVendor, id: string): Promise<SkillRow> {
  const row = await findSkill(tenant, vendor, id)
  if (!row) throw skillNotFound(tenant, vendor, id)
  return row
}

const skillNotFound = (tenant: TaxonomyTenant, vendor: ExternalVendor, id: string) =>
  errors.notFound(
    'skill',
    id,
    `no skill with this id is in the ${vendor} vocabulary or the custom skills of tenant ${tenant.settings.name} (a deleted skill is gone)`,
  )

type SkillLabels = {
  names: Partial<Record<VocabLanguage, string>>
  aliases: Partial<Record<VocabLanguage, string[]>>
}

async function skillLabels(tenant: TaxonomyTenant, vendor: ExternalVendor, id: string) {
  return (await labelsOfSkills(tenant, vendor, [id])).get(id) ?? { names: {}, aliases: {} }
}

/** The names and aliases of skills `ids` of a vendor, by skill, in one read. */
async function labelsOfSkills(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<Map<string, SkillLabels>> {
  const out = new Map<string, SkillLabels>()
  for (const row of await skillLabelRows(tenant.database, vendor, ids)) {
    let labels = out.get(row.skill_id)
    if (!labels) {
      labels = { names: {}, aliases: {} }
      out.set(row.skill_id, labels)
    }
    if (row.kind === 'name') labels.names[row.language] = row.label
    else labels.aliases[row.language] = [...(labels.aliases[row.language] ?? []), row.label]
  }
  return out
}

/** Stores a custom skill with its labels; `properties` is the JSON text of its custom properties. */
function writeSkill(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  entry: VocabularyEntrySkill,
  properties: string | null,
  time: Date,
): Promise<void> {
  return insertCustomSkill(tenant.database, vendor, {
    ...entry,
    properties,
    content_hash: skillContentHash(entry),
    time,
  })
}

/**
 * Creates a custom Skill (custom=true in `skills`): `skill_name` is its en_uk name, `names` and
 * `aliases` add other languages. Its cluster, when given, must exist (404); its external_id must
 * not (409). Sends `ai.vendor.taxonomy.skill.created.v1` and `ai.vendor.taxonomy.updated.v1`.
 */
export async function createSkill(
  tenant: TaxonomyTenant,
  input: unknown,
  options: TaxonomyOptions = {},
): Promise<TaxonomyChange> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const skill = parseInput(Skill, input, 'a skill')
  await checkProperties(tenant, ['taxonomy/skills'], skill.custom_properties)
  await requireSkillCluster(tenant, vendor, skill.skill_cluster_id)
  const entry = vocabularyEntryOf(skill)
  const time = new Date()
  return tenant.database.transaction(async () => {
    if (await findSkill(tenant, vendor, skill.external_id)) throw errors.conflict('skill', skill.external_id)
    await writeSkill(tenant, vendor, entry, propertiesJson(skill.custom_properties), time)
    return recordChange(
      tenant,
      'skill_created',
      skill.external_id,
      vendor,
      { skill_name: skill.skill_name, skill_cluster_id: entry.skill_cluster_id },
      { created: [skill.external_id], updated: [], deleted: [] },
      time,
    )
  })
}

/**
 * `GET /taxonomy/skills/{skill_id}?external_vendor=…&vocab_language=…`: a vocabulary or custom
 * skill of the vendor, its name and aliases in the vocabulary language (fallback en_uk). 404 for
 * an unknown or deleted skill; 403 naming the activated vendors when the vendor is not activated.
 */
export async function getSkill(
  tenant: TaxonomyTenant,
  skillId: string,
  vendor: string = 'vendor_default',
  options: SkillReadOptions = {},
): Promise<SkillDetailResponse> {
  const known = requireVendor(tenant, vendor)
  const [skill] = await readSkills(tenant, known, [skillId], options)
  if (!skill) throw skillNotFound(tenant, known, skillId)
  return skill
}

/**
 * Skills `ids` of a vendor as their GET answers them, in external_id order (those that exist):
 * three reads whatever their number (a page of 1,000 skills read one by one is a thousand reads).
 */
export async function readSkills(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  ids: readonly string[],
  options: SkillReadOptions,
): Promise<SkillDetailResponse[]> {
  const include = includes(options)
  const language = await resolveVocabLanguage(tenant, vendor, options.vocab_language)
  const rows = await findSkillRows(tenant.database, vendor, ids)
  const labels = await labelsOfSkills(tenant, vendor, ids)
  const fallbacks = nameFallbacks(language)
  return rows.map((row) => {
    const { names, aliases } = labels.get(row.external_id) ?? { names: {}, aliases: {} }
    const shown =
      fallbacks.find((candidate) => names[candidate] !== undefined) ??
      VOCAB_LANGUAGES.find((candidate) => names[candidate] !== undefined)
    const response: SkillDetailResponse = {
      external_id: row.external_id,
      external_vendor: vendor,
      skill_name: shown ? (names[shown] as string) : row.external_id,
      skill_type: row.skill_type,
      skill_cluster_id: row.skill_cluster_id,
      subdomain_id: row.subdomain_id,
      domain_id: row.domain_id,
      description: row.description,
      aliases: shown ? (aliases[shown] ?? []) : [],
      custom: row.custom,
      last_updated: isoTime(row.updated_at),
    }
    if (include.has('custom_properties')) response.custom_properties = storedProperties(row.props)
    return response
  })
}

/**
 * Changes a custom Skill (PATCH): `skill_name` sets the en_uk name, `names`/`aliases` replace the
 * languages they name, null clears `description` or `skill_cluster_id`. Returns null when nothing
 * changed; otherwise sends `ai.vendor.taxonomy.skill.updated.v1`. Vocabulary skills are read-only (403).
 */
export async function updateSkill(
  tenant: TaxonomyTenant,
  skillId: string,
  input: unknown,
  options: TaxonomyOptions = {},
): Promise<TaxonomyChange | null> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const patch = parseInput(SkillPatch, input, 'a skill update')
  const row = await requireSkill(tenant, vendor, skillId)
  requireCustom(row, 'skill', skillId, vendor)
  await checkProperties(tenant, ['taxonomy/skills'], patch.custom_properties)
  if (patch.skill_cluster_id !== undefined && patch.skill_cluster_id !== row.skill_cluster_id) {
    await requireSkillCluster(tenant, vendor, patch.skill_cluster_id)
  }
  const entry = patchedSkill(row, patch, await skillLabels(tenant, vendor, skillId))
  const properties = propertiesJson(mergeProperties(row.props, patch.custom_properties))
  const contentChanged = skillContentHash(entry) !== row.content_hash
  if (!contentChanged && sameJson(properties, row.props)) return null
  const time = new Date()
  return tenant.database.transaction(async () => {
    await deleteSkillRows(tenant.database, vendor, skillId)
    await writeSkill(tenant, vendor, entry, properties, time)
    return recordChange(
      tenant,
      'skill_updated',
      skillId,
      vendor,
      { changed: Object.keys(patch).sort() },
      { created: [], updated: [skillId], deleted: [] },
      time,
    )
  })
}

/** A stored skill with a PATCH applied: the languages the patch names replace the stored ones. */
function patchedSkill(row: SkillRow, patch: SkillPatch, labels: SkillLabels): VocabularyEntrySkill {
  const names = { ...labels.names, ...patch.names }
  if (patch.skill_name !== undefined) names[DEFAULT_VOCAB_LANGUAGE] = patch.skill_name
  return {
    external_id: row.external_id,
    skill_cluster_id: patch.skill_cluster_id === undefined ? row.skill_cluster_id : patch.skill_cluster_id,
    skill_type: patch.skill_type ?? row.skill_type,
    description: patch.description === undefined ? row.description : patch.description,
    names,
    aliases: { ...labels.aliases, ...patch.aliases },
  }
}

/** Deletes a custom Skill; afterwards `getSkill` answers 404. Sends `ai.vendor.taxonomy.skill.deleted.v1`. */
export async function deleteSkill(
  tenant: TaxonomyTenant,
  skillId: string,
  options: TaxonomyOptions = {},
): Promise<TaxonomyChange> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const row = await requireSkill(tenant, vendor, skillId)
  requireCustom(row, 'skill', skillId, vendor)
  const time = new Date()
  return tenant.database.transaction(async () => {
    await deleteSkillRows(tenant.database, vendor, skillId)
    return recordChange(
      tenant,
      'skill_deleted',
      skillId,
      vendor,
      {},
      { created: [], updated: [], deleted: [skillId] },
      time,
    )
  })
}
