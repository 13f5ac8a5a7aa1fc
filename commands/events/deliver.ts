import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { errors } from '../../src/errors/skillhouse-error.js'
import { deliverySettings } from '../../src/events/retry-policy.js'
import {
  type DeliveryRun,
  deliverDue,
  deliverUntilIdle,
  serialAccess,
} from '../../src/events/webhook-delivery.js'
import { webhookSender } from '../../src/events/webhook-sender.js'
import { DEFAULT_RETRY_WINDOW_MS, MAX_RETRY_WINDOW_MS } from '../../src/schemas/webhooks.js'
import { readServerRecord } from '../../src/tenants/server-record.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class EventsDeliver extends SkillhouseCommand {
  static override summary = "Send the outbox's CloudEvents to the webhook subscriptions"
  static override description =
    'Structured-mode CloudEvents 1.0, at least once: every event appended since a subscription was made, each with the same id in every attempt. A failed attempt is retried after an exponential backoff with jitter until the retry window of the event ends (the policy of a subscription over these flags); an attempt that fails after that makes it dead (see the delivery log: GET /webhooks/{id}/deliveries on a server). Without --until-idle the command sends what is due now and leaves the retries to the next run; with it, it waits for the retries until every event is delivered or dead (with a consumer that stays down, as long as the window). The events of a subscription go in outbox order, every subscription on its own. A running `serve` does the same in the background.'
  static override examples = [
    '<%= config.bin %> events deliver',
    '<%= config.bin %> events deliver --until-idle --window 600000 --backoff 500 --json',
  ]
  static override flags = {
    tenant: tenantFlag,
    'until-idle': Flags.boolean({
      description: 'wait for the retries until nothing is pending (every event delivered or dead)',
      aliases: ['wait'],
    }),
    window: Flags.integer({
      description: 'how long an event is retried after it was queued before it is dead (ms; default 24 h)',
      default: DEFAULT_RETRY_WINDOW_MS,
      min: 0,
      max: MAX_RETRY_WINDOW_MS,
    }),
    backoff: Flags.integer({
      description:
        'nominal wait before the first retry (ms); doubled per retry up to the cap, each drawn between half and the whole',
      default: 1000,
      min: 1,
    }),
    'backoff-cap': Flags.integer({
      description: 'longest nominal wait between two attempts (ms; default 1 h)',
      default: 3_600_000,
      min: 1,
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
      windowMs: flags.window,
      backoffBaseMs: flags.backoff,
      backoffCapMs: flags['backoff-cap'],
      timeoutMs: flags.timeout,
    })
    const dataDir = this.dataDir(flags)
    const server = readServerRecord(dataDir)
    // The server delivers its tenants' events itself, from its start: a second sender would send
    // them twice.
    if (server) throw errors.deliveredByServer(server.pid, server.url)
    const sender = webhookSender()
    const run = await withTenant(dataDir, flags.tenant, (tenant) =>
      (flags['until-idle'] ? deliverUntilIdle : deliverDue)(serialAccess(tenant), { settings, sender }),
    ).finally(() => sender.close())
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
