import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { PhaseTimer } from '../../src/util/phase-timer.js'

describe('PhaseTimer', () => {
  it('gives each lap the time since the one before, in seconds', async () => {
    const timer = new PhaseTimer()
    await sleep(30)
    timer.lap('first')
    timer.lap('second')
    expect(timer.phases.first).toBeGreaterThanOrEqual(0.025)
    expect(timer.phases.second).toBeLessThan(timer.phases.first as number)
    expect(timer.elapsed()).toBeGreaterThanOrEqual(timer.phases.first as number)
  })

  it('adds a phase named twice and copies each lap into the extra records', () => {
    const timer = new PhaseTimer()
    const vendor: Record<string, number> = {}
    timer.lap('store', 1.5, [vendor])
    timer.lap('store', 0.25, [vendor])
    expect(timer.phases).toEqual({ store: 1.75 })
    expect(vendor).toEqual({ store: 1.75 })
  })

  it('times one piece of work without the time before it', async () => {
    const timer = new PhaseTimer()
    await sleep(40)
    const value = await timer.time('work', async () => {
      await sleep(5)
      return 7
    })
    expect(value).toBe(7)
    // The 40 ms before the work are in the timer's life but not in the phase.
    expect(timer.phases.work).toBeGreaterThanOrEqual(0.004)
    expect(timer.phases.work).toBeLessThanOrEqual(timer.elapsed() - 0.035)
  })
})
