import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { type EventsExport, eventLines, exportEvents } from '../../src/events/outbox.js'
import { EventsExportOptions } from '../../src/schemas/events.js'
import { parseInput } from '../../src/taxonomy/taxonomy-tenant.js'
import { withTenant } from '../../src/tenants/tenant-service.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class EventsExportCommand extends SkillhouseCommand {
  static override summary = "Write the tenant's CloudEvents from the outbox as NDJSON"
  static override description =
    'One structured-mode CloudEvent 1.0 per line, in the order they were recorded. With --out the file is written whole or not at all; without it the lines go to stdout. --since keeps the events at or after a time (delivery is at least once: consumers tolerate duplicates).'
  static override examples = [
    '<%= config.bin %> events export --out events.ndjson',
    '<%= config.bin %> events export --since 2026-11-21T00:00:00Z --tenant demo',
  ]
  static override flags = {
    tenant: tenantFlag,
    since: Flags.string({ description: 'only events at or after this ISO 8601 date or date-time' }),
    out: Flags.string({ description: 'NDJSON file to write (default: stdout)' }),
  }

  async run(): Promise<EventsExport | undefined> {
    const { flags } = await this.parse(EventsExportCommand)
    const options = parseInput(
      EventsExportOptions,
      { since: flags.since, out: flags.out },
      'the export options',
    )
    const since = options.since === undefined ? {} : { since: options.since }
    return withTenant(this.dataDir(flags), flags.tenant, async (tenant) => {
      if (options.out === undefined) {
        // The NDJSON lines are the machine-readable result: nothing else goes to stdout.
        for await (const line of eventLines(tenant.database, since)) {
          if (!process.stdout.write(line))
            await new Promise((resolve) => process.stdout.once('drain', resolve))
        }
        return undefined
      }
      const result = await exportEvents(tenant.database, { ...since, out: options.out })
      this.log(`${result.events} events written to ${result.path}`)
      return result
    })
  }
}
