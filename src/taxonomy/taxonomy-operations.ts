import { type DuckDBValue, listValue } from '@duckdb/node-api'
import type { z } from 'zod'
import { parseQuery } from '../entities/input-issues.js'
import { errors, SkillhouseError } from '../errors/skillhouse-error.js'
import {
  type CollectionMetric,
  CUSTOM_PROPERTY_ENTITY_TYPES,
  type CustomProperties,
  CustomPropertyDefinition,
  CustomPropertyEntityType,
  checkCustomProperties,
  DEFAULT_VOCAB_LANGUAGE,
  Domain,
  DomainPatch,
  type DomainResponse,
  type ExternalVendor,
  PageQuery,
  type PropertyType,
  Skill,
  SkillCluster,
  SkillClusterPatch,
  type SkillClusterResponse,
  type SkillDetailResponse,
  SkillPatch,
  type SkillType,
  Subdomain,
  SubdomainPatch,
  type SubdomainResponse,
  type TaxonomyChange,
  TaxonomyInclude,
  type TaxonomyOperationType,
  VOCAB_LANGUAGES,
  type VocabLanguage,
} from '../schemas/index.js'
import { appendLabels, skillContentHash, type VocabularyEntrySkill } from './import-vocabulary.js'
import { nameFallbacks } from './skill-names.js'
import { recordTaxonomyChange, type SkillChangeIds } from './taxonomy-changes.js'
import {
  eventContextOf,
  isoTime,
  parseInput,
  requireVendor,
  type TaxonomyTenant,
  timestampValue,
} from './taxonomy-tenant.js'
import { resolveVocabLanguage } from './vocabulary-languages.js'

/**
 * The taxonomy operations of the Skills Service API, shared by the CLI and the server: Domains
 * (4.1), Subdomains (4.7), Skill Clusters and custom Skills (create, get, update, delete),
 * `GET /taxonomy/skills/{skill_id}`, the deprecated Skill Cluster count (4.9) and Custom Property
 * definitions (4.8). Each takes the tenant, checks its input with the zod schemas (a failure is a
 * 422 naming the field), and returns plain data or throws a SkillhouseError.
 *
 * Every entity lives in one vendor's taxonomy (`external_vendor`, default vendor_default, which must
 * be activated on the tenant). Entities created here are custom; the entities of an imported
 * vocabulary can be read but not changed (403). Every change records a `taxonomy_changes` row and
 * sends `ai.vendor.taxonomy.updated.v1` (and a skill event for a custom skill) in its transaction.
 */

/** Options every operation takes: the vendor whose taxonomy it works in. */
export interface TaxonomyOptions {
  external_vendor?: string | undefined
}

/** Options of a GET: the vendor and the optional attributes (`custom_properties`). */
export interface TaxonomyGetOptions extends TaxonomyOptions {
  include?: readonly string[] | undefined
}

interface LevelSpec {
  kind: 'domain' | 'subdomain' | 'skill cluster'
  operation: 'domain' | 'subdomain' | 'skill_cluster'
  table: 'domains' | 'subdomains' | 'skill_clusters'
  name: 'domain_name' | 'subdomain_name' | 'skill_cluster_name'
  parent: { column: 'domain_id' | 'subdomain_id'; level: LevelSpec } | null
  /** Who refers to this level: the table and column of its children. */
  children: { table: 'subdomains' | 'skill_clusters' | 'skills'; column: string; kind: string }
  /** Entity types whose custom property definitions apply; the first is the canonical one. */
  entityTypes: readonly CustomPropertyEntityType[]
}

