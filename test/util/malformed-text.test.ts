import { describe, expect, it } from 'vitest'
import { MALFORMED_TEXT, malformedText } from '../../src/util/malformed-text.js'

const lone = JSON.parse('"a\\ud800b"') as string

describe('malformedText', () => {
  it('finds nothing in well-formed text, pairs of surrogates included', () => {
    expect(malformedText({ name: 'Zoë', emoji: '😀', list: ['a', { b: 'c' }] }, '')).toBeNull()
  })

  it('names the dotted path of the first string holding a lone surrogate', () => {
    expect(malformedText({ name: 'ok', content: { items: ['fine', lone] } }, '')).toBe('content.items.1')
    expect(malformedText({ content: { text: lone } }, 'row 3')).toBe('row 3.content.text')
  })

  it('names a key that holds one', () => {
    expect(malformedText({ outer: { [lone]: 1 } }, '')).toBe(`outer.${lone}`)
  })

  it('names the value itself when it is the string', () => {
    expect(malformedText(lone, 'description')).toBe('description')
  })

  it('says what would be valid', () => {
    expect(MALFORMED_TEXT).toContain('send valid Unicode')
  })
})
