import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import {
  type ProfileOwner,
  readSkillProfile,
  type SkillProfileResponse,
} from '../../src/profiles/read-profile.js'
import { VENDORS } from '../../src/schemas/vendors.js'
import { requireVendor } from '../../src/taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../../src/taxonomy/vocabulary-languages.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
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
    const profile = await withTenant(this.dataDir(flags), flags.tenant, async (tenant) => {
      // Only vendors activated on the tenant (spec 2.1), as the API answers (403).
      const vendor = requireVendor(tenant, flags['external-vendor'])
      const language = await resolveVocabLanguage(tenant, vendor, flags['vocab-language'])
      return readSkillProfile(tenant, this.owner, args.id, {
        external_vendor: vendor,
        vocab_language: language,
      })
    })
    if (!this.jsonEnabled()) {
      this.log(
        `${this.owner} ${profile.external_id}: version ${profile.version}, ${profile.skills.length} skills`,
      )
      for (const skill of profile.skills) {
        this.log(
          `  ${skill.validation_state.padEnd(9)} ${String(skill.proficiency_level ?? '-')} ${skill.skill.padEnd(40)} ${skill.skill_id}`,
        )
      }
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
