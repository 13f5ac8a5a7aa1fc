import { LIMITS } from '../schemas/limits.js'

/**
 * Splits text, chunk by chunk, into lines (a `\r\n` end counts as `\n`). A line longer than
 * `LIMITS.lineChars` is never held whole: it is handed on as its length only, for the caller to
 * reject, so that one runaway line (a file without line ends, a corrupted export) cannot take the
 * memory of the thread that reads it.
 */
export class LineSplitter {
  private rest = ''
  /** Characters so far of a line already too long, 0 when none is being skipped. */
  private skipped = 0

  constructor(
    private readonly onLine: (text: string) => void,
    private readonly onTooLong: (length: number) => void,
    private readonly max: number = LIMITS.lineChars,
  ) {}

  push(chunk: string): void {
    let from = 0
    if (this.skipped > 0) {
      const end = chunk.indexOf('\n')
      if (end < 0) {
        this.skipped += chunk.length
        return
      }
      this.onTooLong(this.skipped + end)
      this.skipped = 0
      from = end + 1
    }
    const text = from === 0 ? this.rest + chunk : chunk.slice(from)
    let start = 0
    for (;;) {
      const end = text.indexOf('\n', start)
      if (end < 0) break
      this.line(text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end))
      start = end + 1
    }
    this.rest = text.slice(start)
    if (this.rest.length > this.max) {
      this.skipped = this.rest.length
      this.rest = ''
    }
  }

  /** The last line, when the text does not end with a line end. */
  end(): void {
    if (this.skipped > 0) this.onTooLong(this.skipped)
    else if (this.rest.length > 0) this.line(this.rest)
    this.skipped = 0
    this.rest = ''
  }

  private line(text: string) {
    if (text.length > this.max) this.onTooLong(text.length)
    else this.onLine(text)
  }
}

/** The reason a line too long for `LineSplitter` is rejected. */
export const tooLongReason = (length: number) =>
  `line is ${length} characters long; a row may be at most ${LIMITS.lineChars} characters (the longest text field is ${LIMITS.text.max})`

/** Text without the UTF-8 byte order mark it may start with (editors on Windows write one). */
export const withoutByteOrderMark = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
