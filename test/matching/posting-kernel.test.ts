import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { invert, LEVEL_SLOTS, levelSlot } from '../../src/matching/job-index.js'
import type { Postings } from '../../src/matching/job-match-data.js'
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

/**
 * The kernel's four loops in plain TypeScript, one posting after the other: what the WebAssembly
 * text says, with each product and sum rounded to a float32 as the kernel's single precision does.
 */
class PlainKernel {
  readonly bounds: Float32Array
  readonly found: number[] = []

  constructor(
    private readonly postings: Postings,
    employeeCount: number,
  ) {
    this.bounds = new Float32Array(employeeCount)
  }

  /** The employee of posting p and its term for `factor`. */
  private posting(p: number, factor: number): { employee: number; term: number } {
    const word = this.postings.entry[p] as number
    const term = Math.fround(Math.fround(factor) * (word & this.postings.strengthSteps))
    return { employee: word >>> this.postings.shift, term }
  }

  private take(employee: number, bar: number): void {
    if ((this.bounds[employee] as number) < Math.fround(bar)) return
    this.found.push(employee)
    this.bounds[employee] = Number.NEGATIVE_INFINITY
  }

  walk(p: number, end: number, factor: number): void {
    for (; p < end; p++) {
      const { employee, term } = this.posting(p, factor)
      this.bounds[employee] = (this.bounds[employee] as number) + term
    }
  }

  scan(p: number, end: number, bar: number): number {
    this.found.length = 0
    for (; p < end; p++) this.take(this.posting(p, 0).employee, bar)
    return this.found.length
  }

  walkScan(p: number, end: number, factor: number, bar: number): number {
    this.found.length = 0
    for (; p < end; p++) {
      const { employee, term } = this.posting(p, factor)
      this.bounds[employee] = (this.bounds[employee] as number) + term
      this.take(employee, bar)
    }
    return this.found.length
  }

  clear(skill: number): void {
    for (let p = this.postings.start[skill] as number; p < (this.postings.start[skill + 1] as number); p++) {
      this.bounds[this.posting(p, 0).employee] = 0
    }
  }
}

/** A float32 array's bits, so that −0, +0 and −∞ compare exactly. */
const bits = (values: Float32Array) => [...new Uint32Array(values.buffer, values.byteOffset, values.length)]

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

  it('gives the bounds and candidates of a plain TypeScript formulation, call for call, on random postings', () => {
    const call = fc.record({
      kind: fc.constantFrom('walk', 'scan', 'walkScan', 'clear'),
      from: fc.double({ min: 0, max: 1, noNaN: true }),
      length: fc.integer({ min: 0, max: SCAN_CHUNK }),
      factor: fc.double({ min: 0, max: 50, noNaN: true }),
      bar: fc.double({ min: 0, max: 20_000, noNaN: true }),
      skill: fc.nat(),
    })
    // An index of random profiles (made from the seed) and a sequence of calls on it.
    const index = fc.record({
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      count: fc.integer({ min: 1, max: 400 }),
      skills: fc.integer({ min: 1, max: 8 }),
      maxStrength: fc.constantFrom(1, 1.7, 3),
      calls: fc.array(call, { minLength: 1, maxLength: 30 }),
    })
    fc.assert(
      fc.property(index, ({ seed, count, skills, maxStrength, calls }) => {
        const postings = invert(employees(new SeededRandom(seed), count, skills, maxStrength), skills)
        const kernel = new PostingKernel(postings, count)
        const plain = new PlainKernel(postings, count)
        const entries = postings.entry.length
        for (const { kind, from, length, factor, bar, skill } of calls) {
          // Ranges start anywhere, so that the four-at-a-time part and the rest both vary.
          const p = Math.min(entries, Math.floor(from * (entries + 1)))
          const end = Math.min(entries, p + length)
          if (kind === 'walk') {
            kernel.walk(p, end, factor)
            plain.walk(p, end, factor)
          } else if (kind === 'clear') {
            kernel.clear(skill % skills)
            plain.clear(skill % skills)
          } else {
            const found = kind === 'scan' ? kernel.scan(p, end, bar) : kernel.walkScan(p, end, factor, bar)
            const expected = kind === 'scan' ? plain.scan(p, end, bar) : plain.walkScan(p, end, factor, bar)
            expect(found).toBe(expected)
            expect([...kernel.found.subarray(0, found)]).toEqual(plain.found)
          }
          expect(bits(kernel.bounds)).toEqual(bits(plain.bounds))
        }
      }),
      { numRuns: 200 },
    )
  })
})