const DOMAIN: LevelSpec = {
  kind: 'domain',
  operation: 'domain',
  table: 'domains',
  name: 'domain_name',
  parent: null,
  children: { table: 'subdomains', column: 'domain_id', kind: 'subdomain' },
  entityTypes: ['taxonomy/domains'],
}
const SUBDOMAIN: LevelSpec = {
  kind: 'subdomain',
  operation: 'subdomain',
  table: 'subdomains',
  name: 'subdomain_name',
  parent: { column: 'domain_id', level: DOMAIN },
  children: { table: 'skill_clusters', column: 'subdomain_id', kind: 'skill cluster' },
  entityTypes: ['taxonomy/subdomains'],
}
// 2.9 lists both `taxonomy/skill_clusters` and `skill_clusters`: definitions of either apply.
const SKILL_CLUSTER: LevelSpec = {
  kind: 'skill cluster',
  operation: 'skill_cluster',
  table: 'skill_clusters',
  name: 'skill_cluster_name',
  parent: { column: 'subdomain_id', level: SUBDOMAIN },
  children: { table: 'skills', column: 'skill_cluster_id', kind: 'skill' },
  entityTypes: ['taxonomy/skill_clusters', 'skill_clusters'],
}

interface EntityRow {
  external_id: string
  name: string
  parent: string | null
  custom: boolean
  props: string | null
  updated_at: Date
}

async function findEntity(
  tenant: TaxonomyTenant,
  level: LevelSpec,
  vendor: ExternalVendor,
  id: string,
): Promise<EntityRow | undefined> {
  return tenant.database.one<EntityRow & Record<string, unknown>>(
    `SELECT external_id, ${level.name} AS name, ${level.parent?.column ?? 'NULL'} AS parent, custom,
            custom_properties::VARCHAR AS props, updated_at
       FROM ${level.table} WHERE external_vendor = $1 AND external_id = $2`,
    [vendor, id],
  )
}

async function requireEntity(
  tenant: TaxonomyTenant,
  level: LevelSpec,
  vendor: ExternalVendor,
  id: string,
): Promise<EntityRow> {
  const row = await findEntity(tenant, level, vendor, id)
  if (!row)
    throw errors.notFound(
      level.kind,
      id,
      `no ${level.kind} with this external_id exists in the ${vendor} taxonomy`,
    )
  return row
}

async function requireParent(tenant: TaxonomyTenant, level: LevelSpec, vendor: ExternalVendor, id: string) {
  const parent = level.parent as NonNullable<LevelSpec['parent']>
  if (!(await findEntity(tenant, parent.level, vendor, id))) {
    throw errors.notFound(
      parent.level.kind,
      id,
      `the ${level.kind}'s ${parent.column} must name an existing ${parent.level.kind} of ${vendor}; create it first`,
    )
  }
}

function requireCustom(row: { custom: boolean }, kind: string, id: string, vendor: ExternalVendor): void {
  if (!row.custom) {
    throw errors.forbidden(
      `${kind} '${id}' belongs to the ${vendor} vocabulary and cannot be changed; only custom ${kind}s can (create one with its own external_id)`,
    )
  }
}

/** The tenant's definitions for `entityTypes`, by property name; the first entity type wins a clash. */
async function propertyDefinitions(
  tenant: TaxonomyTenant,
  entityTypes: readonly CustomPropertyEntityType[],
): Promise<Map<string, PropertyType>> {
  const definitions = new Map<string, PropertyType>()
  for (const entityType of entityTypes) {
    for (const row of await tenant.database.all<{ property_name: string; property_type: PropertyType }>(
      'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1',
      [entityType],
    )) {
      if (!definitions.has(row.property_name)) definitions.set(row.property_name, row.property_type)
    }
  }
  return definitions
}

async function checkProperties(
  tenant: TaxonomyTenant,
  entityTypes: readonly CustomPropertyEntityType[],
  values: CustomProperties | undefined,
): Promise<void> {
  if (!values || Object.keys(values).length === 0) return
  const problems = checkCustomProperties(
    values,
    await propertyDefinitions(tenant, entityTypes),
    entityTypes[0] as CustomPropertyEntityType,
  )
  if (problems.length)
    throw errors.unprocessable(problems.map((problem) => `${problem.path}: ${problem.message}`))
}

/** Merges a PATCH's custom properties into the stored ones; a null value removes the property. */
function mergeProperties(
  stored: string | null,
  patch: CustomProperties | undefined,
): CustomProperties | null {
  const merged: CustomProperties = { ...(stored ? (JSON.parse(stored) as CustomProperties) : {}) }
  for (const [name, value] of Object.entries(patch ?? {})) {
    if (value === null) delete merged[name]
    else merged[name] = value
  }
  return Object.keys(merged).length ? merged : null
}

