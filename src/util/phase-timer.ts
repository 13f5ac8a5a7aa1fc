/**
 * Seconds spent per named phase of a run (ingest of a file, derivation, the nightly run's
 * stages), measured from one lap to the next and rounded to milliseconds. A phase named twice
 * adds up; `into` lists further records that each lap adds to as well (derivation keeps one per
 * vendor beside the run's).
 */
export class PhaseTimer {
  readonly phases: Record<string, number> = {}
  private readonly started = performance.now()
  private mark = this.started

  /** Closes the phase running since the last lap under `name`, or adds `seconds` measured elsewhere. */
  lap(name: string, seconds?: number, into: Record<string, number>[] = []): number {
    const now = performance.now()
    const spent = seconds ?? Math.round(now - this.mark) / 1000
    // The sum is rounded again: added milliseconds stay milliseconds (no 0.30000000000000004).
    for (const record of [this.phases, ...into])
      record[name] = Math.round(((record[name] ?? 0) + spent) * 1000) / 1000
    if (seconds === undefined) this.mark = now
    return spent
  }

  /** Runs `work` as the phase `name`: the time since the last lap is not counted in it. */
  async time<T>(name: string, work: () => Promise<T>): Promise<T> {
    this.mark = performance.now()
    const result = await work()
    this.lap(name)
    return result
  }

  /** Seconds since the timer was made. */
  elapsed(): number {
    return (performance.now() - this.started) / 1000
  }
}
