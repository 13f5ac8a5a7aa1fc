import { datesInOrder, ExternalId, FreeText, IsoDate } from './common.js'
import { z } from './zod.js'

/** The 12 Skill Event types (2.4). */
export const SKILL_EVENT_TYPES = [
  'working_history',
  'education_history',
  'resume_document',
  'learning',
  'feedback',
  'goal',
  'project',
  'ticket',
  'merge_request',
  'certificate',
  'skill_notes',
  'skill_profile_feedback',
] as const
export const SkillEventType = z.enum(SKILL_EVENT_TYPES)
export type SkillEventType = z.infer<typeof SkillEventType>

/** Event types that may restrict matching (2.4): all but feedback and skill_profile_feedback. */
export const MATCHING_EVENT_TYPES = [
  'working_history',
  'education_history',
  'resume_document',
  'learning',
  'goal',
  'project',
  'ticket',
  'merge_request',
  'certificate',
  'skill_notes',
] as const
export const MatchingEventType = z.enum(MATCHING_EVENT_TYPES)

/** Event types that need model configuration MC_2025_Q1_V1 or later (2.4, 9.2). */
export const MODERN_EVENT_TYPES = ['ticket', 'merge_request', 'dynamic'] as const

const ShortText = z.string().min(1).max(500)
const Tags = z.array(z.string().min(1).max(200)).max(200)

/** working_history: free-text employment (2.4). No end_date means the job is still held. */
export const WorkingHistoryContent = datesInOrder(
  z.strictObject({
    job_title: ShortText,
    start_date: IsoDate,
    end_date: IsoDate.optional(),
    company: ShortText,
    job_description: FreeText,
  }),
  'start_date',
  'end_date',
)
/** working_history_job: employment in one of the tenant's own Jobs, referenced by external_id. */
export const WorkingHistoryJobContent = datesInOrder(
  z.strictObject({
    job_id: ExternalId,
    start_date: IsoDate,
    end_date: IsoDate.optional(),
    company: ShortText.optional(),
  }),
  'start_date',
  'end_date',
)
export const EducationHistoryContent = datesInOrder(
  z.strictObject({
    degree: ShortText,
    field_of_study: ShortText,
    institution: ShortText,
    start_date: IsoDate.optional(),
    end_date: IsoDate.optional(),
    description: FreeText.optional(),
  }),
  'start_date',
  'end_date',
)
export const ResumeDocumentContent = z.strictObject({
  text: FreeText.min(1),
  file_name: ShortText.optional(),
})
/** learning: a learning activity described in free text. */
export const LearningContent = z.strictObject({
  title: ShortText,
  description: FreeText.optional(),
  provider: ShortText.optional(),
  duration_hours: z.number().min(0).max(10_000).optional(),
})
/** learning_course: completion of one of the tenant's Courses, referenced by external_id. */
export const LearningCourseContent = z.strictObject({
  course_id: ExternalId,
  result: z.enum(['completed', 'passed', 'failed', 'attended']).optional(),
  score: z.number().min(0).max(100).optional(),
})
export const FeedbackContent = z.strictObject({
  text: FreeText.min(1),
  given_by: ShortText.optional(),
  rating: z.number().int().min(1).max(5).optional(),
})
export const GoalContent = z.strictObject({
  title: ShortText,
  description: FreeText.optional(),
  target_date: IsoDate.optional(),
  status: z.enum(['open', 'in_progress', 'achieved', 'abandoned']).optional(),
})
export const ProjectContent = datesInOrder(
  z.strictObject({
    name: ShortText,
    description: FreeText,
    role: ShortText.optional(),
    start_date: IsoDate.optional(),
    end_date: IsoDate.optional(),
    technologies: Tags.optional(),
  }),
  'start_date',
  'end_date',
)
export const TicketContent = z.strictObject({
  title: ShortText,
  description: FreeText.optional(),
  system: ShortText.optional(),
  ticket_key: ShortText.optional(),
  labels: Tags.optional(),
})
export const MergeRequestContent = z.strictObject({
  title: ShortText,
  description: FreeText.optional(),
  repository: ShortText,
  changed_files: z.array(z.string().min(1).max(1000)).max(10_000),
})
export const CertificateContent = datesInOrder(
  z.strictObject({
    name: ShortText,
    issuer: ShortText,
    issue_date: IsoDate,
    expiry_date: IsoDate.optional(),
    credential_id: ShortText.optional(),
  }),
  'issue_date',
  'expiry_date',
)
/** skill_notes: a note naming a skill directly; adds evidence for it. */
export const SkillNotesContent = z.strictObject({
  skill_id: ExternalId,
  note: FreeText.optional(),
  proficiency_level: z.number().int().min(1).max(5).optional(),
})
/** skill_profile_feedback: the employee or a manager validates or rejects one skill of the profile. */
export const SkillProfileFeedbackContent = z.strictObject({
  skill_id: ExternalId,
  action: z.enum(['validate', 'reject']),
  comment: FreeText.optional(),
  given_by: ShortText.optional(),
})

