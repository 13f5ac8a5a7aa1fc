import type { z } from 'zod'
import { errors } from '../errors/skillhouse-error.js'
import type { CustomProperties, CustomPropertyEntityType } from '../schemas/custom-properties.js'
import {
  type CollectionMetric,
  Domain,
  SkillCluster,
  Subdomain,
  type SubdomainResponse,
  type TaxonomyChange,
  type TaxonomyOperationType,
} from '../schemas/taxonomy.js'
import {
  DomainPatch,
  type DomainResponse,
  SkillClusterPatch,
  type SkillClusterResponse,
  SubdomainPatch,
} from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { StampedCache, stampedIndex } from '../store/stamped-cache.js'
import {
  childIds,
  deleteLevelRow,
  findLevelRow,
  insertLevelRow,
  LEVEL_COLUMNS,
  type LevelRow,
  type LevelTable,
  readLevelRows,
  skillClusterTotals,
  updateLevelRow,
} from '../store/taxonomy/level-tables.js'
import { checkProperties } from './custom-property-definitions.js'
import {
  includes,
  mergeProperties,
  propertiesJson,
  recordChange,
  requireCustom,
  sameJson,
  storedProperties,
  type TaxonomyGetOptions,
  type TaxonomyOptions,
} from './taxonomy-entity.js'
import { isoTime, parseInput, requireVendor, type TaxonomyTenant } from './taxonomy-tenant.js'

/**
 * Domains (4.1), Subdomains (4.7) and Skill Clusters: the three levels above the skills, one
 * implementation over the three. Each level names its table (whose columns the store knows), its
 * parent level, and the entity types whose custom property definitions apply to it.
 */

interface Level {
  kind: 'domain' | 'subdomain' | 'skill cluster'
  operation: 'domain' | 'subdomain' | 'skill_cluster'
  table: LevelTable
  parent: Level | null
  /** What the entities that refer to this level are called. */
  childKind: string
  /** Entity types whose custom property definitions apply; the first is the canonical one. */
  entityTypes: readonly CustomPropertyEntityType[]
}

const DOMAIN: Level = {
  kind: 'domain',
  operation: 'domain',
  table: 'domains',
  parent: null,
  childKind: 'subdomain',
  entityTypes: ['taxonomy/domains'],
}
const SUBDOMAIN: Level = {
  kind: 'subdomain',
  operation: 'subdomain',
  table: 'subdomains',
  parent: DOMAIN,
  childKind: 'skill cluster',
  entityTypes: ['taxonomy/subdomains'],
}
// 2.9 lists both `taxonomy/skill_clusters` and `skill_clusters`: definitions of either apply.
const SKILL_CLUSTER: Level = {
  kind: 'skill cluster',
  operation: 'skill_cluster',
  table: 'skill_clusters',
  parent: SUBDOMAIN,
  childKind: 'skill',
  entityTypes: ['taxonomy/skill_clusters', 'skill_clusters'],
}

/** The names of a level's fields in requests and answers: its name and its parent's id. */
const fieldsOf = (level: Level) => LEVEL_COLUMNS[level.table]

async function requireEntity(
  tenant: TaxonomyTenant,
  level: Level,
  vendor: ExternalVendor,
  id: string,
): Promise<LevelRow> {
  const row = await findLevelRow(tenant.database, level.table, vendor, id)
  if (!row) throw notFoundIn(level, vendor, id)
  return row
}

const notFoundIn = (level: Level, vendor: ExternalVendor, id: string) =>
  errors.notFound(level.kind, id, `no ${level.kind} with this external_id exists in the ${vendor} taxonomy`)

const levelRows = new StampedCache<Map<string, LevelRow>>()

/**
 * `requireEntity` for a caller with a data version (the server's reads): a vendor's level is read
 * whole once per change of the data and kept in memory, so that a GET asks no query while the data
 * holds (a point query costs more than the rest of the request).
 */
async function keptEntity(
  tenant: TaxonomyTenant,
  level: Level,
  vendor: ExternalVendor,
  id: string,
): Promise<LevelRow> {
  const rows = await stampedIndex(
    levelRows,
    tenant.database,
    `${level.table}/${vendor}`,
    tenant.dataVersion,
    [level.table],
    async () =>
      new Map(
        (await readLevelRows(tenant.database, level.table, vendor)).map((row) => [row.external_id, row]),
      ),
  )
  const row = rows.get(id)
  if (!row) throw notFoundIn(level, vendor, id)
  return row
}

/** 404 unless `id` names an existing entity of the level above `level` (the one a child names). */
async function requireParent(tenant: TaxonomyTenant, level: Level, vendor: ExternalVendor, id: string) {
  const parent = level.parent as Level
  if (!(await findLevelRow(tenant.database, parent.table, vendor, id))) {
    throw errors.notFound(
      parent.kind,
      id,
      `the ${level.kind}'s ${fieldsOf(level).parent} must name an existing ${parent.kind} of ${vendor}; create it first`,
    )
  }
}

/** 404 unless a skill's cluster, when it names one, is an existing Skill Cluster of the vendor. */
export async function requireSkillCluster(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  clusterId: string | null | undefined,
): Promise<void> {
  if (clusterId === null || clusterId === undefined) return
  if (!(await findLevelRow(tenant.database, SKILL_CLUSTER.table, vendor, clusterId))) {
    throw errors.notFound(
      'skill cluster',
      clusterId,
      `the skill's skill_cluster_id must name an existing skill cluster of ${vendor}; create it first`,
    )
  }
}

type LevelInput = { external_id: string; custom_properties?: CustomProperties | undefined } & Record<
  string,
  unknown
