import { Args, Flags } from '@oclif/core'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { serialAccess } from '../../src/events/webhook-delivery.js'
import { addSubscription } from '../../src/events/webhook-subscriptions.js'
import { WEBHOOK_EVENT_TYPES, type WebhookSubscription } from '../../src/schemas/index.js'
import { withTenant } from '../../src/tenants/tenant-service.js'

export default class WebhookAdd extends SkillhouseCommand {
  static override summary = "Subscribe a consumer's URL to the tenant's CloudEvents"
  static override description =
    'Sends the ai.vendor.health_check event to the URL first: a consumer that does not answer with a 2XX status is not subscribed (exit 2, the answer is shown). A subscription receives the events appended to the outbox after it was made; `events deliver` or a running `serve` sends them.'
  static override examples = [
    '<%= config.bin %> webhook add https://hooks.example.com/skills',
    '<%= config.bin %> webhook add http://127.0.0.1:9000/events --event-type ai.vendor.employee.skill_profile.updated.v1 --json',
  ]
  static override args = {
    url: Args.string({ description: 'the http or https URL the events are POSTed to', required: true }),
  }
  static override flags = {
    tenant: tenantFlag,
    'event-type': Flags.string({
      description: 'receive only this event type (repeatable; default: every type)',
      multiple: true,
      options: [...WEBHOOK_EVENT_TYPES],
    }),
    timeout: Flags.integer({
      description: 'how long the health check waits for an answer (ms)',
      default: 10_000,
      min: 1,
    }),
  }

  async run(): Promise<WebhookSubscription> {
    const { args, flags } = await this.parse(WebhookAdd)
    const subscription = await withTenant(this.dataDir(flags), flags.tenant, (tenant) =>
      addSubscription(
        serialAccess(tenant),
        { url: args.url, event_types: flags['event-type'] ?? [] },
        { timeoutMs: flags.timeout },
      ),
    )
    const types = subscription.event_types.length ? subscription.event_types.join(', ') : 'every event type'
    this.log(`Subscribed ${subscription.url} as ${subscription.id} (${types})`)
    return subscription
  }
}