const propertiesJson = (values: CustomProperties | null | undefined) =>
  values && Object.keys(values).length ? JSON.stringify(values) : null

function includes(options: TaxonomyGetOptions): Set<string> {
  return new Set(parseInput(TaxonomyInclude, options.include ?? [], 'include', 'include'))
}

async function record(
  tenant: TaxonomyTenant,
  operation: TaxonomyOperationType,
  id: string,
  vendor: ExternalVendor,
  details: Record<string, unknown>,
  skills?: SkillChangeIds,
  time = new Date(),
): Promise<TaxonomyChange> {
  const { change } = await recordTaxonomyChange(
    tenant.database,
    eventContextOf(tenant),
    { operation_type: operation, entity_external_id: id, external_vendor: vendor, details },
    skills,
    time,
  )
  return change
}

// ---- Domains, Subdomains, Skill Clusters: one implementation over the three levels -------------

type LevelInput = { external_id: string; custom_properties?: CustomProperties | undefined } & Record<
  string,
  unknown
>

async function createLevel(
  tenant: TaxonomyTenant,
  level: LevelSpec,
  schema: z.ZodType,
  input: unknown,
  options: TaxonomyOptions,
): Promise<TaxonomyChange> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const entity = parseInput(schema, input, `a ${level.kind}`) as LevelInput
  await checkProperties(tenant, level.entityTypes, entity.custom_properties)
  const parentId = level.parent ? (entity[level.parent.column] as string) : null
  if (level.parent && parentId !== null) await requireParent(tenant, level, vendor, parentId)
  const time = new Date()
  return tenant.database.transaction(async () => {
    if (await findEntity(tenant, level, vendor, entity.external_id))
      throw errors.conflict(level.kind, entity.external_id)
    const columns = [
      'external_id',
      'external_vendor',
      ...(level.parent ? [level.parent.column] : []),
      level.name,
    ]
    const values: DuckDBValue[] = [
      entity.external_id,
      vendor,
      ...(parentId !== null ? [parentId] : []),
      entity[level.name] as string,
    ]
    const parameterMarks = values.map((_, index) => `$${index + 1}`)
    await tenant.database.run(
      `INSERT INTO ${level.table} (${columns.join(', ')}, custom, custom_properties, updated_at)
       VALUES (${parameterMarks.join(', ')}, true, $${values.length + 1}::JSON, $${values.length + 2})`,
      [...values, propertiesJson(entity.custom_properties), timestampValue(time)],
    )
    const details: Record<string, unknown> = { [level.name]: entity[level.name] }
    if (level.parent) details[level.parent.column] = parentId
    return record(
      tenant,
      `${level.operation}_created` as TaxonomyOperationType,
      entity.external_id,
      vendor,
      details,
      undefined,
      time,
    )
  })
}

async function getLevel(
  tenant: TaxonomyTenant,
  level: LevelSpec,
  id: string,
  options: TaxonomyGetOptions,
): Promise<Record<string, unknown>> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const include = includes(options)
  const row = await requireEntity(tenant, level, vendor, id)
  const response: Record<string, unknown> = { external_id: row.external_id }
  if (level.parent) response[level.parent.column] = row.parent
  response[level.name] = row.name
  response.last_updated = isoTime(row.updated_at)
  if (include.has('custom_properties')) {
    response.custom_properties = row.props ? (JSON.parse(row.props) as CustomProperties) : {}
  }
  return response
}

