import { describeValue } from '../util/describe-value.js'
import { z } from '../vendor/zod.js'

/**
 * zod as every schema of ours uses it: with messages that say what would be valid and what was
 * sent (`must be at least 1; got 0`, `must be one of a, b; got 'c'`) wherever a schema gives no
 * message of its own, instead of zod's defaults (`Too small: expected number to be >=1`). Every
 * caller puts the field's path in front.
 */
z.config({ customError: (issue) => message(issue as unknown as Issue) })

export { z }

interface Issue {
  code: string
  input?: unknown
  expected?: string
  origin?: string
  minimum?: number | bigint
  maximum?: number | bigint
  inclusive?: boolean
  exact?: boolean
  format?: string
  pattern?: string
  values?: readonly unknown[]
  divisor?: number
  keys?: readonly string[]
}

function message(issue: Issue): string | undefined {
  const got = issue.input === undefined ? '' : `; got ${describeValue(issue.input)}`
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? `is required (${issue.expected})`
        : `must be ${article(issue.expected ?? 'value')}${got}`
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small'
      const bound = Number(small ? issue.minimum : issue.maximum)
      const relation = issue.exact
        ? 'exactly'
        : small
          ? issue.inclusive === false
            ? 'more than'
            : 'at least'
          : issue.inclusive === false
            ? 'less than'
            : 'at most'
      switch (issue.origin) {
        case 'string':
          return `must be ${relation} ${bound} character${bound === 1 ? '' : 's'} long; got ${typeof issue.input === 'string' ? issue.input.length : '?'}`
        case 'array':
        case 'set':
          return `must hold ${relation} ${bound} item${bound === 1 ? '' : 's'}; got ${Array.isArray(issue.input) ? issue.input.length : '?'}`
        default:
          return `must be ${relation} ${bound}${got}`
      }
    }
    case 'invalid_value':
      return `must be one of ${(issue.values ?? []).map((value) => describeValue(value)).join(', ')}${got}`
    case 'invalid_format':
      return issue.format === 'regex' && issue.pattern
        ? `must match the pattern ${issue.pattern}${got}`
        : `must be a valid ${issue.format ?? 'value'}${got}`
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}${got}`
    case 'unrecognized_keys':
      return `holds unknown field(s) ${(issue.keys ?? []).join(', ')}`
    default:
      return undefined
  }
}

const article = (expected: string) => (/^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`)
