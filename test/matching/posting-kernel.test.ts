import { describe, expect, it } from 'vitest'
import { invert, LEVEL_SLOTS, levelSlot } from '../../src/matching/job-index.js'
import { PostingKernel, SCAN_CHUNK } from '../../src/matching/kernel/posting-kernel.js'
import type { ProfileColumns } from '../../src/matching/profile-columns.js'
import { SeededRandom } from '../../src/util/seeded-random.js'

/** Random employees' profiles over `skills` skills, as CSR columns (runs in no particular order). */
function employees(random: SeededRandom, count: number, skills: number, maxStrength: number): ProfileColumns {
  const start = new Int32Array(count + 1)
  const skill: number[] = []
  const strength: number[] = []
  const level: number[] = []
  for (let employee = 0; employee < count; employee++) {
    const held = random.sample(
      Array.from({ length: skills }, (_, number) => number),
      random.int(Math.min(skills, 6) + 1),
    )
    for (const number of held) {
      skill.push(number)
      strength.push(random.chance(0.2) ? maxStrength : Math.round(random.next() * maxStrength * 1e4) / 1e4)
      level.push(random.int(6))
    }
    start[employee + 1] = skill.length
  }
  return {
    count,
    start,
    skill: Int32Array.from(skill),
    strength: Float64Array.from(strength),
    level: Uint8Array.from(level),
    critical: new Uint8Array(skill.length),
  }
}

