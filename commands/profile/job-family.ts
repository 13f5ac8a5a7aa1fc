import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { readFamilyProfile } from '../../src/operations/profile-operations.js'
import { JOB_FAMILY_INCLUDES } from '../../src/profiles/job-family-profile.js'
import { type ExternalVendor, VENDORS } from '../../src/schemas/vendors.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class ProfileJobFamily extends SkillhouseCommand {
  static override summary = "A job family's skill profile (4.12), as a list or a hierarchy"
  static override examples = [
    '<%= config.bin %> profile job-family jf-data-analytics --include proficiency_level --include critical --json',
    '<%= config.bin %> profile job-family jf-data-analytics --format hierarchy --domain-namespace adaptive --vocab-language nl',
  ]
  static override args = { id: Args.string({ description: 'job family external_id', required: true }) }
  static override flags = {
    tenant: tenantFlag,
    'domain-namespace': Flags.string({
      options: ['vendor_default', 'taxonomy', 'adaptive'],
      default: 'vendor_default',
      description: 'domains skills are mapped to',
    }),
    format: Flags.string({
      options: ['list', 'hierarchy'],
      default: 'list',
      description: 'list (2.11) or hierarchy',
    }),
    include: Flags.string({
      options: [...JOB_FAMILY_INCLUDES],
      multiple: true,
      description: 'extra attributes (repeatable)',
    }),
    'external-vendor': Flags.string({
      options: [...VENDORS],
      description: 'vocabulary vendor (not with --include skill_validation_state)',
    }),
    'vocab-language': Flags.string({ default: 'en_uk', description: 'language of skill names' }),
  }

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ProfileJobFamily)
    const profile = await this.runOnTenant(flags, readFamilyProfile, {
      id: args.id,
      domain_namespace: flags['domain-namespace'] as 'vendor_default',
      format: flags.format as 'list',
      include: (flags.include ?? []) as (typeof JOB_FAMILY_INCLUDES)[number][],
      vocab_language: flags['vocab-language'],
      ...(flags['external-vendor'] ? { external_vendor: flags['external-vendor'] as ExternalVendor } : {}),
    })
    if (!this.jsonEnabled()) this.log(JSON.stringify(profile, null, 2))
    return profile
  }
}
