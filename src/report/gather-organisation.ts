import { buildOrgTree, exportOrganisation, readOrgUnits, type UnitCount } from '../analytics/org-export.js'
import type { ExternalVendor, OrgNode } from '../schemas/index.js'
import type { TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import type { HeatmapUnit, OrganisationHeatmap, Section } from './report-model.js'

/** The level from which a skill counts as held in the heatmap ("can do it on their own"). */
export const HEATMAP_LEVEL = 3
/** Columns the chart shows; the workbook has every group. */
export const HEATMAP_COLUMNS = 25

/** The group column of each grouping: constants of this module, never user input. */
const GROUPINGS = {
  skill_cluster: {
    column: 's.skill_cluster_id',
    names: `SELECT external_id, skill_cluster_name AS name FROM skill_clusters WHERE external_vendor = $1`,
  },
  subdomain: {
    column: 'c.subdomain_id',
    names: `SELECT external_id, subdomain_name AS name FROM subdomains WHERE external_vendor = $1`,
  },
} as const

/**
 * The organisation heatmap: units of the organisational export (4.6) down to `depth` (roots are
 * depth 1) against skill clusters or subdomains. A cell is the share of the unit's employees (its
 * `total_nr_of_employees`: the unit and every unit below it) who hold at least one skill of the
 * group at level 3 or more; holders are counted per unit and added up the tree by the export's
 * own `buildOrgTree`, so numerator and denominator count the same people.
 */
export async function gatherOrganisation(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  options: { depth: number; group_by: 'skill_cluster' | 'subdomain'; derived: boolean; employees: number },
): Promise<Section<OrganisationHeatmap>> {
  const database = tenant.database
  const org = await exportOrganisation(tenant, { external_vendor: vendor })
  if (org.organisational_structure.length === 0)
    return {
      notice:
        'The tenant has no organisational units, so there is nothing to compare across the organisation.',
    }
  const inUnits = org.organisational_structure.reduce((sum, root) => sum + root.total_nr_of_employees, 0)
  if (inUnits === 0)
    return {
      notice:
        'No employee belongs to an organisational unit, so there is nothing to compare across the organisation.',
    }
  if (!options.derived)
    return {
      notice:
        'Skill profiles have not been derived yet (run skillhouse derive or skillhouse run), so no one holds a skill yet.',
    }
  const grouping = GROUPINGS[options.group_by]
  const rows = await database.all<{ unit: string; group_id: string; n: number }>(
    `SELECT e.organisational_unit_id AS unit, ${grouping.column} AS group_id, count(DISTINCT e.external_id)::INTEGER AS n
       FROM employees e
       JOIN profile_skills p ON p.entity_type = 'employee' AND p.entity_id = e.external_id AND p.external_vendor = $1
       JOIN skills s ON s.external_id = p.skill_id AND s.external_vendor = p.external_vendor
       LEFT JOIN skill_clusters c ON c.external_id = s.skill_cluster_id AND c.external_vendor = s.external_vendor
      WHERE e.organisational_unit_id IS NOT NULL
        AND coalesce(p.governed_proficiency_level, p.proficiency_level) >= ${HEATMAP_LEVEL}
        AND ${grouping.column} IS NOT NULL
      GROUP BY ALL`,
    [vendor],
  )
  const perGroup = new Map<string, Map<string, UnitCount>>()
  for (const row of rows) {
    let counts = perGroup.get(row.group_id)
    if (!counts) {
      counts = new Map()
      perGroup.set(row.group_id, counts)
    }
    counts.set(row.unit, { employees: row.n, low_data: 0 })
  }
  if (perGroup.size === 0)
    return { notice: `No employee holds any skill at level ${HEATMAP_LEVEL} or more yet.` }
  const names = new Map(
    (await database.all<{ external_id: string; name: string }>(grouping.names, [vendor])).map((row) => [
      row.external_id,
      row.name,
    ]),
  )
  const units = await readOrgUnits(database)
  const shown = unitsToDepth(org.organisational_structure, options.depth)
  const groups = [...perGroup.entries()].map(([groupId, counts]) => {
    const totals = subtreeTotals(buildOrgTree(units, counts, { onlyPopulated: false, lowData: false }))
    return {
      external_id: groupId,
      name: names.get(groupId) ?? groupId,
      holders: org.organisational_structure.reduce(
        (sum, root) => sum + (totals.get(root.external_id) ?? 0),
        0,
      ),
      totals,
    }
  })
  groups.sort(
    (a, b) =>
      b.holders - a.holders || (a.external_id < b.external_id ? -1 : a.external_id > b.external_id ? 1 : 0),
  )
  return {
    group_by: options.group_by,
    depth: options.depth,
    groups: groups.map(({ totals: _, ...group }) => group),
    charted_groups: Math.min(HEATMAP_COLUMNS, groups.length),
    units: shown.map(
      ({ node, depth }): HeatmapUnit => ({
        external_id: node.external_id,
        name: node.name,
        depth,
        employees: node.total_nr_of_employees,
        holders: groups.map((group) => group.totals.get(node.external_id) ?? 0),
      }),
    ),
    employees_without_unit: options.employees - inUnits,
  }
}

/** The export's nodes down to `depth`, in its order (pre-order), without recursion. */
function unitsToDepth(roots: readonly OrgNode[], depth: number): { node: OrgNode; depth: number }[] {
  const out: { node: OrgNode; depth: number }[] = []
  const stack = [...roots].reverse().map((node) => ({ node, depth: 1 }))
  while (stack.length > 0) {
    const entry = stack.pop() as { node: OrgNode; depth: number }
    out.push(entry)
    if (entry.depth >= depth) continue
    for (let index = entry.node.children.length - 1; index >= 0; index--)
      stack.push({ node: entry.node.children[index] as OrgNode, depth: entry.depth + 1 })
  }
  return out
}

/** Every node's total_nr_of_employees by external_id. */
function subtreeTotals(roots: readonly OrgNode[]): Map<string, number> {
  const totals = new Map<string, number>()
  const stack = [...roots]
  while (stack.length > 0) {
    const node = stack.pop() as OrgNode
    totals.set(node.external_id, node.total_nr_of_employees)
    stack.push(...node.children)
  }
  return totals
}
