import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { textTable } from '../src/cli/text-table.js'
import { gapOfEmployee } from '../src/operations/analytics-operations.js'
import type { SkillGapEntry } from '../src/schemas/analytics.js'
import { VENDORS } from '../src/schemas/vendors.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Gap extends SkillhouseCommand {
  static override summary = 'The skills a vacancy asks for that an employee lacks (section 4.5)'
  static override description =
    "Lists the skills of the vacancy's profile that the employee does not hold, or holds below the level the vacancy asks for when both levels are known: critical skills first, then by how strongly the vacancy asks for them, then by skill_id. --vocab-language changes only the names (en, en_uk, en_us, de, fr, nl, the vendor_a extras, or a BCP 47 tag such as en-US)."
  static override examples = [
    '<%= config.bin %> gap --employee emp-10004 --vacancy vac-0001',
    '<%= config.bin %> gap --employee emp-10004 --vacancy vac-0001 --vocab-language nl-BE --json',
  ]
  static override flags = {
    tenant: tenantFlag,
    employee: Flags.string({ description: 'external_id of the employee', required: true }),
    vacancy: Flags.string({ description: 'external_id of the vacancy', required: true }),
    'vocab-language': Flags.string({ description: 'language of the skill names (default en_uk)' }),
    'external-vendor': Flags.string({
      description: 'vocabulary vendor of the profiles (default vendor_default)',
      options: [...VENDORS],
    }),
  }

  async run(): Promise<SkillGapEntry[]> {
    const { flags } = await this.parse(Gap)
    const { gap, detail } = await this.runOnTenant(flags, gapOfEmployee, {
      employee: flags.employee,
      vacancy: flags.vacancy,
      vocab_language: flags['vocab-language'],
      external_vendor: flags['external-vendor'],
    })
    if (gap.length === 0) this.log(`${flags.employee} holds every skill vacancy ${flags.vacancy} asks for`)
    else {
      this.log(
        `${flags.employee} lacks ${gap.length} skills of vacancy ${flags.vacancy}, most important first:`,
      )
      const level = (value: number | null) => (value === null ? '-' : String(value))
      const rows = detail.map((skill) => [
        skill.critical ? '*' : '',
        skill.skill_name,
        skill.reason === 'missing' ? 'missing' : 'below level',
        level(skill.required_level),
        skill.reason === 'missing' ? '-' : level(skill.held_level),
        skill.skill_id,
      ])
      for (const line of textTable(['CRITICAL', 'SKILL', 'GAP', 'NEEDS', 'HOLDS', 'ID'], rows, [3, 4]))
        this.log(line)
    }
    return gap
  }
}
