import type { z } from 'zod'
import { errors, type SkillhouseError } from '../errors/skillhouse-error.js'

/** One problem of a request input: the dotted field path, and whether it is of structure or of value. */
export interface InputIssue {
  path: string
  message: string
  /** True for a wrong structure (400): a missing or mistyped field, an unknown field, not an object. */
  structural: boolean
}

/**
 * Classifies zod issues the way section 7 tells 400 from 422: a body "not structured correctly"
 * (a field missing or of the wrong JSON type, a field the schema does not have) is a 400, a field
 * holding invalid data (a bad date, an enumeration value that does not exist, a value out of
 * range) a 422. A union is judged by its branch that fits best, so that a working_history whose
 * start_date is not a date reads as that one bad value, not as "matches no variant".
 */
export function classifyIssues(issues: readonly z.core.$ZodIssue[], input: unknown): InputIssue[] {
  const out: InputIssue[] = []
  const walk = (list: readonly z.core.$ZodIssue[], prefix: PropertyKey[]) => {
    for (const issue of list) {
      const path = [...prefix, ...issue.path]
      if (issue.code === 'invalid_union') {
        const branches = issue.errors
        if (branches.length === 0) {
          // A discriminated union whose discriminator names no variant: an enumeration value
          // that does not exist (422), unless the discriminator is missing or not a string (400).
          const value = valueAt(input, path)
          out.push({ path: dotted(path), message: issue.message, structural: typeof value !== 'string' })
          continue
        }
        walk(bestBranch(branches, valueAt(input, path)), path)
        continue
      }
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          out.push({
            path: dotted([...path, key]),
            message: 'is not a field here; remove it',
            structural: true,
          })
        }
        continue
      }
      if (valueAt(input, path) === undefined) {
        // Whatever the schema says of the value, the field is not there: a missing field is structure.
        const expected = issue.code === 'invalid_type' ? ` (${issue.expected})` : ''
        out.push({ path: dotted(path), message: `is required${expected}`, structural: true })
        continue
      }
      // A number where an integer is expected is a value out of its range, not a wrong type; so
      // is a number beyond a double (JSON.parse reads it as Infinity, which zod refuses as a number).
      if (
        issue.code === 'invalid_type' &&
        !(
          (issue.expected === 'int' || issue.expected === 'number') &&
          typeof valueAt(input, path) === 'number'
        )
      ) {
        out.push({ path: dotted(path), message: `must be of type ${issue.expected}`, structural: true })
        continue
      }
      out.push({ path: dotted(path), message: issue.message, structural: false })
    }
  }
  walk(issues, [])
  return out
}

/**
 * Parses `input` with `schema`; on failure throws one SkillhouseError: 400 when any problem is of
 * structure, else 422, with one description per problem naming its field (`what` names the
 * whole input, e.g. "a company", for problems at the top).
 */
export function parseBody<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  throw inputError(classifyIssues(parsed.error.issues, input), what)
}

/**
 * Parses query parameters with `schema`; every problem is a 422 naming the parameter (a query
 * string has no structure to get wrong, only values).
 */
export function parseQuery<T extends z.ZodType>(schema: T, query: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(query)
  if (parsed.success) return parsed.data
  throw errors.invalidQuery(
    classifyIssues(parsed.error.issues, query).map(
      (issue) => `query parameter ${issue.path || '(any)'}: ${issue.message}`,
    ),
  )
}

/** The error for classified problems: 400 when any is of structure, else 422. */
export function inputError(issues: readonly InputIssue[], what: string): SkillhouseError {
  const structural = issues.some((issue) => issue.structural)
  return errors.invalidInput(
    structural,
    issues.map((issue) => `${issue.path || what}: ${issue.message}`),
  )
}

/**
 * The variant meant, of the union's branches, for the value `sent`: the one that knows the most
 * of the fields sent, then the one whose missing fields look most like the unknown fields sent
 * (`title` for `job_title`), then the one with the fewest structural problems, then the fewest
 * problems. A working_history sent with `title` and `description` is then named by the free-text
 * variant's fields, not by the job-linked variant's `job_id` that has fewer problems.
 */
function bestBranch(
  branches: readonly (readonly z.core.$ZodIssue[])[],
  sent: unknown,
): readonly z.core.$ZodIssue[] {
  const fields =
    sent !== null && typeof sent === 'object' && !Array.isArray(sent) ? Object.keys(sent as object) : []
  const rank = (branch: readonly z.core.$ZodIssue[]): number[] => {
    const unknown = new Set(
      branch.flatMap((issue) =>
        issue.code === 'unrecognized_keys' && issue.path.length === 0 ? issue.keys : [],
      ),
    )
    const missing = branch.flatMap((issue) =>
      issue.code === 'invalid_type' && issue.path.length === 1 && !fields.includes(String(issue.path[0]))
        ? [String(issue.path[0])]
        : [],
    )
    const known = fields.filter((field) => !unknown.has(field)).length
    const alike = [...unknown].filter((field) => missing.some((name) => resembles(field, name))).length
    return [-known, -alike, score(branch), branch.length]
  }
  let best = branches[0] ?? []
  let bestRank = rank(best)
  for (const branch of branches.slice(1)) {
    const candidate = rank(branch)
    const first = candidate.findIndex((value, at) => value !== bestRank[at])
    if (first >= 0 && (candidate[first] as number) < (bestRank[first] as number)) {
      best = branch
      bestRank = candidate
    }
  }
  return best
}

/** Whether a field name sent looks like a field of the schema: one is the other with a prefix or suffix. */
const resembles = (sent: string, name: string) =>
  sent !== name &&
  (name.endsWith(`_${sent}`) ||
    name.startsWith(`${sent}_`) ||
    sent.endsWith(`_${name}`) ||
    sent.startsWith(`${name}_`))

const STRUCTURAL = new Set(['invalid_type', 'unrecognized_keys'])
const score = (branch: readonly z.core.$ZodIssue[]) =>
  branch.reduce(
    (sum, issue) =>
      sum +
      (STRUCTURAL.has(issue.code) ? 1000 * (issue.code === 'unrecognized_keys' ? issue.keys.length : 1) : 1),
    0,
  )

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return current
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.')
