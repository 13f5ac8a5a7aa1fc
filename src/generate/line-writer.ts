import { createWriteStream, type WriteStream } from 'node:fs'

/** A buffered line writer of one generated file that counts its data rows. */
export class LineWriter {
  private readonly stream: WriteStream
  private buffer: string[] = []
  private size = 0
  rows = 0
  constructor(path: string) {
    this.stream = createWriteStream(path)
  }
  private congested = false
  /** A line that is not a data row (a CSV header). */
  header(text: string) {
    this.buffer.push(text)
  }
  line(text: string) {
    this.buffer.push(text)
    this.size += text.length
    this.rows++
    if (this.size > 1 << 20) this.flush()
  }
  /** Waits while the file stream is congested, so that memory stays flat at any size. */
  async drained() {
    if (!this.congested) return
    await new Promise<void>((resolve) => this.stream.once('drain', () => resolve()))
    this.congested = false
  }
  json(value: unknown) {
    this.line(JSON.stringify(value))
  }
  private flush() {
    if (this.buffer.length && !this.stream.write(`${this.buffer.join('\n')}\n`)) this.congested = true
    this.buffer = []
    this.size = 0
  }
  async close() {
    this.flush()
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject)
      this.stream.end(() => resolve())
    })
  }
}
