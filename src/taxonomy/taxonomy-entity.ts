import { errors } from '../errors/skillhouse-error.js'
import type { CustomProperties } from '../schemas/custom-properties.js'
import type { TaxonomyChange, TaxonomyOperationType } from '../schemas/taxonomy.js'
import { TaxonomyInclude } from '../schemas/taxonomy-operations.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { recordTaxonomyChange, type SkillChangeIds } from './taxonomy-changes.js'
import { eventContextOf, parseInput, type TaxonomyTenant } from './taxonomy-tenant.js'

/**
 * What the operations on every taxonomy entity (Domain, Subdomain, Skill Cluster, Skill) share:
 * their options, the rule that only custom entities change, the merge of custom properties, and
 * the change each write records.
 */

/** Options every operation takes: the vendor whose taxonomy it works in. */
export interface TaxonomyOptions {
  external_vendor?: string | undefined
}

/** Options of a GET: the vendor and the optional attributes (`custom_properties`). */
export interface TaxonomyGetOptions extends TaxonomyOptions {
  include?: readonly string[] | undefined
}

/** 403 for an entity of an imported vocabulary: only custom entities can be changed. */
export function requireCustom(
  row: { custom: boolean },
  kind: string,
  id: string,
  vendor: ExternalVendor,
): void {
  if (!row.custom) {
    throw errors.forbidden(
      `${kind} '${id}' belongs to the ${vendor} vocabulary and cannot be changed; only custom ${kind}s can (create one with its own external_id)`,
    )
  }
}

/** Merges a PATCH's custom properties into the stored ones; a null value removes the property. */
export function mergeProperties(
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

/** Custom properties as the JSON text a row stores; null for none. */
export const propertiesJson = (values: CustomProperties | null | undefined) =>
  values && Object.keys(values).length ? JSON.stringify(values) : null

/** Stored custom properties as a GET answers them: `{}` for none. */
export const storedProperties = (props: string | null): CustomProperties =>
  props ? (JSON.parse(props) as CustomProperties) : {}

/** Whether two JSON texts (or nulls) hold the same value, key order included. */
export function sameJson(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b
  return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b))
}

/** The optional attributes a GET asked for; 422 naming `include` for an unknown one. */
export function includes(options: TaxonomyGetOptions): Set<string> {
  return new Set(parseInput(TaxonomyInclude, options.include ?? [], 'include', 'include'))
}

/** Records one change of the vendor's taxonomy (and the skill events of `skills`) at `time`. */
export async function recordChange(
  tenant: TaxonomyTenant,
  operation: TaxonomyOperationType,
  id: string,
  vendor: ExternalVendor,
  details: Record<string, unknown>,
  skills: SkillChangeIds | undefined,
  time: Date,
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
