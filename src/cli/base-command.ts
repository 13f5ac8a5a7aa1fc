import type { Ora } from 'ora'
import { fileSystemError } from '../errors/file-system-errors.js'
import { errors, isSkillhouseError, SkillhouseError } from '../errors/skillhouse-error.js'
import { type OperationRunner, withOperations } from '../operations/run-operation.js'
import { NO_PROGRESS, type ProgressSink, type TenantOperation } from '../operations/tenant-operation.js'
import { resolveDataDir } from '../tenants/data-directory.js'
import { readServerRecord } from '../tenants/server-record.js'
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

  /**
   * The library names a field in backticks (`` `as_of` ``); a field that is one of this command's
   * flags shows as the flag (`--as-of`). A flag goes by its field's name with hyphens unless
   * listed here: field to flag name (`vendors: 'vendor'`).
   */
  static fieldFlags: Record<string, string> = {}

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

  /**
   * Runs `operation` on the command's tenant (`--tenant`, or `tenant`): handed to the server when
   * one serves the data directory (it holds the tenant), else here; the same function either way,
   * so the same bytes are printed. See `withTenantOperations`.
   */
  protected runOnTenant<P, R>(
    flags: TenantFlags,
    operation: TenantOperation<P, R>,
    params: P,
    options: OperationOptions = {},
  ): Promise<R> {
    return this.withTenantOperations(flags, options, (run) => run(operation, params))
  }

  /**
   * Runs `work` with a runner of operations on the command's tenant (kept open between them when
   * it runs here). Handed to a server, Ctrl-C (or SIGTERM) asks the server to interrupt the work
   * and the command ends as it would have alone (130 or 143); a second Ctrl-C leaves at once.
   */
  protected async withTenantOperations<T>(
    flags: TenantFlags,
    options: OperationOptions,
    work: (run: OperationRunner) => Promise<T>,
  ): Promise<T> {
    const dataDir = this.dataDir(flags)
    const interrupt = new AbortController()
    const onSignal = (signal: NodeJS.Signals) => {
      if (interrupt.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143)
      interrupt.abort(signal)
    }
    const handedOver = readServerRecord(dataDir) !== undefined
    if (handedOver) {
      process.on('SIGINT', onSignal)
      process.on('SIGTERM', onSignal)
    }
    const context = { progress: options.progress ?? NO_PROGRESS, item: options.item ?? (() => undefined) }
    try {
      return await withOperations(dataDir, options.tenant ?? flags.tenant, context, work, interrupt.signal)
    } catch (error) {
      // A --tenant that names no tenant is a usage error (exit 2), as a flag value not among its options.
      const named = options.tenant === undefined ? flags.tenant : undefined
      if (
        named !== undefined &&
        isSkillhouseError(error) &&
        error.status === 404 &&
        error.descriptions[0]?.startsWith(`tenant '${named}' does not exist`)
      )
        throw errors.badRequest(`--tenant ${named}: ${error.descriptions[0]}`)
      if (!interrupt.signal.aborted || !isSkillhouseError(error)) throw error
      for (const description of error.descriptions) process.stderr.write(`${description}\n`)
      return this.exit(interrupt.signal.reason === 'SIGTERM' ? 143 : 130)
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    // A usage error of oclif's parser (a missing or unknown flag or argument, a value not among
    // the options, a --file that is not there) becomes a 400 like ours: one line, exit 2, and
    // with --json `{"error": …}` instead of the parser's internals.
    if (isParseError(error)) error = usageError(this.id, error)
    // A file that cannot be written for want of permission or space: one line naming it and the fix.
    error = fileSystemError(error) ?? error
    if (isSkillhouseError(error)) {
      const named = namingFlags(error, this.ctor as typeof SkillhouseCommand)
      if (this.jsonEnabled()) this.logJson({ error: { status: named.status, body: named.toBody() } })
      // One plain line per problem, unwrapped, so that it can be read and grepped at 2 a.m.
      for (const description of named.descriptions) process.stderr.write(`error: ${description}\n`)
      this.exit(named.exitCode)
    }
    return super.catch(error)
  }
}

/** `error` with each backticked field of `command`'s flags named as the flag, of its arguments as the argument (`NAME`). */
function namingFlags(error: SkillhouseError, command: typeof SkillhouseCommand): SkillhouseError {
  const flags = new Map<string, string>()
  for (const name of Object.keys({ ...command.baseFlags, ...command.flags }))
    flags.set(name.replaceAll('-', '_'), `--${name}`)
  for (const [field, flag] of Object.entries(command.fieldFlags ?? {})) flags.set(field, `--${flag}`)
  for (const name of Object.keys(command.args ?? {})) flags.set(name, name.toUpperCase())
  const named = error.descriptions.map((description) =>
    description.replace(/`([a-z][a-z0-9_]*)`/g, (quoted, field: string) => flags.get(field) ?? quoted),
  )
  return named.every((description, at) => description === error.descriptions[at])
    ? error
    : new SkillhouseError(error.status, named, error.headers)
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

/** The flags an operation on a tenant reads. */
interface TenantFlags {
  'data-dir'?: string | undefined
  tenant?: string | undefined
}

interface OperationOptions {
  /** Where the work's progress shows (default nowhere). */
  progress?: ProgressSink | undefined
  /** Takes each item the work streams (see OperationContext.item). */
  item?: ((value: unknown) => void | Promise<void>) | undefined
  /** The tenant, when it is no --tenant flag (an argument). */
  tenant?: string | undefined
}

/** The `--tenant` flag of commands that work on one tenant. */
export const tenantFlag = Flags.string({
  description:
    'tenant to work on (default: $SKILLHOUSE_TENANT, else the default tenant of `tenant use`, else the only tenant)',
  env: 'SKILLHOUSE_TENANT',
  helpGroup: 'GLOBAL',
})