describe('the posting kernel', () => {
  it("groups each skill's postings by level, and packs each so that its strength in steps bounds the strength from above", () => {
    const random = new SeededRandom(7)
    for (const maxStrength of [1, 1.7]) {
      const profiles = employees(random, 300, 12, maxStrength)
      const postings = invert(profiles, 12)
      expect(postings.strengthMax).toBe(maxStrength)
      for (let skill = 0; skill < 12; skill++) {
        expect(postings.start[skill]).toBe(postings.levelStart[skill * LEVEL_SLOTS])
        expect(postings.start[skill + 1]).toBe(postings.levelStart[(skill + 1) * LEVEL_SLOTS])
        const holders = new Set<number>()
        for (let slot = 0; slot < LEVEL_SLOTS; slot++) {
          let previous = -1
          const group = skill * LEVEL_SLOTS + slot
          for (
            let p = postings.levelStart[group] as number;
            p < (postings.levelStart[group + 1] as number);
            p++
          ) {
            const word = postings.entry[p] as number
            const employee = word >>> postings.shift
            expect(employee).toBeGreaterThan(previous)
            previous = employee
            holders.add(employee)
            let row = profiles.start[employee] as number
            while (profiles.skill[row] !== skill) row++
            expect(levelSlot(profiles.level[row] as number)).toBe(slot)
            const steps = word & postings.strengthSteps
            const bound = (steps * postings.strengthMax) / postings.strengthSteps
            expect(bound).toBeGreaterThanOrEqual((profiles.strength[row] as number) * (1 - 1e-12))
            expect(bound - (profiles.strength[row] as number)).toBeLessThanOrEqual(
              postings.strengthMax / postings.strengthSteps,
            )
          }
        }
        // Every holder of the skill once.
        let held = 0
        for (let row = 0; row < profiles.skill.length; row++) if (profiles.skill[row] === skill) held++
        expect(holders.size).toBe(held)
        expect((postings.start[skill + 1] as number) - (postings.start[skill] as number)).toBe(held)
      }
    }
  })

  it('adds the factor of each posting to its employee, takes those at the bar, and clears', () => {
    const random = new SeededRandom(11)
    const count = 3 * SCAN_CHUNK
    const profiles = employees(random, count, 4, 1)
    const postings = invert(profiles, 4)
    const kernel = new PostingKernel(postings, count)
    // The kernel sums in single precision: each product and each sum rounded to a float32.
    const expected = new Float32Array(count)
    const factors = [0.5, 1, 0.25, 2, 0.1, 1.5]
    for (const skill of [0, 2, 3]) {
      for (let slot = 0; slot < LEVEL_SLOTS; slot++) {
        const group = skill * LEVEL_SLOTS + slot
        const first = postings.levelStart[group] as number
        const end = postings.levelStart[group + 1] as number
        kernel.walk(first, end, (factors[slot] as number) * (skill + 1))
        const factor = Math.fround((factors[slot] as number) * (skill + 1))
        for (let p = first; p < end; p++) {
          const word = postings.entry[p] as number
          const employee = word >>> postings.shift
          expected[employee] =
            (expected[employee] as number) + Math.fround(factor * (word & postings.strengthSteps))
        }
      }
    }
    expect([...kernel.bounds]).toEqual([...expected])
    // Scanning skill 0's postings a chunk at a time takes each employee at the bar once.
    const bar = 2000
    const taken: number[] = []
    for (let p = postings.start[0] as number; p < (postings.start[1] as number); p += SCAN_CHUNK) {
      const found = kernel.scan(p, Math.min(postings.start[1] as number, p + SCAN_CHUNK), bar)
      taken.push(...kernel.found.subarray(0, found))
    }
    const reaching: number[] = []
    for (let p = postings.start[0] as number; p < (postings.start[1] as number); p++) {
      const employee = (postings.entry[p] as number) >>> postings.shift
      if ((expected[employee] as number) >= bar) reaching.push(employee)
    }
    expect(reaching.length).toBeGreaterThan(0)
    expect(taken).toEqual(reaching)
    for (const employee of taken) expect(kernel.bounds[employee]).toBe(Number.NEGATIVE_INFINITY)
    expect(kernel.scan(postings.start[0] as number, postings.start[1] as number, bar)).toBe(0)
    for (const skill of [0, 2, 3]) kernel.clear(skill)
    expect(kernel.bounds.every((bound) => bound === 0)).toBe(true)
  })

  it('walks and scans in one pass, taking an employee once its bound reaches the bar', () => {
    const random = new SeededRandom(13)
    const count = 2 * SCAN_CHUNK
    const profiles = employees(random, count, 3, 1)
    const postings = invert(profiles, 3)
    const kernel = new PostingKernel(postings, count)
    const expected = new Float32Array(count)
    const bar = 2500
    const taken: number[] = []
    const reaching: number[] = []
    const factors = [0.3, 0.7, 0.1, 0.9, 0.45, 0.2]
    for (const skill of [1, 0, 2]) {
      for (let slot = 0; slot < LEVEL_SLOTS; slot++) {
        const group = skill * LEVEL_SLOTS + slot
        const first = postings.levelStart[group] as number
        const end = postings.levelStart[group + 1] as number
        for (let p = first; p < end; p += SCAN_CHUNK) {
          const found = kernel.walkScan(p, Math.min(end, p + SCAN_CHUNK), factors[slot] as number, bar)
          taken.push(...kernel.found.subarray(0, found))
        }
        const factor = Math.fround(factors[slot] as number)
        for (let p = first; p < end; p++) {
          const word = postings.entry[p] as number
          const employee = word >>> postings.shift
          expected[employee] =
            (expected[employee] as number) + Math.fround(factor * (word & postings.strengthSteps))
          if ((expected[employee] as number) >= bar && !reaching.includes(employee)) reaching.push(employee)
        }
      }
    }
    expect(reaching.length).toBeGreaterThan(0)
    expect(taken).toEqual(reaching)
    for (let employee = 0; employee < count; employee++) {
      expect(kernel.bounds[employee]).toBe(
        reaching.includes(employee) ? Number.NEGATIVE_INFINITY : (expected[employee] as number),
      )
    }
  })

  it('refuses an index of more employees than a posting word can number', () => {
    const profiles: ProfileColumns = {
      count: 2 ** 28 + 1,
      start: new Int32Array(1),
      skill: new Int32Array(0),
      strength: new Float64Array(0),
      level: new Uint8Array(0),
      critical: new Uint8Array(0),
    }
    expect(() => invert(profiles, 1)).toThrow(/at most 2\^28 employees/)
  })
})
