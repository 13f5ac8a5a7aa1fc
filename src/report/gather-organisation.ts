import type { OrgExport } from '../analytics/org-export.js'
import { forEachRow } from '../matching/profile-columns.js'
import type { OrgNode } from '../schemas/analytics.js'
import type { ExternalVendor } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import type { HeatmapUnit, OrganisationHeatmap, Section } from './report-model.js'
import { NOT_DERIVED } from './section-notices.js'

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
 * The organisation heatmap: units of the organisational export (4.6, `org`, as the overview read
 * it) down to `depth` (roots are depth 1) against skill clusters or subdomains. A cell is the
 * share of the unit's employees (its `total_nr_of_employees`: the unit and every unit below it)
 * who hold at least one skill of the group at level 3 or more. Holders are counted per unit and
 * group by one aggregate, and each unit's count is added to the shown units above it in the
 * export's own tree, so numerator and denominator count the same people.
 */
export async function gatherOrganisation(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  org: OrgExport,
  options: { depth: number; group_by: 'skill_cluster' | 'subdomain'; derived: boolean; employees: number },
): Promise<Section<OrganisationHeatmap>> {
  const roots = org.organisational_structure
  const inUnits = roots.reduce((sum, root) => sum + root.total_nr_of_employees, 0)
  if (inUnits === 0 && options.derived && options.employees > 0)
    return gatherByJob(tenant, vendor, { ...options, units: roots.length })
  const notice = heatmapNotice(roots.length, inUnits, options.derived)
  if (notice !== undefined) return { notice }
  const shown = unitsToDepth(roots, options.depth)
  const rows = shown.map(({ node, depth }) => ({
    external_id: node.external_id,
    name: node.name,
    depth,
    employees: node.total_nr_of_employees,
  }))
  return heatmapOf(tenant, vendor, options, rows, {
    rowColumn: UNIT_COLUMN,
    ancestors: shownAncestors(roots, options.depth),
    roots: roots.length,
    rows_by: 'units',
    employees_without_unit: options.employees - inUnits,
  })
}

/** What a row of the heatmap is, by the employees' column their holders are counted by. */
const UNIT_COLUMN = 'e.organisational_unit_id'
const JOB_COLUMN = "coalesce(e.job_id, '')"

/**
 * The heatmap of rows (units, or jobs) whose employees' holders count at `ancestors` positions
 * (the row itself, the shown rows above it, then its root after the shown rows).
 */
async function heatmapOf(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  options: { depth: number; group_by: 'skill_cluster' | 'subdomain' },
  rows: Omit<HeatmapUnit, 'holders'>[],
  by: {
    rowColumn: typeof UNIT_COLUMN | typeof JOB_COLUMN
    ancestors: Map<string, number[]>
    roots: number
    rows_by: OrganisationHeatmap['rows_by']
    employees_without_unit: number
  },
): Promise<Section<OrganisationHeatmap>> {
  const grouping = GROUPINGS[options.group_by]
  const perGroup = await countHolders(tenant.database, vendor, grouping.column, by.rowColumn, {
    ancestors: by.ancestors,
    positions: rows.length + by.roots,
  })
  if (perGroup.size === 0)
    return { notice: `No employee holds any skill at level ${HEATMAP_LEVEL} or more yet.` }
  const names = new Map(
    (await tenant.database.all<{ external_id: string; name: string }>(grouping.names, [vendor])).map(
      (row) => [row.external_id, row.name],
    ),
  )
  const groups = rankedGroups(perGroup, names, rows.length, by.roots)
  return {
    group_by: options.group_by,
    rows_by: by.rows_by,
    depth: options.depth,
    groups: groups.map(({ perUnit: _, ...group }) => group),
    charted_groups: Math.min(HEATMAP_COLUMNS, groups.length),
    units: rows.map((row, position) => ({
      ...row,
      holders: groups.map((group) => group.perUnit[position] as number),
    })),
    employees_without_unit: by.employees_without_unit,
  }
}

/**
 * A tenant whose employees sit in no organisational unit (it has none, or places no one in them)
 * still has skills to show: the heatmap's rows are then all employees, and below them each job
 * the employees hold (`job_id`), most staffed first, and those without a job.
 */
async function gatherByJob(
  tenant: TaxonomyTenant,
  vendor: ExternalVendor,
  options: { depth: number; group_by: 'skill_cluster' | 'subdomain'; employees: number; units: number },
): Promise<Section<OrganisationHeatmap>> {
  const jobs = await tenant.database.all<{ job: string; title: string | null; employees: number }>(
    `SELECT coalesce(e.job_id, '') AS job, j.doc->>'title' AS title, count(*)::INTEGER AS employees
       FROM employees e LEFT JOIN jobs j ON j.external_id = e.job_id
      GROUP BY ALL ORDER BY employees DESC, job`,
  )
  const rows = [
    { external_id: '', name: 'All employees', depth: 1, employees: options.employees },
    ...jobs.map((job) => ({
      external_id: job.job,
      name: job.job === '' ? 'Without a job' : (job.title ?? job.job),
      depth: 2,
      employees: job.employees,
    })),
  ]
  const ancestors = new Map(jobs.map((job, index) => [job.job, [index + 1, 0, rows.length]]))
  return heatmapOf(tenant, vendor, options, rows, {
    rowColumn: JOB_COLUMN,
    ancestors,
    roots: 1,
    rows_by: 'jobs',
    employees_without_unit: 0,
  })
}

