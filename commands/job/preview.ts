import type { JobChangePreview } from '../../src/analytics/job-change-preview.js'
import { SECTION_NAMES } from '../../src/analytics/job-description.js'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { previewJobDescription } from '../../src/operations/analytics-operations.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class JobPreview extends SkillhouseCommand {
  static override summary = 'Generate a job description preview for a job (section 4.4, add_job_description)'
  static override description =
    `Writes a job description from the job's skill profile, its family and the reference jobs, offline and deterministically, stores it and prints its change_id and text (the same input on the same data gives the same change_id). Sections: ${SECTION_NAMES.join(', ')} (default: all). --instructions understands an output language ("in Dutch", "en français", "auf Deutsch", "language: nl") and a length ("short", "concise", "detailed"). Show a stored preview again with \`job show-preview CHANGE_ID\`.`
  static override examples = [
    '<%= config.bin %> job preview job-transport-planner',
    '<%= config.bin %> job preview job-data-engineer --section summary --section requirements --instructions "short, in het Nederlands"',
    '<%= config.bin %> job preview job-data-engineer --reference-job job-backend-developer --json',
  ]
  static override args = { job: Args.string({ description: 'external_id of the job', required: true }) }
  static override flags = {
    tenant: tenantFlag,
    section: Flags.string({ description: 'a section to include (repeatable, in order)', multiple: true }),
    instructions: Flags.string({ description: 'free-text guidance for the generation' }),
    'reference-job': Flags.string({
      description: 'a job to use as a reference (repeatable)',
      multiple: true,
    }),
    'internal-job-data': Flags.boolean({
      description:
        'use the stored descriptions of the job, its family and the reference jobs (--no-internal-job-data: profiles and titles only)',
      allowNo: true,
      default: true,
    }),
  }

  async run(): Promise<JobChangePreview> {
    const { args, flags } = await this.parse(JobPreview)
    const request = {
      change_type: 'add_job_description',
      job_id: args.job,
      context: {
        ...(flags.instructions === undefined ? {} : { instructions: flags.instructions }),
        ...(flags['reference-job'] ? { reference_job_ids: flags['reference-job'] } : {}),
        ...(flags.section ? { sections_to_include: flags.section } : {}),
        use_internal_job_data: flags['internal-job-data'],
      },
    }
    const preview = await this.runOnTenant(flags, previewJobDescription, { request })
    this.log(`change_id: ${preview.change_id}`)
    for (const applied of preview.instructions_applied) this.note(`instruction applied: ${applied}`)
    this.log('')
    this.log(preview.job_description.trimEnd())
    return preview
  }
}
