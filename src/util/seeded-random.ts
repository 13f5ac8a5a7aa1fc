/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same sequence everywhere. */
export class SeededRandom {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive)
  }

  between(min: number, max: number): number {
    return min + this.int(max - min + 1)
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[this.int(items.length)] as T
  }

  /** Picks by weight; `weights` align with `items`. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    const total = weights.reduce((sum, weight) => sum + weight, 0)
    let roll = this.next() * total
    for (let index = 0; index < items.length; index++) {
      roll -= weights[index] as number
      if (roll < 0) return items[index] as T
    }
    return items[items.length - 1] as T
  }

  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items]
    const result: T[] = []
    while (result.length < count && copy.length > 0) {
      result.push(copy.splice(this.int(copy.length), 1)[0] as T)
    }
    return result
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }
}