/** Why the heatmap has nothing to compare, or undefined when it has. */
function heatmapNotice(units: number, employeesInUnits: number, derived: boolean): string | undefined {
  if (units === 0)
    return 'The tenant has no organisational units, so there is nothing to compare across the organisation.'
  if (employeesInUnits === 0)
    return 'No employee belongs to an organisational unit, so there is nothing to compare across the organisation.'
  if (!derived) return `${NOT_DERIVED}, so no one holds a skill yet.`
  return undefined
}

/**
 * Per group: the employees holding one of its skills at the heatmap's level, added to each
 * position their unit counts at (`ancestors`: the shown units above it, then its root), in one
 * aggregate over the profiles.
 */
async function countHolders(
  database: TenantDatabase,
  vendor: ExternalVendor,
  groupColumn: (typeof GROUPINGS)[keyof typeof GROUPINGS]['column'],
  rowColumn: typeof UNIT_COLUMN | typeof JOB_COLUMN,
  units: { ancestors: Map<string, number[]>; positions: number },
): Promise<Map<string, Int32Array>> {
  const perGroup = new Map<string, Int32Array>()
  await forEachRow(
    database,
    `SELECT ${rowColumn}, h.group_id, count(*)::INTEGER
       FROM (SELECT DISTINCT p.entity_id, ${groupColumn} AS group_id
               FROM profile_skills p
               JOIN skills s ON s.external_id = p.skill_id AND s.external_vendor = p.external_vendor
               LEFT JOIN skill_clusters c ON c.external_id = s.skill_cluster_id AND c.external_vendor = s.external_vendor
              WHERE p.entity_type = 'employee' AND p.external_vendor = $1
                AND coalesce(p.governed_proficiency_level, p.proficiency_level) >= ${HEATMAP_LEVEL}
                AND ${groupColumn} IS NOT NULL) h
       JOIN employees e ON e.external_id = h.entity_id
      WHERE ${rowColumn} IS NOT NULL
      GROUP BY ALL`,
    [vendor],
    3,
    (values) => {
      const groupId = values[1] as string
      let holders = perGroup.get(groupId)
      if (!holders) {
        holders = new Int32Array(units.positions)
        perGroup.set(groupId, holders)
      }
      // A unit the export does not know (an id naming no unit) is in no node, as in the export.
      const above = units.ancestors.get(values[0] as string)
      if (above)
        for (const position of above)
          holders[position] = (holders[position] as number) + (values[2] as number)
    },
  )
  return perGroup
}

/** The groups with their names and whole-organisation holders (the roots' sum), most held first. */
function rankedGroups(
  perGroup: Map<string, Int32Array>,
  names: Map<string, string>,
  shownCount: number,
  rootCount: number,
) {
  const groups = [...perGroup.entries()].map(([groupId, holders]) => {
    let total = 0
    for (let root = 0; root < rootCount; root++) total += holders[shownCount + root] as number
    return { external_id: groupId, name: names.get(groupId) ?? groupId, holders: total, perUnit: holders }
  })
  groups.sort(
    (a, b) =>
      b.holders - a.holders || (a.external_id < b.external_id ? -1 : a.external_id > b.external_id ? 1 : 0),
  )
  return groups
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

/**
 * For every unit of the export's tree, where its employees count: the positions (in
 * `unitsToDepth` order) of itself and the units above it that are shown (down to `depth`), then
 * the position of its root among the roots, after the shown units. Without recursion.
 */
function shownAncestors(roots: readonly OrgNode[], depth: number): Map<string, number[]> {
  const out = new Map<string, number[]>()
  let shownPosition = 0
  const shownCount = unitsToDepth(roots, depth).length
  const stack: { node: OrgNode; depth: number; above: number[] }[] = roots
    .map((node, root) => ({ node, depth: 1, above: [shownCount + root] }))
    .reverse()
  while (stack.length > 0) {
    const entry = stack.pop() as { node: OrgNode; depth: number; above: number[] }
    // Pre-order, as unitsToDepth numbers the shown units.
    const above = entry.depth <= depth ? [shownPosition++, ...entry.above] : entry.above
    out.set(entry.node.external_id, above)
    for (let index = entry.node.children.length - 1; index >= 0; index--)
      stack.push({ node: entry.node.children[index] as OrgNode, depth: entry.depth + 1, above })
  }
  return out
}
