import { describe, expect, it } from 'vitest'
import { LineSplitter } from '../../src/ingest/line-splitter.js'

/** Lines of `chunks` through a splitter that allows `max` characters a line: text, or `#length` when too long. */
function split(chunks: string[], max: number): string[] {
  const out: string[] = []
  const splitter = new LineSplitter(
    (line) => out.push(line),
    (length) => out.push(`#${length}`),
    max,
  )
  for (const chunk of chunks) splitter.push(chunk)
  splitter.end()
  return out
}

describe('LineSplitter', () => {
  it('splits lines across chunk boundaries, with \\n and \\r\\n ends and a last line without one', () => {
    expect(split(['ab\ncd', 'e\r\nf', 'g\n\nh'], 10)).toEqual(['ab', 'cde', 'fg', '', 'h'])
    expect(split(['ab\n'], 10)).toEqual(['ab'])
  })

  it('hands on a line longer than the limit as its length, whole or spread over chunks, and goes on', () => {
    expect(split(['ok\n0123456789AB\nok2\n'], 10)).toEqual(['ok', '#12', 'ok2'])
    // Longer than the limit before its end arrives: skipped chunk by chunk, never held whole.
    expect(split(['a\n01234567', '89ABCDEF', 'GH', 'IJ\nb\n'], 10)).toEqual(['a', '#20', 'b'])
    expect(split(['01234567890123'], 10)).toEqual(['#14'])
    expect(split(['0123456789', '0123456789'], 10)).toEqual(['#20'])
  })
})
