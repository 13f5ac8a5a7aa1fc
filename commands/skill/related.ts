import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { textTable } from '../../src/cli/text-table.js'
import { relatedSkillsOf } from '../../src/operations/recommend-operations.js'
import type { RelatedSkillsResponse } from '../../src/schemas/recommendations.js'
import { VENDORS } from '../../src/schemas/vendors.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class SkillRelated extends SkillhouseCommand {
  static override summary = 'The skills most associated with a skill (a skillhouse extension)'
  static override description =
    "Ranks the skills held together with SKILL_ID in the tenant's employee profiles by NPMI (normalised pointwise mutual information: how much more often two skills go together than their popularity predicts), counting only pairs that at least --min-support employees hold, merged with the skills of the same cluster in the taxonomy. Each skill says where it comes from: profiles, taxonomy or both. Computed from the current profiles. docs/recommendations.md explains the scores."
  static override examples = [
    '<%= config.bin %> skill related skl-python',
    '<%= config.bin %> skill related skl-python --limit 20 --min-support 5 --json',
  ]
  static override args = {
    skill_id: Args.string({ description: 'external_id of the skill', required: true }),
  }
  static override fieldFlags = { min_support: 'min-support' }
  static override flags = {
    tenant: tenantFlag,
    limit: Flags.integer({ description: 'most skills to list (default 10, at most 100)' }),
    'min-support': Flags.integer({ description: 'employees that must hold both skills (default 3)' }),
    'vocab-language': Flags.string({ description: 'language of the skill names (default en_uk)' }),
    'external-vendor': Flags.string({
      description: 'vocabulary vendor of the profiles (default vendor_default)',
      options: [...VENDORS],
    }),
  }

  async run(): Promise<RelatedSkillsResponse> {
    const { args, flags } = await this.parse(SkillRelated)
    const answer = await this.runOnTenant(flags, relatedSkillsOf, {
      skill_id: args.skill_id,
      limit: flags.limit,
      min_support: flags['min-support'],
      vocab_language: flags['vocab-language'],
      external_vendor: flags['external-vendor'],
    })
    if (answer.related.length === 0) {
      this.log(
        `no skill is associated with ${answer.skill_name} (${answer.holders} of ${answer.employees} employees hold it)`,
      )
    } else {
      this.log(
        `Skills related to ${answer.skill_name} (${answer.holders} of ${answer.employees} employees hold it):`,
      )
      const rows = answer.related.map((skill) => [
        skill.skill_name,
        skill.score.toFixed(3),
        skill.npmi === null ? '-' : skill.npmi.toFixed(3),
        String(skill.together),
        skill.sources.join('+'),
        skill.skill_id,
      ])
      for (const line of textTable(['SKILL', 'SCORE', 'NPMI', 'TOGETHER', 'FROM', 'ID'], rows, [1, 2, 3]))
        this.log(line)
    }
    return answer
  }
}