async function updateLevel(
  tenant: TaxonomyTenant,
  level: LevelSpec,
  schema: z.ZodType,
  id: string,
  input: unknown,
  options: TaxonomyOptions,
): Promise<TaxonomyChange | null> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const patch = parseInput(schema, input, `a ${level.kind} update`) as Record<string, unknown> & {
    custom_properties?: CustomProperties
  }
  const row = await requireEntity(tenant, level, vendor, id)
  requireCustom(row, level.kind, id, vendor)
  await checkProperties(tenant, level.entityTypes, patch.custom_properties)
  const name = (patch[level.name] as string | undefined) ?? row.name
  const parent = level.parent ? ((patch[level.parent.column] as string | undefined) ?? row.parent) : null
  if (level.parent && parent !== null && parent !== row.parent)
    await requireParent(tenant, level, vendor, parent)
  const properties = propertiesJson(mergeProperties(row.props, patch.custom_properties))
  const changed: string[] = []
  if (name !== row.name) changed.push(level.name)
  if (level.parent && parent !== row.parent) changed.push(level.parent.column)
  if (!sameJson(properties, row.props)) changed.push('custom_properties')
  if (changed.length === 0) return null
  const time = new Date()
  return tenant.database.transaction(async () => {
    await tenant.database.run(
      `UPDATE ${level.table} SET ${level.name} = $3, ${level.parent ? `${level.parent.column} = $6,` : ''}
              custom_properties = $4::JSON, updated_at = $5
        WHERE external_vendor = $1 AND external_id = $2`,
      [vendor, id, name, properties, timestampValue(time), ...(level.parent ? [parent] : [])],
    )
    return record(
      tenant,
      `${level.operation}_updated` as TaxonomyOperationType,
      id,
      vendor,
      { changed },
      undefined,
      time,
    )
  })
}

async function deleteLevel(
  tenant: TaxonomyTenant,
  level: LevelSpec,
  id: string,
  options: TaxonomyOptions,
): Promise<TaxonomyChange> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const row = await requireEntity(tenant, level, vendor, id)
  requireCustom(row, level.kind, id, vendor)
  const children = await tenant.database.all<{ external_id: string }>(
    `SELECT external_id FROM ${level.children.table} WHERE external_vendor = $1 AND ${level.children.column} = $2 ORDER BY external_id LIMIT 6`,
    [vendor, id],
  )
  if (children.length) {
    const names = children.slice(0, 5).map((child) => child.external_id)
    // 409: the request conflicts with the entities that still refer to this one.
    throw new SkillhouseError(
      409,
      `${level.kind} '${id}' still has ${level.children.kind}s (${names.join(', ')}${children.length > 5 ? ', …' : ''}); delete or move them first`,
    )
  }
  const time = new Date()
  return tenant.database.transaction(async () => {
    await tenant.database.run(`DELETE FROM ${level.table} WHERE external_vendor = $1 AND external_id = $2`, [
      vendor,
      id,
    ])
    return record(
      tenant,
      `${level.operation}_deleted` as TaxonomyOperationType,
      id,
      vendor,
      {},
      undefined,
      time,
    )
  })
}

function sameJson(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b
  return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b))
}

/** Creates a custom Domain (4.1); 409 when the external_id exists in that vendor's taxonomy. */
export function createDomain(tenant: TaxonomyTenant, input: unknown, options: TaxonomyOptions = {}) {
  return createLevel(tenant, DOMAIN, Domain, input, options)
}

/** A Domain with `last_updated`; `custom_properties` only with `include: ['custom_properties']`. 404 for unknown. */
export async function getDomain(
  tenant: TaxonomyTenant,
  id: string,
  options: TaxonomyGetOptions = {},
): Promise<DomainResponse> {
  return (await getLevel(tenant, DOMAIN, id, options)) as DomainResponse
}

/** Changes a custom Domain (PATCH); returns the change, or null when the patch changed nothing. */
export function updateDomain(
  tenant: TaxonomyTenant,
  id: string,
  patch: unknown,
  options: TaxonomyOptions = {},
) {
  return updateLevel(tenant, DOMAIN, DomainPatch, id, patch, options)
}

/** Deletes a custom Domain; 409 while Subdomains still refer to it. */
export function deleteDomain(tenant: TaxonomyTenant, id: string, options: TaxonomyOptions = {}) {
  return deleteLevel(tenant, DOMAIN, id, options)
}

