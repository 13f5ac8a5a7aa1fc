import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stringifyDeep } from '../../src/analytics/deep-json.js'
import { buildOrgTree, exportOrganisation, orgExportJson } from '../../src/analytics/org-export.js'
import { OrgExportResponse, type OrgNode } from '../../src/schemas/index.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { createAnalyticsTenant } from './analytics-tenant.js'

/** A node without children arrays, for compact expectations: [id, total, low data?, children]. */
type Shape = [string, number, ...unknown[]]
function shape(nodes: readonly OrgNode[]): Shape[] {
  return nodes.map((node) => [
    node.external_id,
    node.total_nr_of_employees,
    ...(node.low_data_availability === undefined ? [] : [node.low_data_availability]),
    shape(node.children),
  ])
}

/** Every node of a tree, without recursion. */
function allNodes(roots: readonly OrgNode[]): OrgNode[] {
  const nodes: OrgNode[] = []
  const stack = [...roots]
  while (stack.length > 0) {
    const node = stack.pop() as OrgNode
    nodes.push(node)
    stack.push(...node.children)
  }
  return nodes
}

describe('organisational structure export', () => {
  const temp = tempDir()
  let tenant: OpenTenant

  beforeAll(async () => {
    tenant = await createAnalyticsTenant(join(temp.dir, 'data'))
  })
  afterAll(() => {
    tenant.database.close()
    temp.cleanup()
  })

  it('puts only root units at the top and counts each subtree, down to depth 6', async () => {
    const result = await exportOrganisation(tenant)
    expect(OrgExportResponse.parse(result)).toEqual(result)
    // Hand-computed: a1x1a1 2; a1x1a 1+2; a1x1 3; a1x 3; a1 1+3; a2 2; a 1+4+2; b1 1; b 1+1; c 0.
    expect(shape(result.organisational_structure)).toEqual([
      [
        'ou-a',
        7,
        [
          ['ou-a1', 4, [['ou-a1x', 3, [['ou-a1x1', 3, [['ou-a1x1a', 3, [['ou-a1x1a1', 2, []]]]]]]]]],
          ['ou-a2', 2, []],
        ],
      ],
      ['ou-b', 2, [['ou-b1', 1, []]]],
      ['ou-c', 0, []],
    ])
    expect(result.organisational_structure[0]?.name).toBe('Alpha')
  })

  it("makes every parent's total its own employees plus its children's totals", async () => {
    const result = await exportOrganisation(tenant, { include: ['low_data_availability_flag'] })
    const own = new Map<string, number>([
      ['ou-a', 1],
      ['ou-a1', 1],
      ['ou-a1x1a', 1],
      ['ou-a1x1a1', 2],
      ['ou-a2', 2],
      ['ou-b', 1],
      ['ou-b1', 1],
    ])
    for (const node of allNodes(result.organisational_structure)) {
      const children = node.children.reduce((sum, child) => sum + child.total_nr_of_employees, 0)
      expect(node.total_nr_of_employees).toBe((own.get(node.external_id) ?? 0) + children)
      const low = node.children.reduce((sum, child) => sum + (child.low_data_availability ?? 0), 0)
      expect(node.low_data_availability).toBeGreaterThanOrEqual(low)
    }
    // Nine employees have a unit (e-none has none): the roots add up to them.
    expect(result.organisational_structure.reduce((sum, root) => sum + root.total_nr_of_employees, 0)).toBe(9)
  })

  it('adds low data counts per subtree, counting an employee without a profile as low data', async () => {
    const result = await exportOrganisation(tenant, { include: ['low_data_availability_flag'] })
    // Low data: e-a1, e-a2-1, e-b, and e-deep-2 (no profile); e-none has no unit.
    expect(shape(result.organisational_structure)).toEqual([
      [
        'ou-a',
        7,
        3,
        [
          [
            'ou-a1',
            4,
            2,
            [['ou-a1x', 3, 1, [['ou-a1x1', 3, 1, [['ou-a1x1a', 3, 1, [['ou-a1x1a1', 2, 1, []]]]]]]]],
          ],
          ['ou-a2', 2, 1, []],
        ],
      ],
      ['ou-b', 2, 1, [['ou-b1', 1, 0, []]]],
      ['ou-c', 0, 0, []],
    ])
    expect(Object.keys(result.organisational_structure[0] as object)).toEqual([
      'external_id',
      'name',
      'total_nr_of_employees',
      'low_data_availability',
      'children',
    ])
  })

  it('leaves low_data_availability out unless it is asked for', async () => {
    const result = await exportOrganisation(tenant)
    for (const node of allNodes(result.organisational_structure))
      expect(node).not.toHaveProperty('low_data_availability')
  })

  it('with skill_id keeps the units of its holders and their ancestors, counting only the holders', async () => {
    const result = await exportOrganisation(tenant, {
      skill_id: 'skl-python',
      include: ['low_data_availability_flag'],
    })
    // vendor_default holders: e-deep-1 (ou-a1x1a1), e-b1 (ou-b1), e-b (ou-b, low data). e-a2-1 holds
    // it only with vendor_a, so ou-a2 goes; ou-c has nobody; the chain above ou-a1x1a1 stays.
    expect(shape(result.organisational_structure)).toEqual([
      [
        'ou-a',
        1,
        0,
        [
          [
            'ou-a1',
            1,
            0,
            [['ou-a1x', 1, 0, [['ou-a1x1', 1, 0, [['ou-a1x1a', 1, 0, [['ou-a1x1a1', 1, 0, []]]]]]]]],
          ],
        ],
      ],
      ['ou-b', 2, 1, [['ou-b1', 1, 0, []]]],
    ])
  })

  it('answers an empty structure for a known skill nobody holds', async () => {
    expect(await exportOrganisation(tenant, { skill_id: 'skl-forklift-operation' })).toEqual({
      organisational_structure: [],
    })
  })

  it('rejects a skill_id the vendor does not have with 404 naming the skill and the vendor', async () => {
    const error = await exportOrganisation(tenant, { skill_id: 'skl-nope' }).catch((e) => e)
    expect(error).toMatchObject({ status: 404 })
    expect(error.message).toMatch(
      /skill 'skl-nope' does not exist; no skill with this id is in the vendor_default vocabulary/,
    )
    // vendor_a is activated but its vocabulary is empty: Python is unknown there.
    await expect(
      exportOrganisation(tenant, { skill_id: 'skl-python', external_vendor: 'vendor_a' }),
    ).rejects.toMatchObject({
      status: 404,
    })
  })

  it('rejects a vendor not activated with 403, a value that is no vendor and an unknown include with 422', async () => {
    await expect(exportOrganisation(tenant, { external_vendor: 'vendor_b' })).rejects.toMatchObject({
      status: 403,
    })
    await expect(exportOrganisation(tenant, { external_vendor: 'nobody' })).rejects.toMatchObject({
      status: 422,
    })
    const error = await exportOrganisation(tenant, { include: ['custom_properties'] }).catch((e) => e)
    expect(error).toMatchObject({ status: 422 })
    expect(error.message).toMatch(/include: 'custom_properties' .* valid: low_data_availability_flag/)
    await expect(exportOrganisation(tenant, { skill_id: 'x'.repeat(101) })).rejects.toMatchObject({
      status: 422,
    })
  })
})

