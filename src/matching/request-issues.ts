import type { z } from 'zod'
import { errors, type SkillhouseError } from '../errors/skillhouse-error.js'
import { classifyIssues } from '../schemas/input-issues.js'
import { describeValue } from '../util/describe-value.js'

/** A numeric range a field must lie in, for messages that say both ends and what was sent. */
export type Ranges = Record<string, readonly [number, number]>

/** A field path as messages write it: `filters[2].location.postal_code`. */
export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  let text = prefix
  for (const part of path) {
    if (typeof part === 'number') text += `[${part}]`
    else text += text === '' ? String(part) : `.${String(part)}`
  }
  return text === '' ? '(body)' : text
}

/**
 * One line per zod issue, each naming its field and what would be valid: numbers out of range
 * say both ends and the value sent (`limit: must be between 1 and 50; got 80`), unknown kinds of
 * filter or weight list the kinds this endpoint takes.
 */
export function issueMessages(
  issues: readonly z.core.$ZodIssue[],
  ranges: Ranges = {},
  prefix = '',
): string[] {
  // One line per problem: zod may report one value twice (a number beyond a double fails both
  // its range checks).
  return [...new Set(issues.map((issue) => issueMessage(issue, ranges, prefix)))]
}

function issueMessage(issue: z.core.$ZodIssue, ranges: Ranges, prefix: string): string {
  const field = fieldPath(issue.path, prefix)
  const generic = field.replace(/\[\d+\]/g, '[]')
  const input = (issue as { input?: unknown }).input
  switch (issue.code) {
    case 'too_big':
    case 'too_small': {
      const range = ranges[generic] ?? ranges[field]
      if (issue.origin === 'number' || issue.origin === 'int') {
        // Query parameters arrive as text: show the number as it was written.
        const got = typeof input === 'string' ? input : describeValue(input)
        if (range) return `${field}: must be between ${range[0]} and ${range[1]}; got ${got}`
        const bound = issue.code === 'too_big' ? `at most ${issue.maximum}` : `at least ${issue.minimum}`
        return `${field}: must be ${bound}; got ${got}`
      }
      if (issue.origin === 'string') {
        const bound =
          issue.code === 'too_big'
            ? `at most ${issue.maximum} characters`
            : `at least ${issue.minimum} characters`
        return `${field}: must be ${bound}; got ${String(input ?? '').length}`
      }
      if (issue.origin === 'array') {
        const bound =
          issue.code === 'too_big' ? `at most ${issue.maximum} items` : `at least ${issue.minimum} item(s)`
        return `${field}: must hold ${bound}; got ${Array.isArray(input) ? input.length : 0}`
      }
      return `${field}: ${issue.message}`
    }
    case 'invalid_union': {
      const detail = issue as { discriminator?: string; options?: unknown[] }
      if (detail.discriminator) {
        const got = (input as Record<string, unknown> | undefined)?.[detail.discriminator]
        const name = field.endsWith(`.${detail.discriminator}`) ? field : `${field}.${detail.discriminator}`
        return `${name}: must be one of ${(detail.options ?? []).join(', ')}; got ${got === undefined ? 'nothing' : describeValue(got)}`
      }
      return `${field}: ${issue.message}`
    }
    case 'invalid_value':
      return `${field}: must be one of ${issue.values.map(String).join(', ')}; got ${describeValue(input)}`
    case 'invalid_type': {
      if (input === undefined) return `${field}: is required (${issue.expected})`
      // A number beyond a double (JSON.parse reads it as Infinity): out of the field's range.
      const range = ranges[generic] ?? ranges[field]
      if (range && typeof input === 'number')
        return `${field}: must be between ${range[0]} and ${range[1]}; got ${describeValue(input)}`
      return `${field}: must be ${article(issue.expected)}; got ${describeValue(input)}`
    }
    case 'unrecognized_keys':
      return `${field}: unknown field(s) ${issue.keys.join(', ')}`
    default:
      return `${field}: ${issue.message}${input !== undefined && typeof input !== 'object' && !issue.message.includes('; got ') ? `; got ${describeValue(input)}` : ''}`
  }
}

const article = (expected: string) => (/^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`)

/**
 * Parses `input` with `schema`, or throws one error listing every problem: a 422 for invalid
 * values, and for a request body (`part: 'body'`) of the wrong structure (a field missing, of the
 * wrong JSON type or unknown) a 400, as section 7 tells them apart.
 */
export function parseOr422<T extends z.ZodType>(
  schema: T,
  input: unknown,
  ranges: Ranges = {},
  prefix = '',
  part: 'body' | 'query' = 'query',
): z.infer<T> {
  const parsed = schema.safeParse(input, { reportInput: true })
  if (parsed.success) return parsed.data
  const messages = issueMessages(parsed.error.issues, ranges, prefix)
  if (part === 'body' && classifyIssues(parsed.error.issues, input).some((issue) => issue.structural)) {
    throw errors.badRequest(messages)
  }
  throw errors.unprocessable(messages)
}

/** Collects 422 messages and throws them together, so that a client fixes a request in one go. */
export class ProblemList {
  readonly messages: string[] = []

  add(message: string): void {
    this.messages.push(message)
  }

  get empty(): boolean {
    return this.messages.length === 0
  }

  error(): SkillhouseError {
    return errors.unprocessable(this.messages)
  }

  throwIfAny(): void {
    if (!this.empty) throw this.error()
  }
}
