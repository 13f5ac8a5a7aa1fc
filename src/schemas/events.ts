import { ExternalId, Timestamp } from './common.js'
import { TaxonomyOperationType } from './taxonomy.js'
import { TenantName } from './tenant-settings.js'
import { ExternalVendor } from './vendors.js'
import { z } from './zod.js'

/**
 * The webhook events of section 6: the CloudEvents 1.0 envelope the outbox stores, exports and
 * delivers, and the data object of each event type. Data objects are open: new fields may be
 * added to an existing version (6, rule 3), so consumers ignore fields they do not know.
 */

/** A structured-mode CloudEvent 1.0 as the outbox exports and delivers it (section 6.1). */
export const OutboxCloudEvent = z.object({
  specversion: z.literal('1.0'),
  id: z.string().min(1),
  type: z.string().min(1),
  source: z.string().min(1),
  time: Timestamp,
  datacontenttype: z.literal('application/json'),
  subject: z.string().optional(),
  data: z.record(z.string(), z.unknown()),
})
export type OutboxCloudEvent = z.infer<typeof OutboxCloudEvent>

/** Data of the skill profile events: the entity whose profile changed; the consumer fetches it. */
export const ProfileEventData = z.object({ tenant_name: TenantName, external_id: ExternalId })

/** Data of the skill events: the skill, and the vendor to pass when fetching it (6, rule 6). */
export const SkillChangeEventData = z.object({
  tenant_name: TenantName,
  external_id: ExternalId,
  external_vendor: ExternalVendor,
})

/** Data of `ai.vendor.taxonomy.updated.v1`: one taxonomy operation and the change that records it. */
export const TaxonomyEventData = z.object({
  tenant_name: TenantName,
  operation_type: TaxonomyOperationType,
  external_id: ExternalId,
})

/** Data of `ai.vendor.health_check`: an empty object. */
export const HealthCheckEventData = z.object({})

/**
 * The event types of 6.2 with their data object and the path of their `source` below the
 * tenant's base URL, in the spec's order. Every source is an endpoint of the API (a test checks
 * it against the server's routes).
 */
export const CLOUD_EVENT_TYPES = {
  'ai.vendor.employee.skill_profile.updated.v1': {
    data: ProfileEventData,
    source: '/employees/{employee_external_id}/skill_profile',
  },
  'ai.vendor.employee.skill_profile.suggested_updated.v1': {
    data: ProfileEventData,
    source: '/employees/{employee_external_id}/skill_profile',
  },
  'ai.vendor.job_architecture.job.skill_profile.updated.v1': {
    data: ProfileEventData,
    source: '/job_architecture/jobs/{job_external_id}/skill_profile',
  },
  'ai.vendor.job_architecture.job.skill_profile.suggested_updated.v1': {
    data: ProfileEventData,
    source: '/job_architecture/jobs/{job_external_id}/skill_profile',
  },
  'ai.vendor.course.skill_profile.updated.v1': {
    data: ProfileEventData,
    source: '/courses/{course_external_id}/skill_profile',
  },
  'ai.vendor.taxonomy.skill.created.v1': {
    data: SkillChangeEventData,
    source: '/taxonomy/skills/{skill_external_id}',
  },
  'ai.vendor.taxonomy.skill.updated.v1': {
    data: SkillChangeEventData,
    source: '/taxonomy/skills/{skill_external_id}',
  },
  'ai.vendor.taxonomy.skill.deleted.v1': {
    data: SkillChangeEventData,
    source: '/taxonomy/skills/{skill_external_id}',
  },
  // The change itself is read with POST /taxonomy/changes and its external_id (4.13).
  'ai.vendor.taxonomy.updated.v1': { data: TaxonomyEventData, source: '/taxonomy/changes' },
  // Sent to a consumer being subscribed: the subscriptions' collection.
  'ai.vendor.health_check': { data: HealthCheckEventData, source: '/webhooks' },
} as const satisfies Record<string, { data: z.ZodObject; source: string }>

export type CloudEventType = keyof typeof CLOUD_EVENT_TYPES

/** The CloudEvent of one event type: the envelope with its `type` fixed and its data object. */
export function cloudEventOf<T extends CloudEventType>(type: T) {
  return OutboxCloudEvent.extend({ type: z.literal(type), data: CLOUD_EVENT_TYPES[type].data })
}

/** `--since` of `events export`: an ISO 8601 date or a date-time with an offset. */
export const EventsSince = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDThh:mm:ssZ)',
})

export const EventsExportOptions = z.strictObject({
  since: EventsSince.optional(),
  out: z.string().min(1).optional(),
})
export type EventsExportOptions = z.input<typeof EventsExportOptions>
