import type { Ora } from 'ora'

/**
 * Narrowest terminal a spinner is drawn on. A terminal reporting fewer columns (a pty of width 0
 * under `script`, a CI runner's) cannot hold its line: ora would count the line's rows against
 * zero columns and flood the log with cursor codes.
 */
export const MIN_SPINNER_COLUMNS = 20

/** Seconds between plain progress lines. */
export const PROGRESS_LINE_SECONDS = 5

/** Whether a spinner can be drawn on `stream`: a terminal that says how wide it is. */
export function canDrawSpinner(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && (stream.columns ?? 0) >= MIN_SPINNER_COLUMNS
}

/**
 * Progress of long work on stderr: a spinner where one can be drawn, else (when `lines`) plain
 * lines `progress <stage>: <rows> rows (<rate> rows/s)` at most every few seconds (and at once
 * when a stage starts and when it reports its first rows), which a log of a scheduled job keeps readable; else nothing.
 */
export class ProgressReport {
  private readonly spinner: Ora | undefined
  private stageName = ''
  private stageStarted = performance.now()
  private lastLine = Number.NEGATIVE_INFINITY
  /** Whether the current stage showed a line of rows yet (its first one is shown at once). */
  private rowsShown = false

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
    this.rowsShown = false
    if (this.spinner) {
      if (this.spinner.isSpinning) this.spinner.text = name
      else this.spinner.start(name)
    } else if (this.mode === 'lines') this.line(name)
  }

  /** Rows done so far in the current stage, with their rate. */
  rows(rows: number): void {
    const seconds = Math.max((performance.now() - this.stageStarted) / 1000, 0.001)
    const text = `${this.stageName}: ${rows} rows (${Math.round(rows / seconds)} rows/s)`
    if (this.spinner) this.spinner.text = text
    else if (
      this.mode === 'lines' &&
      (!this.rowsShown || performance.now() - this.lastLine >= PROGRESS_LINE_SECONDS * 1000)
    ) {
      this.rowsShown = true
      this.line(text)
    }
  }

  stop(): void {
    this.spinner?.stop()
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
