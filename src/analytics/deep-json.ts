type Work = { text: string } | { value: unknown; depth: number }

/**
 * `JSON.stringify(value, null, indent)` without recursion, byte for byte the same output for plain
 * JSON data. V8's own stringify overflows the call stack at a nesting depth of about 2,500, and an
 * organisational hierarchy has no depth limit (2.8), so the org export is written with this.
 */
export function stringifyDeep(value: unknown, indent = 0): string {
  const out: string[] = []
  const newline = (depth: number) => (indent > 0 ? `\n${' '.repeat(indent * depth)}` : '')
  const colon = indent > 0 ? ': ' : ':'
  const stack: Work[] = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const item = stack.pop() as Work
    if ('text' in item) {
      out.push(item.text)
      continue
    }
    let current = item.value
    if (
      current !== null &&
      typeof current === 'object' &&
      typeof (current as { toJSON?: unknown }).toJSON === 'function'
    ) {
      current = (current as { toJSON: () => unknown }).toJSON()
    }
    if (current === null || typeof current !== 'object') {
      // As in an array, a value JSON has no spelling for (undefined, a function) becomes null.
      out.push(JSON.stringify(current) ?? 'null')
      continue
    }
    const { depth } = item
    if (Array.isArray(current)) {
      if (current.length === 0) {
        out.push('[]')
        continue
      }
      out.push('[')
      stack.push({ text: `${newline(depth)}]` })
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index], depth: depth + 1 })
        stack.push({ text: `${index > 0 ? ',' : ''}${newline(depth + 1)}` })
      }
      continue
    }
    const entries = Object.entries(current).filter(
      ([, field]) => field !== undefined && typeof field !== 'function' && typeof field !== 'symbol',
    )
    if (entries.length === 0) {
      out.push('{}')
      continue
    }
    out.push('{')
    stack.push({ text: `${newline(depth)}}` })
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, field] = entries[index] as [string, unknown]
      stack.push({ value: field, depth: depth + 1 })
      stack.push({ text: `${index > 0 ? ',' : ''}${newline(depth + 1)}${JSON.stringify(key)}${colon}` })
    }
  }
  return out.join('')
}
