import { resolve } from 'node:path'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import type { EventsExport } from '../../src/events/outbox.js'
import { exportOutbox } from '../../src/operations/event-operations.js'
import { EventsExportOptions } from '../../src/schemas/events.js'
import { parseInput } from '../../src/taxonomy/taxonomy-tenant.js'
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
    const result = await this.runOnTenant(
      flags,
      exportOutbox,
      {
        ...(options.since === undefined ? {} : { since: options.since }),
        ...(options.out === undefined ? {} : { out: resolve(options.out) }),
      },
      {
        // The NDJSON lines are the machine-readable result: nothing else goes to stdout.
        item: async (line) => {
          if (!process.stdout.write(line as string))
            await new Promise((done) => process.stdout.once('drain', done))
        },
      },
    )
    if (result === undefined) return undefined
    // The file as it was named (a server writes it by its whole path).
    const shown = { ...result, path: options.out ?? result.path }
    this.log(`${shown.events} events written to ${shown.path}`)
    return shown
  }
}
