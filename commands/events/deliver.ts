import { Flags } from '@oclif/core'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import {
  type DeliveryRun,
  deliverDue,
  deliverUntilIdle,
  deliverySettings,
  serialAccess,
} from '../../src/events/webhook-delivery.js'
import { withTenant } from '../../src/tenants/tenant-service.js'

export default class EventsDeliver extends SkillhouseCommand {
  static override summary = "Send the outbox's CloudEvents to the webhook subscriptions"
  static override description =
    'Structured-mode CloudEvents 1.0, at least once: every event appended since a subscription was made, each with the same id in every attempt. A failed attempt is retried after an exponential backoff with full jitter; after the last attempt the event is dead (see the delivery log: GET /webhooks/{id}/deliveries on a server). Without --until-idle the command sends what is due now and leaves the retries to the next run; with it, it waits for the retries until every event is delivered or dead. A running `serve` does the same in the background.'
  static override examples = [
    '<%= config.bin %> events deliver',
    '<%= config.bin %> events deliver --until-idle --attempts 5 --backoff 500 --json',
  ]
  static override flags = {
    tenant: tenantFlag,
    'until-idle': Flags.boolean({
      description: 'wait for the retries until nothing is pending (every event delivered or dead)',
      aliases: ['wait'],
    }),
    attempts: Flags.integer({
      description: 'attempts of an event before it is dead',
      default: 8,
      min: 1,
      max: 100,
    }),
    backoff: Flags.integer({
      description: 'longest wait before the first retry (ms); doubled per retry, with full jitter',
      default: 1000,
      min: 0,
    }),
    'backoff-cap': Flags.integer({
      description: 'longest wait between two attempts (ms)',
      default: 600_000,
      min: 0,
    }),
    timeout: Flags.integer({
      description: 'how long one attempt waits for an answer (ms)',
      default: 10_000,
      min: 1,
    }),
  }

  async run(): Promise<DeliveryRun> {
    const { flags } = await this.parse(EventsDeliver)
    const settings = deliverySettings({
      maxAttempts: flags.attempts,
      backoffBaseMs: flags.backoff,
      backoffCapMs: flags['backoff-cap'],
      timeoutMs: flags.timeout,
    })
    const run = await withTenant(this.dataDir(flags), flags.tenant, (tenant) =>
      (flags['until-idle'] ? deliverUntilIdle : deliverDue)(serialAccess(tenant), { settings }),
    )
    if (run.subscriptions === 0) {
      this.log('No webhook subscriptions: add one with `skillhouse webhook add URL`.')
      return run
    }
    this.log(
      `${run.attempts} requests to ${run.subscriptions} subscriptions: ${run.delivered} delivered, ${run.failed} failed and to be retried, ${run.dead} dead; ${run.pending} pending${run.next_attempt_at ? `, next attempt due at ${run.next_attempt_at}` : ''}`,
    )
    return run
  }
}
