import { describeValue } from '../util/describe-value.js'
import { LIMITS } from './limits.js'
import { z } from './zod.js'

/** ExternalId (2.1): 1 to 100 characters of `[a-zA-Z0-9_-]`. */
export const ExternalId = z
  .string()
  .min(LIMITS.externalId.min, 'must not be empty')
  .max(LIMITS.externalId.max, `must be at most ${LIMITS.externalId.max} characters`)
  .regex(LIMITS.externalId.pattern, 'must contain only letters, digits, hyphens and underscores')
export type ExternalId = z.infer<typeof ExternalId>

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

/**
 * What is wrong with a value that is not an ISO date: a date of the right shape that is not in
 * the calendar (2022-02-30, 2023-13-01) is named as not existing, anything else as not ISO 8601.
 */
export function dateProblem(input: unknown): string {
  const parts = typeof input === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(input) : null
  if (parts) {
    const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
    if (month < 1 || month > 12)
      return `${input} does not exist: there is no month ${parts[2]} (must be a calendar date, YYYY-MM-DD)`
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate()
    if (day < 1 || day > days)
      return `${input} does not exist: ${MONTHS[month - 1]} ${year} has ${days} days (must be a calendar date, YYYY-MM-DD)`
  }
  return 'must be an ISO 8601 date (YYYY-MM-DD)'
}

/** Date (2.1): an ISO 8601 calendar date, `YYYY-MM-DD`, that exists in the calendar. */
export const IsoDate = z.iso.date({ error: (issue) => dateProblem(issue.input) })
export type IsoDate = z.infer<typeof IsoDate>

/** The date fields each date order check compares (see `datesInOrder`), by the check's definition. */
const DATE_ORDERS = new WeakMap<object, { from: string; to: string }>()

/**
 * `schema` with the rule that its date `to` is not before its date `from` when both are there
 * (an end before its start, an expiry before the issue): a problem of `to`. ISO dates compare as
 * text. The ingest compilers (fast-parse.ts, sql-proof.ts) know the check by `dateOrderOf`, so a
 * schema with it keeps its compiled checks.
 */
export function datesInOrder<T extends z.ZodObject>(schema: T, from: string, to: string): T {
  const refined = schema.refine(
    (value: Record<string, unknown>) => {
      const start = value[from]
      const end = value[to]
      return typeof start !== 'string' || typeof end !== 'string' || end >= start
    },
    {
      path: [to],
      error: (issue) => {
        const value = issue.input as Record<string, unknown>
        return `must not be before ${from} (${String(value?.[from])}); got ${String(value?.[to])}`
      },
    },
  ) as T
  const checks = (refined as unknown as { _zod: { def: { checks?: { _zod: { def: object } }[] } } })._zod.def
    .checks
  const added = checks?.at(-1)?._zod.def
  if (added) DATE_ORDERS.set(added, { from, to })
  return refined
}

/** The fields a date order check compares, or undefined for any other check. */
export const dateOrderOf = (check: object) => DATE_ORDERS.get(check)

/** Timestamp (2.1): an ISO 8601 date-time in UTC. */
export const Timestamp = z.iso.datetime({
  error: 'must be an ISO 8601 date-time in UTC (YYYY-MM-DDThh:mm:ssZ)',
})
export type Timestamp = z.infer<typeof Timestamp>

export const Name = z.string().min(LIMITS.name.min, 'must not be empty').max(LIMITS.name.max)
export const FreeText = z.string().max(LIMITS.text.max)

/** Location: coordinates in degrees. */
export const GeoPoint = z.strictObject({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
})
export type GeoPoint = z.infer<typeof GeoPoint>

/** ISO 3166-1 alpha-2 country code. */
export const CountryCode = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as BE or NL')
  .transform((value) => value.toUpperCase())

/**
 * Address: the spec names country and postal_code; the other fields are the ones a postal
 * address has. Geo-distance resolves an address through the postal-code table.
 */
export const Address = z.strictObject({
  country: CountryCode,
  postal_code: z.string().min(1).max(20),
  street: z.string().max(255).optional(),
  city: z.string().max(255).optional(),
  region: z.string().max(255).optional(),
})
export type Address = z.infer<typeof Address>

/** A Location (lat/lng) or an Address, at most one per entity (2.5). */
export const LocationOrAddress = z.union([GeoPoint, Address], {
  error: 'must be a Location {lat, lng} or an Address {country, postal_code}',
})
export type LocationOrAddress = z.infer<typeof LocationOrAddress>

/** Language requirement or ability (2.5): ISO 639-1 code and level 1 (elementary) to 5 (native). */
export const LanguageLevel = z.strictObject({
  language: z.string().regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code such as en, nl, fr or de'),
  level: z
    .number()
    .int()
    .min(LIMITS.languageLevel.min)
    .max(LIMITS.languageLevel.max)
    .default(LIMITS.languageLevel.default),
})
export type LanguageLevel = z.infer<typeof LanguageLevel>

/** Languages of a record: each language at most once (one level each). */
export const Languages = z
  .array(LanguageLevel)
  .max(50)
  .superRefine((languages, context) => {
    const seen = new Map<string, number>()
    languages.forEach((entry, index) => {
      const first = seen.get(entry.language)
      if (first === undefined) seen.set(entry.language, index)
      else
        context.addIssue({
          code: 'custom',
          path: [index, 'language'],
          message: `language '${entry.language}' is listed twice (entries ${first + 1} and ${index + 1}); list each language once, with one level`,
        })
    })
  })

/** A page of a collection (resource pattern (docs/api.md)). */
export function pageOf<T extends z.ZodType>(record: T) {
  return z.object({
    records: z.array(record),
    has_next: z.boolean(),
    next_starting_after: ExternalId.nullable(),
  })
}

export const PageQuery = z.object({
  starting_after: ExternalId.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
})

/** A proficiency level: 1 (elementary) to 5 (expert), as every level of the spec. */
export const ProficiencyLevel = z.number().int().min(1).max(5)
/** A share or a score: a number from 0 to 1. */
export const Share = z.number().min(0).max(1)

// RFC 6531 (SMTPUTF8): the atoms of a local part and the labels of a domain may hold any letter
// or digit of Unicode besides ASCII's; the last label is letters (or an A-label, `xn--…`).
const ATOM = "[\\p{L}\\p{M}\\p{N}!#$%&'*+/=?^_`{|}~-]+"
const LABEL = '[\\p{L}\\p{M}\\p{N}](?:[\\p{L}\\p{M}\\p{N}-]*[\\p{L}\\p{M}\\p{N}])?'
const INTERNATIONAL_EMAIL = new RegExp(
  `^(?=.{1,64}@)${ATOM}(?:\\.${ATOM})*@(?:${LABEL}\\.)+(?:[\\p{L}\\p{M}]{2,}|xn--[a-z0-9-]+)$`,
  'u',
)

/**
 * An email address as RFC 6531 allows it (`chloé.dubois@acme.test`, `用户@例子.广告`), of at most
 * 255 characters; in the OpenAPI document a string of format `idn-email`, the JSON Schema format
 * of RFC 6531 addresses (`email` means ASCII addresses only).
 */
export const InternationalEmail = z
  .string()
  .max(255)
  // A refinement, not a pattern: the document says `idn-email`, which JSON Schema defines.
  .refine((value) => INTERNATIONAL_EMAIL.test(value), {
    error: (issue) => `must be a valid email; got ${describeValue(issue.input)}`,
  })
  .meta({ format: 'idn-email' })