>

async function createLevel(
  tenant: TaxonomyTenant,
  level: Level,
  schema: z.ZodType,
  input: unknown,
  options: TaxonomyOptions,
): Promise<TaxonomyChange> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const entity = parseInput(schema, input, `a ${level.kind}`) as LevelInput
  const fields = fieldsOf(level)
  await checkProperties(tenant, level.entityTypes, entity.custom_properties)
  const parent = fields.parent ? (entity[fields.parent] as string) : null
  if (parent !== null) await requireParent(tenant, level, vendor, parent)
  const name = entity[fields.name] as string
  const time = new Date()
  return tenant.database.transaction(async () => {
    if (await findLevelRow(tenant.database, level.table, vendor, entity.external_id))
      throw errors.conflict(level.kind, entity.external_id)
    const properties = propertiesJson(entity.custom_properties)
    await insertLevelRow(tenant.database, level.table, vendor, entity.external_id, {
      name,
      parent,
      properties,
      time,
    })
    const details: Record<string, unknown> = { [fields.name]: name }
    if (fields.parent) details[fields.parent] = parent
    const operation = `${level.operation}_created` as TaxonomyOperationType
    return recordChange(tenant, operation, entity.external_id, vendor, details, undefined, time)
  })
}

async function getLevel(
  tenant: TaxonomyTenant,
  level: Level,
  id: string,
  options: TaxonomyGetOptions,
): Promise<Record<string, unknown>> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const include = includes(options)
  const row =
    tenant.dataVersion === undefined
      ? await requireEntity(tenant, level, vendor, id)
      : await keptEntity(tenant, level, vendor, id)
  const fields = fieldsOf(level)
  const response: Record<string, unknown> = { external_id: row.external_id }
  if (fields.parent) response[fields.parent] = row.parent
  response[fields.name] = row.name
  response.last_updated = isoTime(row.updated_at)
  if (include.has('custom_properties')) response.custom_properties = storedProperties(row.props)
  return response
}

type LevelPatch = Record<string, unknown> & { custom_properties?: CustomProperties }

async function updateLevel(
  tenant: TaxonomyTenant,
  level: Level,
  schema: z.ZodType,
  id: string,
  input: unknown,
  options: TaxonomyOptions,
): Promise<TaxonomyChange | null> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const patch = parseInput(schema, input, `a ${level.kind} update`) as LevelPatch
  const row = await requireEntity(tenant, level, vendor, id)
  requireCustom(row, level.kind, id, vendor)
  await checkProperties(tenant, level.entityTypes, patch.custom_properties)
  const fields = fieldsOf(level)
  const name = (patch[fields.name] as string | undefined) ?? row.name
  const parent = fields.parent ? ((patch[fields.parent] as string | undefined) ?? row.parent) : null
  if (fields.parent && parent !== null && parent !== row.parent)
    await requireParent(tenant, level, vendor, parent)
  const properties = propertiesJson(mergeProperties(row.props, patch.custom_properties))
  const changed: string[] = []
  if (name !== row.name) changed.push(fields.name)
  if (fields.parent && parent !== row.parent) changed.push(fields.parent)
  if (!sameJson(properties, row.props)) changed.push('custom_properties')
  if (changed.length === 0) return null
  const time = new Date()
  return tenant.database.transaction(async () => {
    await updateLevelRow(tenant.database, level.table, vendor, id, { name, parent, properties, time })
    const operation = `${level.operation}_updated` as TaxonomyOperationType
    return recordChange(tenant, operation, id, vendor, { changed }, undefined, time)
  })
}

/** How many of the entities that still refer to one a 409 names. */
const CHILDREN_NAMED = 5

async function deleteLevel(
  tenant: TaxonomyTenant,
  level: Level,
  id: string,
  options: TaxonomyOptions,
): Promise<TaxonomyChange> {
  const vendor = requireVendor(tenant, options.external_vendor)
  const row = await requireEntity(tenant, level, vendor, id)
  requireCustom(row, level.kind, id, vendor)
  const children = await childIds(tenant.database, level.table, vendor, id, CHILDREN_NAMED + 1)
  if (children.length) {
    // 409: the request conflicts with the entities that still refer to this one.
    throw errors.taxonomyEntityInUse({
      kind: level.kind,
      id,
      childKind: level.childKind,
      named: children.slice(0, CHILDREN_NAMED),
      more: children.length > CHILDREN_NAMED,
    })
  }
  const time = new Date()
  return tenant.database.transaction(async () => {
    await deleteLevelRow(tenant.database, level.table, vendor, id)
    const operation = `${level.operation}_deleted` as TaxonomyOperationType
    return recordChange(tenant, operation, id, vendor, {}, undefined, time)
  })
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

/**
 * `GET /skill_clusters/metrics/count` (4.9): the number of Skill Clusters of the tenant's
 * activated vendors (vocabulary and custom), as a CollectionMetric whose entity_id is the tenant.
 * `last_update` is the newest change of a cluster (the tenant's creation when it has none).
 *
 * @deprecated The endpoint is deprecated by the spec (9.3); it stays for existing clients.
 */
export async function skillClusterCount(tenant: TaxonomyTenant): Promise<CollectionMetric> {
  const totals = await skillClusterTotals(tenant.database, tenant.settings.vendors)
  return {
    entity_type: 'SkillCluster',
    entity_id: tenant.settings.name,
    metric_name: 'count',
    metric_value: totals.count,
    last_update: totals.last ? isoTime(totals.last) : new Date(tenant.settings.created_at).toISOString(),
  }
}
