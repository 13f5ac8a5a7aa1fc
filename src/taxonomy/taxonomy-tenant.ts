import type { z } from 'zod'
import { errors } from '../errors/skillhouse-error.js'
import { classifyIssues } from '../schemas/input-issues.js'
import type { TenantSettings } from '../schemas/tenant-settings.js'
import { type ExternalVendor, VENDORS } from '../schemas/vendors.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import { MALFORMED_TEXT, malformedText } from '../util/malformed-text.js'

/**
 * What a taxonomy operation needs of a tenant. An `OpenTenant` of the tenant service fits, and so
 * will the server's per-request tenant.
 */
export interface TaxonomyTenant {
  database: TenantDatabase
  settings: TenantSettings
  baseUrl: string
  /**
   * A version of the data that changes whenever anything may have written to the database, given
   * by a caller that keeps the tenant open (the server's pool, for reads); absent in one-off
   * commands. While it holds, indexes built from the data may be used without asking the
   * database whether the data changed.
   */
  dataVersion?: string | undefined
}

/** Who events are about: the tenant's name and the base URL their `source` hangs below. */
export interface EventContext {
  tenantName: string
  baseUrl: string
}

export const eventContextOf = (tenant: TaxonomyTenant): EventContext => ({
  tenantName: tenant.settings.name,
  baseUrl: tenant.baseUrl,
})

/**
 * The event context a tenant database records in its own settings table (the tenant service
 * writes `name` and `base_url` there before the database is initialised), for code that is handed
 * only the database, such as the initial vocabulary load.
 */
export async function eventContextFromDatabase(database: TenantDatabase): Promise<EventContext> {
  const rows = await database.all<{ key: string; value: string }>(
    `SELECT key, value::VARCHAR AS value FROM settings WHERE key IN ('name', 'base_url')`,
  )
  const value = (key: string) => {
    const row = rows.find((candidate) => candidate.key === key)
    return row ? (JSON.parse(row.value) as unknown) : undefined
  }
  const tenantName = value('name')
  const baseUrl = value('base_url')
  if (typeof tenantName !== 'string' || typeof baseUrl !== 'string') {
    throw errors.internal(
      `tenant database ${database.path} has no name or base_url in its settings; it was not created by \`skillhouse tenant create\``,
    )
  }
  return { tenantName, baseUrl }
}

/**
 * Parses `input` with `schema`; a failure becomes one 422 whose descriptions name each field
 * path (`custom_properties.level: …`, under `prefix` when the input is one named parameter).
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  input: unknown,
  what: string,
  prefix = '',
): z.output<T> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return wellFormed(parsed.data, prefix)
  throw errors.unprocessable(describeIssues(parsed.error.issues, what, prefix))
}

/** `value`, unless a string in it is not text (malformed-text.ts): then a 422 naming the field. */
function wellFormed<T>(value: T, prefix = ''): T {
  const field = malformedText(value, '')
  if (field === null) return value
  throw errors.unprocessable(`${[prefix, field].filter(Boolean).join('.') || '(body)'}: ${MALFORMED_TEXT}`)
}

/** `parseInput` for a request body: a wrong structure (section 7's 400) is told from invalid values (422). */
export function parseRequestBody<T extends z.ZodType>(schema: T, input: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return wellFormed(parsed.data)
  const messages = describeIssues(parsed.error.issues, what)
  if (classifyIssues(parsed.error.issues, input).some((issue) => issue.structural)) {
    throw errors.badRequest(messages)
  }
  throw errors.unprocessable(messages)
}

/** One message per zod issue, each starting with the field path it concerns. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], what: string, prefix = ''): string[] {
  return issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.')
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((key) => (path ? `${path}.${key}` : key))
      return `${keys.join(', ')}: ${keys.length > 1 ? 'are not fields' : 'is not a field'} of ${what}`
    }
    return `${path || what}: ${issue.message}`
  })
}

/**
 * The vendor a request names (default vendor_default), checked: 422 naming `external_vendor` for a
 * value that is no vendor, 403 naming the activated vendors for one the tenant has not activated.
 */
export function requireVendor(
  tenant: TaxonomyTenant,
  vendor: unknown = 'vendor_default',
  /** How to activate it, where the caller knows (a command line). */
  howToActivate?: (vendor: ExternalVendor) => string,
): ExternalVendor {
  if (typeof vendor !== 'string' || !(VENDORS as readonly string[]).includes(vendor)) {
    throw errors.unprocessable(
      `external_vendor: '${String(vendor)}' is not a vendor; valid values: ${VENDORS.join(', ')}`,
    )
  }
  const known = vendor as ExternalVendor
  if (!tenant.settings.vendors.includes(known)) {
    throw errors.forbidden(
      `external_vendor '${known}' is not activated on tenant ${tenant.settings.name}; activated vendors: ${tenant.settings.vendors.join(', ')}${howToActivate ? `; ${howToActivate(known)}` : ''}`,
    )
  }
  return known
}

/** For the taxonomy imports of the command line: the command that activates a vendor. */
export const activateWithTenantUpdate = (tenant: TaxonomyTenant) => (vendor: ExternalVendor) =>
  `activate it with \`skillhouse tenant update ${tenant.settings.name} --vendor ${vendor}\``

/** A JS time as a DuckDB TIMESTAMP parameter; the store's, for the taxonomy's callers. */

/** A TIMESTAMP read back from DuckDB as an ISO 8601 UTC string. */
export function isoTime(value: unknown): string {
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'string') return new Date(value.endsWith('Z') ? value : `${value}Z`).toISOString()
  throw errors.internal(`expected a timestamp, got ${String(value)}`)
}
