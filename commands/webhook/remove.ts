import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { removeWebhook } from '../../src/operations/event-operations.js'
import { Args } from '../../src/vendor/oclif.js'

export default class WebhookRemove extends SkillhouseCommand {
  static override summary = 'Remove a webhook subscription'
  static override description =
    'Nothing more is sent to it, its pending events included. An id that is not an active subscription fails (exit 1).'
  static override examples = ['<%= config.bin %> webhook remove WEBHOOK_ID']
  static override args = {
    id: Args.string({ description: 'the subscription to remove (see `webhook list`)', required: true }),
  }
  static override flags = { tenant: tenantFlag }

  async run(): Promise<{ id: string; removed: true }> {
    const { args, flags } = await this.parse(WebhookRemove)
    await this.runOnTenant(flags, removeWebhook, { id: args.id })
    this.log(`Removed ${args.id}`)
    return { id: args.id, removed: true }
  }
}
