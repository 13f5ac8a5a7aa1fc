import { errors } from '../errors/skillhouse-error.js'
import { IsoDate } from '../schemas/common.js'
import { z } from '../vendor/zod.js'

/** What `skillhouse report` is asked for; flags map onto it one to one. */
export const ReportOptions = z.strictObject({
  out: z.string().min(1),
  external_vendor: z.string().optional(),
  vocab_language: z.string().optional(),
  as_of: IsoDate.optional(),
  locale: z
    .string()
    .refine(
      (value) => isLocale(value),
      'must be a BCP 47 locale this Node.js knows (for example en-GB, nl-BE, de-DE)',
    )
    .optional(),
  depth: z.number().int().min(1).max(20).default(2),
  group_by: z.enum(['skill_cluster', 'subdomain']).default('skill_cluster'),
})
export type ReportOptions = z.output<typeof ReportOptions>

/** Checks the options; every problem is one 422 line naming its field and what is valid. */
export function parseReportOptions(input: unknown): ReportOptions {
  const parsed = ReportOptions.safeParse(input)
  if (parsed.success) return parsed.data
  throw errors.unprocessable(
    parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? 'options')
      const got = (input as Record<string, unknown>)[key]
      return `\`${key}\`: ${issue.message}${got === undefined ? '' : `; got '${String(got)}'`}`
    }),
  )
}

/** The locale of this environment (Intl's default, which follows LANG / LC_ALL). */
export const environmentLocale = (): string => new Intl.NumberFormat().resolvedOptions().locale

function isLocale(value: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([value]).length > 0
  } catch {
    return false
  }
}
