import { describe, expect, it } from 'vitest'
import { courseCredit, courseSequence, type GapNeed, gapWeight } from '../../src/recommend/course-sequence.js'
import { npmiOf } from '../../src/recommend/related-skills.js'

const need = (
  skill_id: string,
  weight: number,
  required: number | null,
  held: number | null = 0,
): GapNeed => ({
  skill_id,
  weight,
  required_level: required,
  held_level: held,
})

describe('the course recommendation rule', () => {
  it('weighs a critical skill double and each level short once', () => {
    expect(gapWeight(true, 4, 2)).toBe(4)
    expect(gapWeight(false, 3, 0)).toBe(3)
    expect(gapWeight(false, null, 0)).toBe(1)
    expect(gapWeight(true, null, null)).toBe(2)
  })

  it('gives full credit at the level needed or an unknown level, part of the way below, none at or under the level held', () => {
    expect(courseCredit(need('s', 1, 4, 2), 4)).toBe(1)
    expect(courseCredit(need('s', 1, 4, 2), null)).toBe(1)
    expect(courseCredit(need('s', 1, null), 1)).toBe(1)
    expect(courseCredit(need('s', 1, 4, 2), 3)).toBe(0.5)
    expect(courseCredit(need('s', 1, 3, 0), 2)).toBeCloseTo(2 / 3)
    expect(courseCredit(need('s', 1, 4, 2), 2)).toBe(0)
  })

  it('takes next the course that closes most of what the ones before it left, and stops when none adds anything', () => {
    const gap = [need('java', 4, 4, 2), need('git', 2, 2), need('sql', 3, 3)]
    const teaching = [
      [
        { course: 0, level: 4 },
        { course: 1, level: 3 },
      ],
      [
        { course: 0, level: 2 },
        { course: 2, level: 2 },
      ],
      [{ course: 2, level: 3 }],
    ]
    const steps = courseSequence(gap, teaching, 10)
    expect(steps.map((step) => [step.course, step.gain])).toEqual([
      [0, 6],
      [2, 3],
    ])
    // Course 2 also teaches git, which course 0 closed already: listed as covered, worth nothing more.
    expect(steps[1]?.credits.map((credit) => credit.skill)).toEqual([1, 2])
    expect(steps.map((step) => step.open)).toEqual([[2], []])
  })

  it('counts a skill once at the best level taken: two partial courses do not add up', () => {
    const gap = [need('java', 4, 4, 2)]
    const steps = courseSequence(
      gap,
      [
        [
          { course: 0, level: 3 },
          { course: 1, level: 4 },
        ],
      ],
      5,
    )
    expect(steps.map((step) => step.course)).toEqual([1])
    const partial = courseSequence(
      gap,
      [
        [
          { course: 0, level: 3 },
          { course: 1, level: 3 },
        ],
      ],
      5,
    )
    expect(partial.map((step) => [step.course, step.gain])).toEqual([[0, 2]])
  })

  it('breaks a tie by the smaller course number and keeps to the limit', () => {
    const gap = [need('a', 1, null), need('b', 1, null)]
    const teaching = [[{ course: 3, level: null }], [{ course: 1, level: null }]]
    expect(courseSequence(gap, teaching, 1).map((step) => step.course)).toEqual([1])
    expect(courseSequence(gap, teaching, 5).map((step) => step.course)).toEqual([1, 3])
  })

  it('gives no course for an empty gap or a gap no course teaches', () => {
    expect(courseSequence([], [], 5)).toEqual([])
    expect(courseSequence([need('a', 1, 2)], [[]], 5)).toEqual([])
  })

  it('measures NPMI as 1 for skills always held together, 0 for independent ones, below 0 for skills that avoid each other', () => {
    expect(npmiOf(5, 5, 5, 5)).toBe(1)
    expect(npmiOf(2, 4, 5, 10)).toBeCloseTo(0)
    expect(npmiOf(8, 10, 9, 20)).toBeCloseTo(Math.log(0.4 / (0.5 * 0.45)) / -Math.log(0.4))
    expect(npmiOf(1, 10, 10, 20) as number).toBeLessThan(0)
    expect(npmiOf(0, 10, 10, 20)).toBeNull()
  })
})
