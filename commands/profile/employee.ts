import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { textTable } from '../../src/cli/text-table.js'
import { readProfile } from '../../src/operations/profile-operations.js'
import type { ProfileOwner, SkillProfileResponse } from '../../src/profiles/read-profile.js'
import { VENDORS } from '../../src/schemas/vendors.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

/** `profile employee|job|course ID`: one command class per owner, sharing this base. */
export const profileArgs = { id: Args.string({ description: 'external_id', required: true }) }
export const profileFlags = {
  tenant: tenantFlag,
  'external-vendor': Flags.string({
    description: 'vocabulary vendor',
    options: [...VENDORS],
    default: 'vendor_default',
  }),
  'vocab-language': Flags.string({
    description: 'language of skill names (en_uk, en-US, de, …)',
    default: 'en_uk',
  }),
}

export abstract class ProfileCommand extends SkillhouseCommand {
  static override args = profileArgs
  static override flags = profileFlags
  protected abstract owner: ProfileOwner

  async run(): Promise<SkillProfileResponse> {
    const { args, flags } = await this.parse(this.constructor as typeof ProfileCommand)
    const profile = await this.runOnTenant(flags, readProfile, {
      owner: this.owner,
      id: args.id,
      external_vendor: flags['external-vendor'],
      vocab_language: flags['vocab-language'],
    })
    if (!this.jsonEnabled()) {
      this.log(
        `${this.owner} ${profile.external_id}: version ${profile.version}, ${profile.skills.length} skills${profile.computed_at ? ` (computed ${profile.computed_at})` : ''}`,
      )
      // Strongest first: by level (unknown last), then validated before suggested, then name.
      const skills = [...profile.skills].sort(
        (a, b) =>
          (b.proficiency_level ?? 0) - (a.proficiency_level ?? 0) ||
          Number(b.validation_state === 'validated') - Number(a.validation_state === 'validated') ||
          a.skill.localeCompare(b.skill),
      )
      const rows = skills.map((skill) => [
        String(skill.proficiency_level ?? '-'),
        skill.critical ? '*' : '',
        skill.validation_state,
        skill.skill,
        skill.domain_name ?? '',
        skill.skill_id,
      ])
      for (const line of textTable(['LEVEL', 'CRITICAL', 'STATE', 'SKILL', 'DOMAIN', 'ID'], rows, [0]))
        this.log(`  ${line}`)
    }
    return profile
  }
}

export default class ProfileEmployee extends ProfileCommand {
  static override summary = "An employee's skill profile as the API returns it"
  static override examples = [
    '<%= config.bin %> profile employee emp-10001',
    '<%= config.bin %> profile employee emp-10001 --vocab-language nl --json',
  ]
  static override args = profileArgs
  static override flags = profileFlags
  protected owner: ProfileOwner = 'employee'
}
