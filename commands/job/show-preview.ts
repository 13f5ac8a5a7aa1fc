import type { JobChangePreview } from '../../src/analytics/job-change-preview.js'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { showJobPreview } from '../../src/operations/analytics-operations.js'
import { Args } from '../../src/vendor/oclif.js'

export default class JobShowPreview extends SkillhouseCommand {
  static override summary = 'Show a stored job change preview by its change_id'
  static override examples = ['<%= config.bin %> job show-preview CHANGE_ID --json']
  static override args = {
    change: Args.string({ description: 'change_id printed by `job preview`', required: true }),
  }
  static override flags = { tenant: tenantFlag }

  async run(): Promise<JobChangePreview> {
    const { args, flags } = await this.parse(JobShowPreview)
    const preview = await this.runOnTenant(flags, showJobPreview, { change_id: args.change })
    this.log(
      `change_id: ${preview.change_id} (job ${preview.job_id}, ${preview.language}, ${preview.created_at})`,
    )
    this.log('')
    this.log(preview.job_description.trimEnd())
    return preview
  }
}