/** The content schemas the spec names (2.4), by name. */
export const CONTENT_SCHEMAS = {
  working_history: WorkingHistoryContent,
  working_history_job: WorkingHistoryJobContent,
  education_history: EducationHistoryContent,
  resume_document: ResumeDocumentContent,
  learning: LearningContent,
  learning_course: LearningCourseContent,
  feedback: FeedbackContent,
  goal: GoalContent,
  project: ProjectContent,
  ticket: TicketContent,
  merge_request: MergeRequestContent,
  certificate: CertificateContent,
  skill_notes: SkillNotesContent,
  skill_profile_feedback: SkillProfileFeedbackContent,
} as const

/** Content accepted for each event type: working_history and learning take either variant. */
export const CONTENT_BY_EVENT_TYPE = {
  working_history: z.union([WorkingHistoryContent, WorkingHistoryJobContent]),
  education_history: EducationHistoryContent,
  resume_document: ResumeDocumentContent,
  learning: z.union([LearningContent, LearningCourseContent]),
  feedback: FeedbackContent,
  goal: GoalContent,
  project: ProjectContent,
  ticket: TicketContent,
  merge_request: MergeRequestContent,
  certificate: CertificateContent,
  skill_notes: SkillNotesContent,
  skill_profile_feedback: SkillProfileFeedbackContent,
} as const satisfies Record<SkillEventType, z.ZodType>

const eventOf = <T extends SkillEventType>(type: T) =>
  z.strictObject({
    external_id: ExternalId,
    event_type: z.literal(type),
    timestamp: IsoDate,
    content: CONTENT_BY_EVENT_TYPE[type],
    source: z.string().min(1).max(255),
  })

const eventsOf = <T extends z.ZodRawShape>(extra: T) =>
  SKILL_EVENT_TYPES.map((type) => eventOf(type).extend(extra)) as unknown as [
    ReturnType<typeof eventOf<SkillEventType>>,
    ...ReturnType<typeof eventOf<SkillEventType>>[],
  ]

const eventTypeError = { error: `event_type must be one of: ${SKILL_EVENT_TYPES.join(', ')}` }

/** Skill Event (2.4): the body of `POST /employees/{id}/skill_events`. */
export const SkillEvent = z.discriminatedUnion('event_type', eventsOf({}), eventTypeError)
export type SkillEvent = {
  [T in SkillEventType]: {
    external_id: string
    event_type: T
    timestamp: string
    content: z.infer<(typeof CONTENT_BY_EVENT_TYPE)[T]>
    source: string
  }
}[SkillEventType]

/** A Skill Event as a data file holds it: the employee it is about, then the event. */
export const SkillEventRow = z.discriminatedUnion(
  'event_type',
  eventsOf({ employee_id: ExternalId }),
  eventTypeError,
)
export type SkillEventRow = SkillEvent & { employee_id: string }

/** Query parameters of 4.2 (names: docs/api.md). */
export const SkillEventQuery = z.object({
  language: z.enum(['auto', 'nl', 'fr', 'en', 'de']).default('auto'),
  strict: z.stringbool().default(false),
  end_active_working_history: z.stringbool().default(false),
})