/** Creates a custom Subdomain; its Domain must exist (404 naming it), its external_id must not (409). */
export function createSubdomain(tenant: TaxonomyTenant, input: unknown, options: TaxonomyOptions = {}) {
  return createLevel(tenant, SUBDOMAIN, Subdomain, input, options)
}

/**
 * `GET /taxonomy/subdomains/{id}` (4.7): the Subdomain with `last_updated` as ISO UTC, and its
 * `custom_properties` only when `include` has `custom_properties`. 404 for an unknown id.
 */
export async function getSubdomain(
  tenant: TaxonomyTenant,
  id: string,
  options: TaxonomyGetOptions = {},
): Promise<SubdomainResponse> {
  return (await getLevel(tenant, SUBDOMAIN, id, options)) as SubdomainResponse
}

/** Changes a custom Subdomain (PATCH); a new domain_id must name an existing Domain. */
export function updateSubdomain(
  tenant: TaxonomyTenant,
  id: string,
  patch: unknown,
  options: TaxonomyOptions = {},
) {
  return updateLevel(tenant, SUBDOMAIN, SubdomainPatch, id, patch, options)
}

/** Deletes a custom Subdomain; 409 while Skill Clusters still refer to it. */
export function deleteSubdomain(tenant: TaxonomyTenant, id: string, options: TaxonomyOptions = {}) {
  return deleteLevel(tenant, SUBDOMAIN, id, options)
}

/** Creates a custom Skill Cluster; its Subdomain must exist (404 naming it). */
export function createSkillCluster(tenant: TaxonomyTenant, input: unknown, options: TaxonomyOptions = {}) {
  return createLevel(tenant, SKILL_CLUSTER, SkillCluster, input, options)
}

/** A Skill Cluster with `last_updated`; `custom_properties` only when included. 404 for unknown. */
export async function getSkillCluster(
  tenant: TaxonomyTenant,
  id: string,
  options: TaxonomyGetOptions = {},
): Promise<SkillClusterResponse> {
  return (await getLevel(tenant, SKILL_CLUSTER, id, options)) as SkillClusterResponse
}

/** Changes a custom Skill Cluster (PATCH). */
export function updateSkillCluster(
  tenant: TaxonomyTenant,
  id: string,
  patch: unknown,
  options: TaxonomyOptions = {},
) {
  return updateLevel(tenant, SKILL_CLUSTER, SkillClusterPatch, id, patch, options)
}

/** Deletes a custom Skill Cluster; 409 while skills still belong to it. */
export function deleteSkillCluster(tenant: TaxonomyTenant, id: string, options: TaxonomyOptions = {}) {
  return deleteLevel(tenant, SKILL_CLUSTER, id, options)
}

// ---- Skills --------------------------------------------------------------------------------------

interface SkillRow {
  external_id: string
  external_vendor: ExternalVendor
  skill_cluster_id: string | null
  skill_type: SkillType
  description: string | null
  custom: boolean
  props: string | null
  content_hash: string
  updated_at: Date
  subdomain_id: string | null
  domain_id: string | null
}

async function findSkill(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  id: string,
): Promise<SkillRow | undefined> {
  return (await findSkills(tenant, vendor, [id]))[0]
}

