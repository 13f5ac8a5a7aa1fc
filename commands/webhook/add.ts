import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { addWebhook } from '../../src/operations/event-operations.js'
import {
  MAX_DELIVERY_TIMEOUT_MS,
  MAX_RETRY_WINDOW_MS,
  WEBHOOK_EVENT_TYPES,
  type WebhookSubscription,
} from '../../src/schemas/webhooks.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class WebhookAdd extends SkillhouseCommand {
  static override summary = "Subscribe a consumer's URL to the tenant's CloudEvents"
  static override description =
    'Sends the ai.vendor.health_check event to the URL first: a consumer that does not answer with a 2XX status is not subscribed (exit 2, the answer is shown). A subscription receives the events appended to the outbox after it was made; `events deliver` or a running `serve` sends them.'
  static override examples = [
    '<%= config.bin %> webhook add https://hooks.example.com/skills',
    '<%= config.bin %> webhook add https://hooks.example.com/profiles --event-type ai.vendor.employee.skill_profile.updated.v1 --json',
    '<%= config.bin %> webhook add https://hooks.example.com/audit --retry-window 259200000 --backoff-cap 7200000',
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
      description:
        "how long the health check and each delivery wait for an answer (ms; default: the server's, 10 s)",
      min: 1,
      max: MAX_DELIVERY_TIMEOUT_MS,
    }),
    'retry-window': Flags.integer({
      description: "how long an event is retried before it is dead (ms; default: the server's, 24 h)",
      min: 0,
      max: MAX_RETRY_WINDOW_MS,
    }),
    backoff: Flags.integer({
      description: "nominal wait before the first retry (ms; default: the server's, 1 s)",
      min: 1,
    }),
    'backoff-cap': Flags.integer({
      description: "longest nominal wait between two attempts (ms; default: the server's, 1 h)",
      min: 1,
    }),
  }

  async run(): Promise<WebhookSubscription> {
    const { args, flags } = await this.parse(WebhookAdd)
    const subscription = await this.runOnTenant(flags, addWebhook, {
      request: {
        url: args.url,
        event_types: flags['event-type'] ?? [],
        retry_policy: {
          window_ms: flags['retry-window'],
          backoff_base_ms: flags.backoff,
          backoff_cap_ms: flags['backoff-cap'],
          timeout_ms: flags.timeout,
        },
      },
    })
    const types = subscription.event_types.length ? subscription.event_types.join(', ') : 'every event type'
    this.log(`Subscribed ${subscription.url} as ${subscription.id} (${types})`)
    return subscription
  }
}
