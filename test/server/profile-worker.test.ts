import { afterEach, describe, expect, it, vi } from 'vitest'
import { ProfileWorker } from '../../src/server/profile-worker.js'

/** Changes at `perSecond` for `seconds` on the fake clock, in steps of 10 ms. */
async function stream(worker: ProfileWorker, perSecond: number, seconds: number) {
  for (let step = 0; step < seconds * 100; step++) {
    for (let change = 0; change < perSecond / 100; change++) worker.schedule('acme')
    await vi.advanceTimersByTimeAsync(10)
  }
}

describe('the profile worker', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  /** A worker on the fake clock that notes when each run starts, as ms since `start`. */
  const counting = () => {
    vi.useFakeTimers()
    const start = Date.now()
    const runs: number[] = []
    const worker = new ProfileWorker({
      derive: async () => {
        runs.push(Date.now() - start)
      },
      delayMs: 300,
      maxDelayMs: 10_000,
      burstMaxDelayMs: 60_000,
      burstPerSecond: 200,
    })
    return { worker, runs }
  }

  it('derives under a steady stream of changes at least every maxDelayMs', async () => {
    const { worker, runs } = counting()
    await stream(worker, 100, 25)
    expect(runs).toEqual([10_000, 20_000])
    await vi.advanceTimersByTimeAsync(1_000)
    expect(runs).toHaveLength(3)
    await worker.stop()
  })

  it('waits for a burst of changes up to burstMaxDelayMs, then derives it in one run', async () => {
    const { worker, runs } = counting()
    await stream(worker, 3_000, 30)
    expect(runs).toEqual([])
    await vi.advanceTimersByTimeAsync(1_000)
    // 300 ms after the last change, made at 29,990 ms.
    expect(runs).toEqual([30_290])
    // A burst longer than burstMaxDelayMs is derived at least that often.
    await stream(worker, 3_000, 70)
    expect(runs).toHaveLength(2)
    await worker.stop()
  })
})
