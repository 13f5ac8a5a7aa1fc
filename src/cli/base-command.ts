import type { Ora } from 'ora'
import { errors, isSkillhouseError } from '../errors/skillhouse-error.js'
import { resolveDataDir } from '../tenants/data-directory.js'
import { Command, Flags, type Interfaces } from '../vendor/oclif.js'
import { canDrawSpinner, openSpinner, ProgressReport } from './progress-report.js'

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

  /** Whether a spinner is drawn: a terminal wide enough to hold its line, and no --json. */
  protected get interactive(): boolean {
    return canDrawSpinner(process.stderr) && !this.jsonEnabled()
  }

  /**
   * How long work reports progress: a spinner where one can be drawn; plain lines every few
   * seconds on a terminal that cannot draw one (width 0) or when `lines` asks for them (a log);
   * nothing with --json.
   */
  protected progressReport(lines = false): Promise<ProgressReport> {
    if (this.jsonEnabled()) return ProgressReport.open('quiet')
    if (this.interactive) return ProgressReport.open('spinner')
    return ProgressReport.open(lines || process.stderr.isTTY ? 'lines' : 'quiet')
  }

  /** A spinner on stderr, not started, where one can be drawn (see `interactive`); else none. */
  protected async spinner(text?: string): Promise<Ora | undefined> {
    return this.interactive ? openSpinner(process.stderr, text) : undefined
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    // A usage error of oclif's parser (a missing or unknown flag or argument, a value not among
    // the options, a --file that is not there) becomes a 400 like ours: one line, exit 2, and
    // with --json `{"error": …}` instead of the parser's internals.
    if (isParseError(error)) error = usageError(this.id, error)
    if (isSkillhouseError(error)) {
      if (this.jsonEnabled()) this.logJson({ error: { status: error.status, body: error.toBody() } })
      // One plain line per problem, unwrapped, so that it can be read and grepped at 2 a.m.
      for (const description of error.descriptions) process.stderr.write(`error: ${description}\n`)
      this.exit(error.exitCode)
    }
    return super.catch(error)
  }
}

/** oclif's parse errors carry what was parsed; a flag's own parse (Flags.file) fails as "Parsing --NAME". */
function isParseError(error: Error): boolean {
  return 'parse' in error || /^Parsing --/.test(error.message)
}

/** The parser's message as one line: what is wrong, and where the command's help is. */
function usageError(command: string | undefined, error: Error) {
  const message = error.message
    .replace(/\n?See more help with --help/g, '')
    .replace(/^Parsing (--\S+)\s*/, '$1: ')
    .replace(/^The following error occurred:\s*/, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim()
  const help = command ? `skillhouse ${command.replaceAll(':', ' ')} --help` : 'skillhouse --help'
  return errors.badRequest(`${message}; see ${help}`)
}

/** The `--tenant` flag of commands that work on one tenant. */
export const tenantFlag = Flags.string({
  description: 'tenant to work on (default: the only tenant)',
  helpGroup: 'GLOBAL',
})
