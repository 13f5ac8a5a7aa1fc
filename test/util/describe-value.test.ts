import { describe, expect, it } from 'vitest'
import { describeValue } from '../../src/util/describe-value.js'

describe('describeValue', () => {
  it('quotes text, writes numbers and booleans as they are and anything else as JSON', () => {
    expect(describeValue('abc')).toBe("'abc'")
    expect(describeValue(12.5)).toBe('12.5')
    expect(describeValue(true)).toBe('true')
    expect(describeValue(null)).toBe('null')
    expect(describeValue({ a: [1, 2] })).toBe('{"a":[1,2]}')
  })

  it('says so for a number beyond a double and for NaN', () => {
    expect(describeValue(JSON.parse('1e400'))).toBe('a number beyond the range of a double')
    expect(describeValue(Number.NaN)).toBe('NaN')
  })

  it('cuts a long value to 120 characters and marks the cut', () => {
    const shown = describeValue('x'.repeat(500))
    expect(shown).toBe(`'${'x'.repeat(119)}…`)
  })

  it('only names a value nested too deep or holding too many items', () => {
    let deep: unknown = 1
    for (let level = 0; level < 20; level++) deep = [deep]
    expect(describeValue(deep)).toBe('an array too deep or too long to show')
    const large = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`k${index}`, index]))
    expect(describeValue(large)).toBe('an object too deep or too large to show')
  })
})
