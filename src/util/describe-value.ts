/** Characters of a value a message shows at most. */
const SHOWN_CHARS = 120

/**
 * A value as a message shows it: text quoted, a number as written (one beyond a double, which
 * JSON.parse reads as Infinity, said so), anything else as JSON; cut to SHOWN_CHARS characters.
 * A value nested deeper than a few levels or holding many items is only named: a body may nest far
 * deeper than JSON.stringify can go, and the message need not repeat a megabyte of it.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value))
    return Number.isNaN(value) ? 'NaN' : 'a number beyond the range of a double'
  let text: string
  if (typeof value === 'string') text = `'${value}'`
  else if (value === null || typeof value !== 'object') text = String(value)
  else if (!small(value))
    return Array.isArray(value)
      ? 'an array too deep or too long to show'
      : 'an object too deep or too large to show'
  else text = JSON.stringify(value)
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text
}

/** Whether a JSON value holds at most 8 levels and 200 values (walked without recursion). */
function small(value: object): boolean {
  const pending: [unknown, number][] = [[value, 0]]
  let values = 0
  while (pending.length > 0) {
    const [item, depth] = pending.pop() as [unknown, number]
    if (++values > 200) return false
    if (item === null || typeof item !== 'object') continue
    if (depth >= 8) return false
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return true
}
