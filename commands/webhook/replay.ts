import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { replayWebhook } from '../../src/operations/event-operations.js'
import type { WebhookReplay } from '../../src/schemas/webhooks.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class WebhookReplayCommand extends SkillhouseCommand {
  static override summary = 'Send events to a webhook subscription again'
  static override description =
    'Queues again, each with a new retry window: without --since or --event the dead letters of the subscription; with --since every outbox event at or after that time that its event types take; with --event that outbox event and every later one it takes (events appended before the subscription was made included). They go in outbox order, before its later events, when `events deliver` or `serve` next sends (beside a running server, the server queues them).'
  static override examples = [
    '<%= config.bin %> webhook replay --subscription WEBHOOK_ID',
    '<%= config.bin %> webhook replay --subscription WEBHOOK_ID --since 2026-11-21T08:00:00Z',
    '<%= config.bin %> webhook replay --subscription WEBHOOK_ID --event EVENT_ID',
  ]
  static override flags = {
    tenant: tenantFlag,
    subscription: Flags.string({
      description: 'the subscription to send to again (see `webhook list`)',
      required: true,
    }),
    since: Flags.string({
      description: 'every event at or after this ISO 8601 date or date-time',
      exclusive: ['event'],
    }),
    event: Flags.string({
      description: 'this event (a CloudEvent id of the outbox) and every later one',
      exclusive: ['since'],
    }),
  }

  async run(): Promise<WebhookReplay> {
    const { flags } = await this.parse(WebhookReplayCommand)
    const request = {
      ...(flags.since === undefined ? {} : { since: flags.since }),
      ...(flags.event === undefined ? {} : { event_id: flags.event }),
    }
    const replay = await this.runOnTenant(flags, replayWebhook, { subscription: flags.subscription, request })
    const what = flags.since || flags.event ? 'events' : 'dead letters'
    this.log(
      replay.replayed === 0
        ? `No ${what} to replay for ${replay.subscription_id}.`
        : `Queued ${replay.replayed} ${what} again for ${replay.subscription_id}, from outbox event ${replay.first_outbox_seq}; \`skillhouse events deliver\` sends them.`,
    )
    return replay
  }
}
