import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { listWebhooks } from '../../src/operations/event-operations.js'
import type { WebhookSubscriptionList } from '../../src/schemas/webhooks.js'

export default class WebhookList extends SkillhouseCommand {
  static override summary =
    'List the webhook subscriptions of a tenant: delivery counts, backlog, oldest pending event, last error'
  static override examples = ['<%= config.bin %> webhook list', '<%= config.bin %> webhook list --json']
  static override flags = { tenant: tenantFlag }

  async run(): Promise<WebhookSubscriptionList> {
    const { flags } = await this.parse(WebhookList)
    const records = await this.runOnTenant(flags, listWebhooks, {})
    if (records.length === 0) this.log('No webhook subscriptions: add one with `skillhouse webhook add URL`.')
    for (const subscription of records) {
      const { pending, delivered, dead } = subscription.deliveries
      const types = subscription.event_types.length ? subscription.event_types.join(',') : 'all'
      const oldest = subscription.oldest_pending
      const backlog = oldest
        ? `oldest pending ${oldest.event_id} (#${oldest.outbox_seq}, ${oldest.time}), next attempt ${subscription.next_attempt_at}`
        : 'nothing pending'
      const error = subscription.last_error
        ? `last error ${subscription.last_error} at ${subscription.last_error_at}`
        : 'no error'
      this.log(
        `${subscription.id}\t${subscription.url}\t${types}\tdelivered ${delivered}, pending ${pending}, dead ${dead}\t${backlog}\t${error}\tsince ${subscription.created_at}`,
      )
    }
    return { records }
  }
}
