import type { Ora } from 'ora'

/**
 * Narrowest terminal a spinner is drawn on. A terminal reporting fewer columns (a pty of width 0
 * under `script`, a CI runner's) cannot hold its line: ora would count the line's rows against
 * zero columns and flood the log with cursor codes.
 */
export const MIN_SPINNER_COLUMNS = 20

/** Seconds between plain progress lines: a stage that runs longer shows a line at least this often. */
export const PROGRESS_LINE_SECONDS = 5

/** Whether a spinner can be drawn on `stream`: a terminal that says how wide it is. */
export function canDrawSpinner(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && (stream.columns ?? 0) >= MIN_SPINNER_COLUMNS
}

/**
 * Progress of long work on stderr: a spinner where one can be drawn, else (when `lines`) plain
 * lines `progress <stage>: <rows> rows (<rate> rows/s)`, which a log of a scheduled job keeps
 * readable: at once when a stage starts and when it reports its first rows, then at least every
 * few seconds for as long as the stage runs (its rows so far, or how long it has been running),
 * so that a silent log means a stuck process, not a slow stage; else nothing.
 */
export class ProgressReport {
  private readonly spinner: Ora | undefined
  private stageName = ''
  private stageStarted = performance.now()
  private lastLine = Number.NEGATIVE_INFINITY
  /** Rows the current stage reported last, if it reports rows. */
  private stageRows: number | undefined
  /** Whether the current stage showed a line of rows yet (its first one is shown at once). */
  private rowsShown = false
  private heartbeat: NodeJS.Timeout | undefined

  private constructor(
    private readonly mode: 'spinner' | 'lines' | 'quiet',
    private readonly stream: NodeJS.WriteStream,
    spinner: Ora | undefined,
  ) {
    this.spinner = spinner
  }

  /** A report in `mode`; ora is loaded only when a spinner is drawn (it costs start-up time). */
  static async open(
    mode: 'spinner' | 'lines' | 'quiet',
    stream: NodeJS.WriteStream = process.stderr,
  ): Promise<ProgressReport> {
    return new ProgressReport(mode, stream, mode === 'spinner' ? await openSpinner(stream) : undefined)
  }

  /** A new stage (a file, a step of the run): shown at once. */
  stage(name: string): void {
    this.stageName = name
    this.stageStarted = performance.now()
    this.stageRows = undefined
    this.rowsShown = false
    if (this.spinner) {
      if (this.spinner.isSpinning) this.spinner.text = name
      else this.spinner.start(name)
    } else if (this.mode === 'lines') {
      this.line(name)
      this.beat()
    }
  }

  /** Rows done so far in the current stage, with their rate. */
  rows(rows: number): void {
    // A reader that counts at its end reports 0 first: nothing to show yet.
    if (rows === 0 && this.stageRows === undefined) return
    this.stageRows = rows
    if (this.spinner) this.spinner.text = this.rowsText(rows)
    else if (
      this.mode === 'lines' &&
      (!this.rowsShown || performance.now() - this.lastLine >= PROGRESS_LINE_SECONDS * 1000)
    ) {
      this.rowsShown = true
      this.line(this.rowsText(rows))
    }
  }

  /** What the current stage ended with (an input's final counts): a line of its own. */
  done(text: string): void {
    if (this.spinner) this.spinner.text = `${this.stageName}: ${text}`
    else if (this.mode === 'lines') this.line(`${this.stageName}: ${text}`)
  }

  stop(): void {
    this.spinner?.stop()
    if (this.heartbeat) clearInterval(this.heartbeat)
    this.heartbeat = undefined
  }

  /**
   * Keeps a line coming while a stage runs without reporting rows (a derivation, a matching
   * stage). The timer does not keep the process alive.
   */
  private beat(): void {
    if (this.heartbeat) return
    this.heartbeat = setInterval(() => {
      if (performance.now() - this.lastLine < PROGRESS_LINE_SECONDS * 1000) return
      const seconds = Math.round((performance.now() - this.stageStarted) / 1000)
      this.line(
        this.stageRows === undefined
          ? `${this.stageName}: running for ${seconds} s`
          : this.rowsText(this.stageRows),
      )
    }, 1000)
    this.heartbeat.unref()
  }

  private rowsText(rows: number): string {
    const seconds = Math.max((performance.now() - this.stageStarted) / 1000, 0.001)
    return `${this.stageName}: ${rows} rows (${Math.round(rows / seconds)} rows/s)`
  }

  private line(text: string): void {
    this.lastLine = performance.now()
    this.stream.write(`progress ${text}\n`)
  }
}

/** An ora spinner on `stream`, not started; ora is imported here, when one is drawn. */
export async function openSpinner(stream: NodeJS.WriteStream, text?: string): Promise<Ora> {
  const { default: ora } = await import('ora')
  return ora(text === undefined ? { stream } : { stream, text })
}