describe('the organisational tree on plain rows', () => {
  it('orders roots and children by external_id whatever the input order', () => {
    const tree = buildOrgTree(
      [
        { external_id: 'r2', name: 'R2', parent_id: null },
        { external_id: 'c-b', name: 'B', parent_id: 'r1' },
        { external_id: 'r1', name: 'R1', parent_id: null },
        { external_id: 'c-a', name: 'A', parent_id: 'r1' },
        { external_id: 'C-z', name: 'Z', parent_id: 'r1' },
      ],
      new Map(),
      { onlyPopulated: false, lowData: false },
    )
    expect(shape(tree)).toEqual([
      [
        'r1',
        0,
        [
          ['C-z', 0, []],
          ['c-a', 0, []],
          ['c-b', 0, []],
        ],
      ],
      ['r2', 0, []],
    ])
  })

  it('treats a unit whose parent does not exist as a root, so that no employee is lost', () => {
    const tree = buildOrgTree(
      [{ external_id: 'orphan', name: 'Orphan', parent_id: 'gone' }],
      new Map([['orphan', { employees: 2, low_data: 0 }]]),
      { onlyPopulated: false, lowData: false },
    )
    expect(shape(tree)).toEqual([['orphan', 2, []]])
  })

  it('refuses a parent cycle with an internal error naming its units', () => {
    expect(() =>
      buildOrgTree(
        [
          { external_id: 'root', name: 'Root', parent_id: null },
          { external_id: 'x', name: 'X', parent_id: 'y' },
          { external_id: 'y', name: 'Y', parent_id: 'x' },
        ],
        new Map(),
        { onlyPopulated: false, lowData: false },
      ),
    ).toThrow(/organisational units x, y form a parent cycle/)
  })

  it('builds, counts and writes a hierarchy 100,000 levels deep without overflowing the stack', () => {
    const depth = 100_000
    const units = Array.from({ length: depth }, (_, index) => ({
      external_id: `u${String(index).padStart(6, '0')}`,
      name: `Unit ${index}`,
      parent_id: index === 0 ? null : `u${String(index - 1).padStart(6, '0')}`,
    }))
    const counts = new Map(units.map((unit) => [unit.external_id, { employees: 1, low_data: 0 }]))
    const tree = buildOrgTree(units, counts, { onlyPopulated: true, lowData: true })
    expect(tree).toHaveLength(1)
    let node = tree[0] as OrgNode
    let level = 0
    let wrongTotals = 0
    while (node.children.length > 0) {
      if (node.total_nr_of_employees !== depth - level) wrongTotals++
      node = node.children[0] as OrgNode
      level++
    }
    expect(level).toBe(depth - 1)
    expect(wrongTotals).toBe(0)
    expect(node.total_nr_of_employees).toBe(1)
    const text = orgExportJson({ organisational_structure: tree })
    expect(
      text.startsWith(
        '{"organisational_structure":[{"external_id":"u000000","name":"Unit 0","total_nr_of_employees":100000,"low_data_availability":0,"children":[',
      ),
    ).toBe(true)
    expect(text.length).toBeGreaterThan(depth * 80)
  })
})

describe('JSON without recursion', () => {
  it.each([0, 2])('writes the same bytes as JSON.stringify with indent %i', (indent) => {
    const value = {
      a: [1, 'two', null, true, { b: [], c: {} }, undefined],
      d: undefined,
      e: 'quote " and \\ and \n and é',
      f: new Date('2026-11-21T10:00:00Z'),
      g: [[[]], [{}]],
      h: -0.5,
    }
    expect(stringifyDeep(value, indent)).toBe(JSON.stringify(value, null, indent))
  })
})
