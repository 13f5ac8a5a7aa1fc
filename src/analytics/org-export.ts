import { errors } from '../errors/skillhouse-error.js'
import type { OrgNode } from '../schemas/analytics.js'
import { DEFAULT_VENDOR } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { requireVendor, type TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import { stringifyDeep } from './deep-json.js'

/** The value of the repeatable `include` parameter that adds low_data_availability (docs/api.md). */
export const LOW_DATA_INCLUDE = 'low_data_availability_flag'
const SKILL_ID_MAX = 100

/** Query of `GET /organisational_units/export` (4.6), names as in docs/api.md. */
export interface OrgExportOptions {
  skill_id?: string | null | undefined
  external_vendor?: string | null | undefined
  include?: readonly string[] | undefined
}

export interface OrgExport {
  organisational_structure: OrgNode[]
}

/** An Organisational Unit as the tree needs it. */
export type OrgUnitRow = {
  external_id: string
  name: string
  parent_id: string | null
}

/** Employees counted directly in one unit (not its descendants). */
export interface UnitCount {
  employees: number
  low_data: number
}

/**
 * Builds the hierarchy from plain rows, without recursion (any depth fits):
 * - a node's `total_nr_of_employees` (and `low_data_availability`) counts the employees of the unit
 *   and of all units below it, so that a parent's total is its own employees plus its children's
 *   totals and the roots add up to every counted employee, as a reader of an org chart expects;
 * - with `onlyPopulated` (the skill filter) a unit is kept only when its subtree counts someone,
 *   which keeps exactly the units with holders and their ancestors, so the tree stays connected;
 *   without it every unit is kept, empty ones with 0;
 * - roots are the units without a parent (a parent_id naming no unit counts as none, so no
 *   employee drops out of the export); roots and children are ordered by external_id.
 * A parent cycle (which ingest refuses) is an internal error naming the units in it.
 */
export function buildOrgTree(
  units: readonly OrgUnitRow[],
  counts: ReadonlyMap<string, UnitCount>,
  options: { onlyPopulated: boolean; lowData: boolean },
): OrgNode[] {
  const byId = new Map(units.map((unit) => [unit.external_id, unit]))
  const children = new Map<string, OrgUnitRow[]>()
  const roots: OrgUnitRow[] = []
  for (const unit of units) {
    if (unit.parent_id === null || unit.parent_id === unit.external_id || !byId.has(unit.parent_id)) {
      if (unit.parent_id === unit.external_id) throw cycleError([unit.external_id])
      roots.push(unit)
      continue
    }
    const siblings = children.get(unit.parent_id)
    if (siblings) siblings.push(unit)
    else children.set(unit.parent_id, [unit])
  }
  roots.sort(byExternalId)
  for (const siblings of children.values()) siblings.sort(byExternalId)

  // Pre-order with an explicit stack: parents before children, siblings in external_id order.
  const order: OrgUnitRow[] = []
  const stack = [...roots].reverse()
  while (stack.length > 0) {
    const unit = stack.pop() as OrgUnitRow
    order.push(unit)
    const below = children.get(unit.external_id)
    if (below) for (let index = below.length - 1; index >= 0; index--) stack.push(below[index] as OrgUnitRow)
  }
  if (order.length < units.length) {
    const reached = new Set(order.map((unit) => unit.external_id))
    throw cycleError(units.filter((unit) => !reached.has(unit.external_id)).map((unit) => unit.external_id))
  }

  // Subtree totals: children come after their parent in pre-order, so walk it backwards.
  const totals = new Map<string, UnitCount>()
  for (let index = order.length - 1; index >= 0; index--) {
    const unit = order[index] as OrgUnitRow
    const own = counts.get(unit.external_id)
    const total = { employees: own?.employees ?? 0, low_data: own?.low_data ?? 0 }
    for (const child of children.get(unit.external_id) ?? []) {
      const sub = totals.get(child.external_id) as UnitCount
      total.employees += sub.employees
      total.low_data += sub.low_data
    }
    totals.set(unit.external_id, total)
  }

  const nodes = new Map<string, OrgNode>()
  const top: OrgNode[] = []
  for (const unit of order) {
    const total = totals.get(unit.external_id) as UnitCount
    // A unit whose subtree counts nobody has no kept descendants either: skipping it drops them.
    if (options.onlyPopulated && total.employees === 0) continue
    const node: OrgNode = options.lowData
      ? {
          external_id: unit.external_id,
          name: unit.name,
          total_nr_of_employees: total.employees,
          low_data_availability: total.low_data,
          children: [],
        }
      : {
          external_id: unit.external_id,
          name: unit.name,
          total_nr_of_employees: total.employees,
          children: [],
        }
    nodes.set(unit.external_id, node)
    const parent = unit.parent_id === null ? undefined : nodes.get(unit.parent_id)
    if (parent) parent.children.push(node)
    else top.push(node)
  }
  return top
}

/**
 * The Organisational Structure export (4.6): `{organisational_structure}` of root units, each
 * with its children to any depth (see `buildOrgTree` for counting and order).
 *
 * - An employee counts in the unit named by its organisational_unit_id; employees without a unit
 *   are in no node.
 * - `skill_id` (with `external_vendor`, default vendor_default) counts only employees whose profile
 *   of that vendor holds the skill (suggested or validated) and keeps only units with such
 *   employees and their ancestors. A skill that the vendor's vocabulary and custom skills do not
 *   have is a 404 naming it and the vendor (a typo must not look like "nobody has it"); a known
 *   skill nobody holds gives an empty `organisational_structure`.
 * - `include: ['low_data_availability_flag']` adds `low_data_availability`: the counted employees
 *   whose profile of that vendor is flagged low data (fewer than 3 skills, or no skill event in the
 *   last 3 years) or who have no profile yet (nothing is known of them).
 * - A vendor that is not a vendor is a 422, one not activated on the tenant a 403 (as in the
 *   taxonomy); any other include value, or a skill_id over 100 characters, a 422.
 */
export async function exportOrganisation(
  tenant: TaxonomyTenant,
  options: OrgExportOptions = {},
): Promise<OrgExport> {
  const vendor = requireVendor(tenant, options.external_vendor ?? DEFAULT_VENDOR)
  const include = options.include ?? []
  const unknown = include.filter((value) => value !== LOW_DATA_INCLUDE)
  if (unknown.length > 0) {
    throw errors.unprocessable(
      unknown.map(
        (value) =>
          `include: '${value}' is not an include attribute of the organisational export; valid: ${LOW_DATA_INCLUDE}`,
      ),
    )
  }
  const skillId = options.skill_id ?? undefined
  if (skillId !== undefined) {
    if (skillId.length === 0 || skillId.length > SKILL_ID_MAX) {
      throw errors.unprocessable(
        `skill_id: must be 1 to ${SKILL_ID_MAX} characters long; got ${skillId.length}`,
      )
    }
    const known = await tenant.database.one(
      'SELECT 1 AS known FROM skills WHERE external_vendor = $1 AND external_id = $2',
      [vendor, skillId],
    )
    if (!known) {
      throw errors.notFound(
        'skill',
        skillId,
        `no skill with this id is in the ${vendor} vocabulary or the custom skills of tenant ${tenant.settings.name}; pass external_vendor for another vendor's skills`,
      )
    }
  }
  const units = await readOrgUnits(tenant.database)
  const counted = await tenant.database.all<{ unit: string; employees: number; low_data: number }>(
    `SELECT e.organisational_unit_id AS unit,
            count(*) AS employees,
            count(*) FILTER (WHERE coalesce(p.low_data, true)) AS low_data
       FROM employees e
       LEFT JOIN skill_profiles p
         ON p.entity_type = 'employee' AND p.entity_id = e.external_id AND p.external_vendor = $1
      WHERE e.organisational_unit_id IS NOT NULL
        AND ($2::VARCHAR IS NULL OR EXISTS (
              SELECT 1 FROM profile_skills s
               WHERE s.entity_type = 'employee' AND s.entity_id = e.external_id
                 AND s.external_vendor = $1 AND s.skill_id = $2))
      GROUP BY e.organisational_unit_id`,
    [vendor, skillId ?? null],
  )
  const counts = new Map(
    counted.map((row) => [row.unit, { employees: row.employees, low_data: row.low_data }]),
  )
  return {
    organisational_structure: buildOrgTree(units, counts, {
      onlyPopulated: skillId !== undefined,
      lowData: include.includes(LOW_DATA_INCLUDE),
    }),
  }
}

/** Every Organisational Unit as the tree needs it (`buildOrgTree`). */
export function readOrgUnits(database: TenantDatabase): Promise<OrgUnitRow[]> {
  return database.all<OrgUnitRow>(
    `SELECT external_id, json_extract_string(doc, '$.name') AS name, parent_id FROM organisational_units`,
  )
}

/**
 * The export as JSON text (compact, or indented by `indent`), safe at any depth: JSON.stringify
 * overflows the stack on a hierarchy some 2,500 levels deep. The server and `org export` both
 * write it with this, so batch and HTTP give the same bytes.
 */
export function orgExportJson(response: OrgExport, indent = 0): string {
  return stringifyDeep(response, indent)
}

const byExternalId = (a: OrgUnitRow, b: OrgUnitRow) =>
  a.external_id < b.external_id ? -1 : a.external_id > b.external_id ? 1 : 0

const cycleError = (ids: string[]) =>
  errors.internal(
    `organisational units ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ` and ${ids.length - 20} more` : ''} form a parent cycle; fix their parent_id (ingest refuses cycles, so the database was changed another way)`,
  )
