import { describe, expect, it } from 'vitest'
import { SeededRandom } from '../../src/util/seeded-random.js'

const draws = (random: SeededRandom, count: number) => Array.from({ length: count }, () => random.next())

describe('SeededRandom', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    expect(draws(new SeededRandom(42), 20)).toEqual(draws(new SeededRandom(42), 20))
    expect(draws(new SeededRandom(42), 20)).not.toEqual(draws(new SeededRandom(43), 20))
  })

  it('draws floats in [0, 1) and integers in their ranges', () => {
    const random = new SeededRandom(7)
    const floats = draws(random, 2000)
    expect(Math.min(...floats)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...floats)).toBeLessThan(1)
    const between = new Set(Array.from({ length: 200 }, () => random.between(3, 5)))
    expect(between).toEqual(new Set([3, 4, 5]))
    const ints = Array.from({ length: 200 }, () => random.int(4))
    expect(ints.every((value) => Number.isInteger(value) && value >= 0 && value < 4)).toBe(true)
  })

  it('treats seed 0 as a seed of its own, not as a stuck state', () => {
    const values = draws(new SeededRandom(0), 10)
    expect(new Set(values).size).toBe(10)
  })

  it('picks, samples without repeating, and refuses to pick from an empty list', () => {
    const random = new SeededRandom(11)
    const items = ['a', 'b', 'c', 'd', 'e']
    expect(items).toContain(random.pick(items))
    const sample = random.sample(items, 3)
    expect(new Set(sample).size).toBe(3)
    expect(random.sample(items, 10)).toHaveLength(5)
    expect(() => random.pick([])).toThrow('pick from an empty list')
  })

  it('never picks an item of weight zero', () => {
    const random = new SeededRandom(5)
    const picked = new Set(Array.from({ length: 500 }, () => random.weighted(['x', 'y', 'z'], [1, 0, 3])))
    expect(picked).toEqual(new Set(['x', 'z']))
  })

  it('answers a chance of 0 never and of 1 always', () => {
    const random = new SeededRandom(9)
    const rolls = Array.from({ length: 200 }, () => [random.chance(0), random.chance(1)])
    expect(rolls.every(([never, always]) => !never && always)).toBe(true)
  })
})
