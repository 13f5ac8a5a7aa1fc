/** One structured log line: a JSON object, written whole on one line. */
export type LogEntry = Record<string, unknown> & { msg: string }

/** Where the server's log lines go. */
export type Logger = (entry: LogEntry) => void

/** Lines logged in this turn of the event loop, written together at its end. */
let pending = ''
let scheduled = false
/** Above this many characters the lines are written at once rather than at the end of the turn. */
const FLUSH_CHARS = 64 * 1024

function flush(): void {
  scheduled = false
  if (pending === '') return
  const text = pending
  pending = ''
  process.stderr.write(text)
}

// Whatever ends the process normally (or by an uncaught error) writes the last lines.
process.on('exit', flush)

/**
 * The default logger: one JSON object per line on stderr (stdout stays for what the command
 * prints), each with its time and level, so that log shippers and `jq` read it as it is. The
 * lines of one turn of the event loop leave in one write: under load, one system call per request
 * costs more than the rest of a cached answer.
 */
export const stderrLogger: Logger = (entry) => {
  const level = entry.level ?? (typeof entry.status === 'number' && entry.status >= 500 ? 'error' : 'info')
  pending += `${JSON.stringify({ time: new Date().toISOString(), level, ...entry })}\n`
  if (pending.length >= FLUSH_CHARS) flush()
  else if (!scheduled) {
    scheduled = true
    setImmediate(flush)
  }
}

/** A logger that drops everything (tests that do not read the log). */
export const silentLogger: Logger = () => undefined
