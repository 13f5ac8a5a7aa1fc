import { existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { LOW_DATA_INCLUDE, type OrgExport, orgExportJson } from '../../src/analytics/org-export.js'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { exportOrgStructure } from '../../src/operations/analytics-operations.js'
import type { OrgNode } from '../../src/schemas/analytics.js'
import { VENDORS } from '../../src/schemas/vendors.js'
import { writeFileAtomic } from '../../src/util/atomic-file.js'
import { Flags } from '../../src/vendor/oclif.js'

/** The file name of the export in an output folder (docs/operations.md, batch outputs). */
const OUTPUT_FILE = 'org_structure.json'

export default class OrgExportCommand extends SkillhouseCommand {
  static override summary = 'Export the organisational structure as a hierarchy (section 4.6)'
  static override description =
    `Root units at the top, children to any depth, ordered by external_id. A unit's total_nr_of_employees counts its own employees and those of every unit below it. --skill-id keeps only units with employees holding that skill (and their ancestors) and counts only those employees; --low-data adds low_data_availability. --out writes the spec-shaped JSON (compact, one line) whole or not at all: to ${OUTPUT_FILE} inside a folder (an existing one, or a path ending in /), else to the file named.`
  static override examples = [
    '<%= config.bin %> org export',
    '<%= config.bin %> org export --skill-id skl-python --low-data --out out/',
    '<%= config.bin %> org export --json > org_structure.json',
  ]
  static override flags = {
    tenant: tenantFlag,
    'skill-id': Flags.string({ description: 'count only employees holding this skill' }),
    'low-data': Flags.boolean({ description: `add low_data_availability (include=${LOW_DATA_INCLUDE})` }),
    'external-vendor': Flags.string({
      description: 'vocabulary vendor of --skill-id and of the profiles (default vendor_default)',
      options: [...VENDORS],
    }),
    out: Flags.string({ description: `folder (receives ${OUTPUT_FILE}) or file to write` }),
  }

  async run(): Promise<OrgExport | { path: string; units: number } | undefined> {
    const { flags } = await this.parse(OrgExportCommand)
    const result = await this.runOnTenant(flags, exportOrgStructure, {
      skill_id: flags['skill-id'],
      external_vendor: flags['external-vendor'],
      include: flags['low-data'] ? [LOW_DATA_INCLUDE] : [],
    })
    if (flags.out !== undefined) {
      const isFolder = flags.out.endsWith('/') || (existsSync(flags.out) && statSync(flags.out).isDirectory())
      const path = isFolder ? join(flags.out, OUTPUT_FILE) : flags.out
      mkdirSync(dirname(path), { recursive: true })
      writeFileAtomic(path, `${orgExportJson(result)}\n`)
      const units = countUnits(result.organisational_structure)
      this.log(`${units} units written to ${path}`)
      return { path, units }
    }
    if (this.jsonEnabled()) {
      // oclif's JSON output recurses and overflows on deep hierarchies: write it ourselves, compact,
      // because indentation grows with depth squared (a 3,000-level chain would be 100 MB).
      process.stdout.write(`${orgExportJson(result)}\n`)
      return undefined
    }
    for (const line of treeLines(result.organisational_structure)) this.log(line)
    return result
  }
}

/** Units in the tree, counted without recursion. */
function countUnits(roots: readonly OrgNode[]): number {
  let count = 0
  const stack = [...roots]
  while (stack.length > 0) {
    const node = stack.pop() as OrgNode
    count++
    stack.push(...node.children)
  }
  return count
}

const MAX_INDENT = 40

/** One indented line per unit, in export order, without recursion. */
function treeLines(roots: readonly OrgNode[]): string[] {
  const lines: string[] = []
  const stack = [...roots].reverse().map((node) => ({ node, depth: 0 }))
  while (stack.length > 0) {
    const { node, depth } = stack.pop() as { node: OrgNode; depth: number }
    const lowData = node.low_data_availability === undefined ? '' : `, ${node.low_data_availability} low data`
    // Indentation stops growing at MAX_INDENT levels so that a very deep hierarchy stays printable.
    const indent = depth > MAX_INDENT ? `${'  '.repeat(MAX_INDENT)}[level ${depth}] ` : '  '.repeat(depth)
    lines.push(
      `${indent}${node.name} (${node.external_id}): ${node.total_nr_of_employees} employees${lowData}`,
    )
    for (let index = node.children.length - 1; index >= 0; index--) {
      stack.push({ node: node.children[index] as OrgNode, depth: depth + 1 })
    }
  }
  return lines
}
