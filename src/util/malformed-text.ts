/**
 * Strings that are not text: JSON allows an escape such as "\\ud800" alone (an unpaired UTF-16
 * surrogate), which DuckDB cannot store as text (it refuses the statement, or a JSON column keeps
 * U+FFFD instead). Every input that is stored is asked, so that such a value is named by its
 * field with what would be valid.
 */

/** What is wrong with such a value, and what would be valid. */
export const MALFORMED_TEXT =
  'holds an unpaired UTF-16 surrogate (an escape such as \\ud800 alone), which is not text; send valid Unicode'

/** A surrogate code point: in a `u` pattern a well-formed pair is one code point, so only a lone one matches. */
const LONE_SURROGATE = /\p{Cs}/u

/**
 * The dotted path of the first string (or key) in `value` that is not well-formed UTF-16, or
 * null. Every row is asked, so paths are built only once a walk has found one (a second walk);
 * both walks keep a stack of their own (a row may nest deeper than the call stack).
 */
export function malformedText(value: unknown, path: string): string | null {
  if (!holdsLoneSurrogate(value)) return null
  const pending: [unknown, string][] = [[value, path]]
  while (pending.length > 0) {
    const [item, itemPath] = pending.pop() as [unknown, string]
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return itemPath
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item)
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, member] = entries[index] as [string, unknown]
        const memberPath = itemPath === '' ? key : `${itemPath}.${key}`
        if (LONE_SURROGATE.test(key)) return memberPath
        pending.push([member, memberPath])
      }
    }
  }
  return path
}

function holdsLoneSurrogate(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (typeof item === 'string') {
      if (LONE_SURROGATE.test(item)) return true
    } else if (item !== null && typeof item === 'object') {
      for (const [key, member] of Object.entries(item)) {
        if (LONE_SURROGATE.test(key)) return true
        pending.push(member)
      }
    }
  }
  return false
}
