import { afterEach, describe, expect, it, vi } from 'vitest'
import { stderrLogger } from '../../src/server/request-log.js'

describe('the stderr logger', () => {
  afterEach(() => vi.restoreAllMocks())

  it('writes the lines of one turn of the event loop together, whole and in order, once the turn ends', async () => {
    const writes: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      writes.push(String(text))
      return true
    })
    stderrLogger({ msg: 'request', status: 200, n: 1 })
    stderrLogger({ msg: 'request', status: 503, n: 2 })
    expect(writes).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toHaveLength(1)
    const lines = (writes[0] as string).split('\n')
    expect(lines.pop()).toBe('')
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { msg: 'request', level: 'info', n: 1 },
      { msg: 'request', level: 'error', n: 2 },
    ])
    stderrLogger({ msg: 'next turn' })
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toHaveLength(2)
    expect(JSON.parse(writes[1] as string)).toMatchObject({ msg: 'next turn', level: 'info' })
  })

  it('writes at once rather than hold many lines', async () => {
    const writes: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      writes.push(String(text))
      return true
    })
    const long = 'x'.repeat(1000)
    for (let index = 0; index < 100; index++) stderrLogger({ msg: 'request', long })
    expect(writes.length).toBeGreaterThan(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(
      writes
        .join('')
        .split('\n')
        .filter(Boolean)
        .every((line) => JSON.parse(line).long === long),
    ).toBe(true)
  })
})