/** The rows of skills `ids` of a vendor (those that exist), in external_id order. */
async function findSkills(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<SkillRow[]> {
  return tenant.database.all<SkillRow & Record<string, unknown>>(
    `SELECT s.external_id, s.external_vendor, s.skill_cluster_id, s.skill_type, s.description, s.custom,
            s.custom_properties::VARCHAR AS props, s.content_hash, s.updated_at,
            c.subdomain_id, d.domain_id
       FROM skills s
       LEFT JOIN skill_clusters c ON c.external_vendor = s.external_vendor AND c.external_id = s.skill_cluster_id
       LEFT JOIN subdomains d ON d.external_vendor = s.external_vendor AND d.external_id = c.subdomain_id
      WHERE s.external_vendor = $1 AND list_contains($2::VARCHAR[], s.external_id)
      ORDER BY s.external_id`,
    [vendor, listValue([...ids])],
  )
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

async function skillLabels(tenant: TaxonomyTenant, vendor: ExternalVendor, id: string) {
  return (await labelsOfSkills(tenant, vendor, [id])).get(id) ?? { names: {}, aliases: {} }
}

type SkillLabels = {
  names: Partial<Record<VocabLanguage, string>>
  aliases: Partial<Record<VocabLanguage, string[]>>
}

/** The names and aliases of skills `ids` of a vendor, by skill, in one read. */
async function labelsOfSkills(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  ids: readonly string[],
): Promise<Map<string, SkillLabels>> {
  const out = new Map<string, SkillLabels>()
  for (const row of await tenant.database.all<{
    skill_id: string
    language: VocabLanguage
    kind: string
    label: string
  }>(
    `SELECT skill_id, language, kind, label FROM skill_labels
      WHERE external_vendor = $1 AND list_contains($2::VARCHAR[], skill_id) ORDER BY rowid`,
    [vendor, listValue([...ids])],
  )) {
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

async function requireCluster(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  clusterId: string | null | undefined,
) {
  if (clusterId === null || clusterId === undefined) return
  if (!(await findEntity(tenant, SKILL_CLUSTER, vendor, clusterId))) {
    throw errors.notFound(
      'skill cluster',
      clusterId,
      `the skill's skill_cluster_id must name an existing skill cluster of ${vendor}; create it first`,
    )
  }
}

async function writeSkill(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  entry: VocabularyEntrySkill,
  properties: string | null,
  time: Date,
): Promise<void> {
  await tenant.database.run('INSERT INTO skills VALUES ($1, $2, $3, $4, $5, true, $6::JSON, $7, $8)', [
    entry.external_id,
    vendor,
    entry.skill_cluster_id,
    entry.skill_type,
    entry.description,
    properties,
    skillContentHash(entry),
    timestampValue(time),
  ])
  const appender = await tenant.database.appender('skill_labels')
  appendLabels(appender, vendor, entry)
  appender.closeSync()
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
  await requireCluster(tenant, vendor, skill.skill_cluster_id)
  const entry: VocabularyEntrySkill = {
    external_id: skill.external_id,
    skill_cluster_id: skill.skill_cluster_id ?? null,
    skill_type: skill.skill_type,
    description: skill.description ?? null,
    names: { ...skill.names, [DEFAULT_VOCAB_LANGUAGE]: skill.skill_name },
    aliases: skill.aliases ?? {},
  }
  const time = new Date()
  return tenant.database.transaction(async () => {
    if (await findSkill(tenant, vendor, skill.external_id)) throw errors.conflict('skill', skill.external_id)
    await writeSkill(tenant, vendor, entry, propertiesJson(skill.custom_properties), time)
    return record(
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

type SkillReadOptions = { vocab_language?: string | undefined; include?: readonly string[] | undefined }

/**
 * Skills `ids` of a vendor as their GET answers them, in external_id order (those that exist):
 * three reads whatever their number (a page of 1,000 skills read one by one is a thousand reads).
 */
async function readSkills(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  ids: readonly string[],
  options: SkillReadOptions,
): Promise<SkillDetailResponse[]> {
  const include = includes(options)
  const language = await resolveVocabLanguage(tenant, vendor, options.vocab_language)
  const rows = await findSkills(tenant, vendor, ids)
  const labels = await labelsOfSkills(tenant, vendor, ids)
  return rows.map((row) => {
    const { names, aliases } = labels.get(row.external_id) ?? { names: {}, aliases: {} }
    const shown =
      nameFallbacks(language).find((candidate) => names[candidate] !== undefined) ??
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
    if (include.has('custom_properties')) {
      response.custom_properties = row.props ? (JSON.parse(row.props) as CustomProperties) : {}
    }
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
    await requireCluster(tenant, vendor, patch.skill_cluster_id)
  }
  const labels = await skillLabels(tenant, vendor, skillId)
  const names = { ...labels.names, ...patch.names }
  if (patch.skill_name !== undefined) names[DEFAULT_VOCAB_LANGUAGE] = patch.skill_name
  const entry: VocabularyEntrySkill = {
    external_id: skillId,
    skill_cluster_id: patch.skill_cluster_id === undefined ? row.skill_cluster_id : patch.skill_cluster_id,
    skill_type: patch.skill_type ?? row.skill_type,
    description: patch.description === undefined ? row.description : patch.description,
    names,
    aliases: { ...labels.aliases, ...patch.aliases },
  }
  const properties = propertiesJson(mergeProperties(row.props, patch.custom_properties))
  const contentChanged = skillContentHash(entry) !== row.content_hash
  if (!contentChanged && sameJson(properties, row.props)) return null
  const time = new Date()
  return tenant.database.transaction(async () => {
    await tenant.database.run('DELETE FROM skills WHERE external_vendor = $1 AND external_id = $2', [
      vendor,
      skillId,
    ])
    await tenant.database.run('DELETE FROM skill_labels WHERE external_vendor = $1 AND skill_id = $2', [
      vendor,
      skillId,
    ])
    await writeSkill(tenant, vendor, entry, properties, time)
    return record(
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
    await tenant.database.run('DELETE FROM skills WHERE external_vendor = $1 AND external_id = $2', [
      vendor,
      skillId,
    ])
    await tenant.database.run('DELETE FROM skill_labels WHERE external_vendor = $1 AND skill_id = $2', [
      vendor,
      skillId,
    ])
    return record(
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

// ---- Metrics and custom property definitions -----------------------------------------------------

/**
 * `GET /skill_clusters/metrics/count` (4.9): the number of Skill Clusters of the tenant's
 * activated vendors (vocabulary and custom), as a CollectionMetric whose entity_id is the tenant.
 * `last_update` is the newest change of a cluster (the tenant's creation when it has none).
 *
 * @deprecated The endpoint is deprecated by the spec (9.3); it stays for existing clients.
 */
export async function skillClusterCount(tenant: TaxonomyTenant): Promise<CollectionMetric> {
  const row = await tenant.database.one<{ n: number; last: Date | null }>(
    'SELECT count(*) AS n, max(updated_at) AS last FROM skill_clusters WHERE list_contains($1, external_vendor)',
    [listValue([...tenant.settings.vendors])],
  )
  return {
    entity_type: 'SkillCluster',
    entity_id: tenant.settings.name,
    metric_name: 'count',
    metric_value: Number(row?.n ?? 0),
    last_update: row?.last ? isoTime(row.last) : new Date(tenant.settings.created_at).toISOString(),
  }
}

function entityTypeOf(entityType: unknown): CustomPropertyEntityType {
  const parsed = CustomPropertyEntityType.safeParse(entityType)
  if (!parsed.success) {
    throw errors.unprocessable(
      `entity_type: '${String(entityType)}' does not carry custom properties; valid values: ${CUSTOM_PROPERTY_ENTITY_TYPES.join(', ')}`,
    )
  }
  return parsed.data
}

/**
 * `POST /{entity_type}/custom_properties`: defines a Custom Property (2.9) for an entity type.
 * 409 when the entity type already has a property of that name.
 */
export async function createCustomPropertyDefinition(
  tenant: TaxonomyTenant,
  entityType: unknown,
  definition: unknown,
): Promise<CustomPropertyDefinition> {
  const type = entityTypeOf(entityType)
  const parsed = parseInput(CustomPropertyDefinition, definition, 'a custom property definition')
  return tenant.database.transaction(async () => {
    const existing = await tenant.database.one(
      'SELECT 1 AS found FROM custom_property_definitions WHERE entity_type = $1 AND property_name = $2',
      [type, parsed.property_name],
    )
    if (existing) throw errors.conflict(`custom property of ${type}`, parsed.property_name)
    await tenant.database.run('INSERT INTO custom_property_definitions VALUES ($1, $2, $3, $4)', [
      type,
      parsed.property_name,
      parsed.property_type,
      timestampValue(new Date()),
    ])
    return parsed
  })
}

/** `GET /{entity_type}/custom_properties` (4.8): the definitions of an entity type, oldest first. */
export async function listCustomPropertyDefinitions(
  tenant: TaxonomyTenant,
  entityType: unknown,
): Promise<CustomPropertyDefinition[]> {
  const type = entityTypeOf(entityType)
  const rows = await tenant.database.all<{
    property_name: string
    property_type: CustomPropertyDefinition['property_type']
  }>(
    'SELECT property_name, property_type FROM custom_property_definitions WHERE entity_type = $1 ORDER BY created_at, property_name',
    [type],
  )
  return rows.map((row) => ({ property_name: row.property_name, property_type: row.property_type }))
}

/** A page of a taxonomy collection, the resource pattern's list answer (docs/api.md). */
export interface TaxonomyPage<T> {
  records: T[]
  has_next: boolean
  next_starting_after: string | null
}

/** The query of a taxonomy list: the page, and what a GET of one record takes. */
export interface TaxonomyListQuery {
  starting_after?: string | undefined
  limit?: string | undefined
  external_vendor?: string | undefined
  vocab_language?: string | undefined
  include?: readonly string[] | undefined
}

/**
 * One page of a taxonomy level or of the skills of a vendor, in external_id order: each record
 * exactly as its GET answers it (`getDomain`, `getSkill`, …), so that a list and a read agree.
 */
async function listLevel<T>(
  tenant: TaxonomyTenant,
  table: 'domains' | 'subdomains' | 'skill_clusters' | 'skills',
  query: TaxonomyListQuery,
  read: (vendor: ExternalVendor, ids: string[]) => Promise<T[]>,
): Promise<TaxonomyPage<T>> {
  const page = parseQuery(PageQuery, { starting_after: query.starting_after, limit: query.limit })
  const vendor = requireVendor(tenant, query.external_vendor)
  // The table name comes from the fixed union above, never from the request.
  const rows = await tenant.database.all<{ external_id: string }>(
    `SELECT DISTINCT external_id FROM ${table}
      WHERE external_vendor = $1 AND ($2::VARCHAR IS NULL OR external_id > $2)
      ORDER BY external_id LIMIT $3`,
    [vendor, page.starting_after ?? null, page.limit + 1],
  )
  const ids = rows.slice(0, page.limit).map((row) => row.external_id)
  const records = await read(vendor, ids)
  const has_next = rows.length > page.limit
  return { records, has_next, next_starting_after: has_next ? (ids.at(-1) ?? null) : null }
}

/** A page's reader from a record's: one read after another (a level has far fewer records than skills). */
const oneByOne =
  <T>(read: (vendor: ExternalVendor, id: string) => Promise<T>) =>
  async (vendor: ExternalVendor, ids: string[]): Promise<T[]> => {
    const records: T[] = []
    for (const id of ids) records.push(await read(vendor, id))
    return records
  }

const getOptions = (query: TaxonomyListQuery, vendor: ExternalVendor): TaxonomyGetOptions => ({
  external_vendor: vendor,
  ...(query.include ? { include: query.include } : {}),
})

/** `GET /taxonomy/domains`: a page of the Domains of a vendor's taxonomy. */
export function listDomains(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listLevel(
    tenant,
    'domains',
    query,
    oneByOne((vendor, id) => getDomain(tenant, id, getOptions(query, vendor))),
  )
}

/** `GET /taxonomy/subdomains`: a page of the Subdomains. */
export function listSubdomains(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listLevel(
    tenant,
    'subdomains',
    query,
    oneByOne((vendor, id) => getSubdomain(tenant, id, getOptions(query, vendor))),
  )
}

/** `GET /taxonomy/skill_clusters`: a page of the Skill Clusters. */
export function listSkillClusters(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listLevel(
    tenant,
    'skill_clusters',
    query,
    oneByOne((vendor, id) => getSkillCluster(tenant, id, getOptions(query, vendor))),
  )
}

/** `GET /taxonomy/skills`: a page of the vendor's Skills, the vocabulary's and the custom ones. */
export function listSkills(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listLevel(tenant, 'skills', query, (vendor, ids) =>
    readSkills(tenant, vendor, ids, {
      vocab_language: query.vocab_language,
      ...(query.include ? { include: query.include } : {}),
    }),
  )
}
