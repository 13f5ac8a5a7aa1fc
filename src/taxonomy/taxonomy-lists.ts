import { PageQuery } from '../schemas/common.js'
import { parseQuery } from '../schemas/input-issues.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import { type PagedTable, pageIds } from '../store/taxonomy/page-ids.js'
import type { TaxonomyGetOptions } from './taxonomy-entity.js'
import { getDomain, getSkillCluster, getSubdomain } from './taxonomy-levels.js'
import { readSkills } from './taxonomy-skills.js'
import { requireVendor, type TaxonomyTenant } from './taxonomy-tenant.js'

/**
 * The taxonomy collections: pages of Domains, Subdomains, Skill Clusters and Skills in
 * external_id order, each record exactly as its GET answers it (`getDomain`, `getSkill`, …), so
 * that a list and a read agree.
 */

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

/** One page of `table` for the vendor the query names, its records read by `read`. */
async function listPage<T>(
  tenant: TaxonomyTenant,
  table: PagedTable,
  query: TaxonomyListQuery,
  read: (vendor: ExternalVendor, ids: string[]) => Promise<T[]>,
): Promise<TaxonomyPage<T>> {
  const page = parseQuery(PageQuery, { starting_after: query.starting_after, limit: query.limit })
  const vendor = requireVendor(tenant, query.external_vendor)
  // One more than the page holds tells whether a next page exists.
  const found = await pageIds(tenant.database, table, vendor, page.starting_after ?? null, page.limit + 1)
  const ids = found.slice(0, page.limit)
  const records = await read(vendor, ids)
  const has_next = found.length > page.limit
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
  return listPage(
    tenant,
    'domains',
    query,
    oneByOne((vendor, id) => getDomain(tenant, id, getOptions(query, vendor))),
  )
}

/** `GET /taxonomy/subdomains`: a page of the Subdomains. */
export function listSubdomains(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listPage(
    tenant,
    'subdomains',
    query,
    oneByOne((vendor, id) => getSubdomain(tenant, id, getOptions(query, vendor))),
  )
}

/** `GET /taxonomy/skill_clusters`: a page of the Skill Clusters. */
export function listSkillClusters(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listPage(
    tenant,
    'skill_clusters',
    query,
    oneByOne((vendor, id) => getSkillCluster(tenant, id, getOptions(query, vendor))),
  )
}

/** `GET /taxonomy/skills`: a page of the vendor's Skills, the vocabulary's and the custom ones. */
export function listSkills(tenant: TaxonomyTenant, query: TaxonomyListQuery) {
  return listPage(tenant, 'skills', query, (vendor, ids) =>
    readSkills(tenant, vendor, ids, {
      vocab_language: query.vocab_language,
      ...(query.include ? { include: query.include } : {}),
    }),
  )
}
