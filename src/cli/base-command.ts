import { Command, Flags, type Interfaces } from '@oclif/core'
import { isSkillhouseError } from '../errors/skillhouse-error.js'
import { resolveDataDir } from '../tenants/data-directory.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof SkillhouseCommand)['baseFlags'] & T['flags']
>

/**
 * Shared by every command: `--json` (result on stdout, logs on stderr), `--data-dir`, and the
 * translation of a SkillhouseError into a message and an exit code. Commands stay thin: parse,
 * call one library function, return its result.
 */
export abstract class SkillhouseCommand extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    'data-dir': Flags.directory({
      description:
        'data directory (tenants.json and one DuckDB file per tenant); else $SKILLHOUSE_HOME, else ./.skillhouse',
      helpGroup: 'GLOBAL',
    }),
  }

  protected dataDir(flags: { 'data-dir'?: string | undefined }): string {
    return resolveDataDir(flags['data-dir'])
  }

  /** Logs to stderr so that stdout holds only the result. */
  protected note(message: string): void {
    if (!this.jsonEnabled()) process.stderr.write(`${message}\n`)
  }

  protected get interactive(): boolean {
    return Boolean(process.stderr.isTTY) && !this.jsonEnabled()
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    if (isSkillhouseError(error)) {
      if (this.jsonEnabled()) this.logJson({ error: { status: error.status, body: error.toBody() } })
      // One plain line per problem, unwrapped, so that it can be read and grepped at 2 a.m.
      for (const description of error.descriptions) process.stderr.write(`error: ${description}\n`)
      this.exit(error.exitCode)
    }
    return super.catch(error)
  }
}

/** The `--tenant` flag of commands that work on one tenant. */
export const tenantFlag = Flags.string({
  description: 'tenant to work on (default: the only tenant)',
  helpGroup: 'GLOBAL',
})
