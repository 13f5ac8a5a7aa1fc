/** One structured log line: a JSON object, written whole on one line. */
export type LogEntry = Record<string, unknown> & { msg: string }

/** Where the server's log lines go. */
export type Logger = (entry: LogEntry) => void

/**
 * The default logger: one JSON object per line on stderr (stdout stays for what the command
 * prints), each with its time and level, so that log shippers and `jq` read it as it is.
 */
export const stderrLogger: Logger = (entry) => {
  const level = entry.level ?? (typeof entry.status === 'number' && entry.status >= 500 ? 'error' : 'info')
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, ...entry })}\n`)
}

/** A logger that drops everything (tests that do not read the log). */
export const silentLogger: Logger = () => undefined
