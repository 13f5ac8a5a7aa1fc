import { describe, expect, it } from 'vitest'
import { scanWords, WordScanner } from '../../src/extraction/text-tokens.js'

const words = (text: string) => scanWords(text).map((span) => text.slice(span.start, span.end))

describe('the word scanner', () => {
  it('keeps a leading dot before a letter and a trailing plus or hash', () => {
    expect(words('Built .NET and C++ tools, some C#; v1.2 of front-end.js')).toEqual([
      'Built',
      '.NET',
      'and',
      'C++',
      'tools',
      'some',
      'C#',
      'v1',
      '2',
      'of',
      'front',
      'end',
      'js',
    ])
  })

  it('gives the same word the same hash wherever it stands, and the gap before each word', () => {
    const text = 'SQL, then sql and SQL again'
    const scanner = new WordScanner().reset(text)
    const hashes: number[] = []
    while (scanner.next()) hashes.push(scanner.hash)
    expect(hashes[0]).toBe(hashes[4])
    expect(hashes[0]).not.toBe(hashes[2])
    expect(new Set(hashes).size).toBe(5)
    expect(scanWords(text).map((span) => span.gapStart)).toEqual([0, 3, 9, 13, 17, 21])
  })

  it('starts afresh on the next text and finds no word in an empty or wordless one', () => {
    const scanner = new WordScanner().reset('one two')
    expect(scanner.next()).toBe(true)
    scanner.reset(' …— ')
    expect(scanner.next()).toBe(false)
    expect(scanner.reset('').next()).toBe(false)
    expect(scanner.reset('again').next() && scanner.end).toBe(5)
  })
})
