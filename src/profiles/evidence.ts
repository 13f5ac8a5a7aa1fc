import type { JobTitleIndex, NearestJob } from '../extraction/job-titles.js'
import type { SkillExtractor } from '../extraction/skill-extractor.js'

/** What evidence needs of an extractor: the skills of a text with their scores. */
export type SkillFinder = Pick<SkillExtractor, 'visitSkills'>

/** A stored skill event as derivation reads it. */
export interface EventInput {
  external_id: string
  event_type: string
  /** The date from which the employee holds the event's skills (spec 2.4). */
  timestamp: string
  content: Record<string, unknown>
  language: string | null
  /** Set when a later event ended this active working history (the end_active_working_history option). */
  ended_on: string | null
}

/** One piece of evidence that an employee holds a skill. */
export interface Evidence {
  skill_id: string
  event_id: string
  event_type: string
  /** 0–1: how sure the event is about the skill (extraction score, or 1 when named directly). */
  strength: number
  /** When the evidence starts counting (the event's timestamp). */
  date: string
  /** For periods (employment, projects): start and end; an open end means still ongoing. */
  period?: { start: string; end: string | null }
  /** A level (1–5) stated by the event itself (skill notes). */
  stated_level?: number
}

/** Skills of the tenant's own jobs and courses, for events that reference them by external_id. */
export interface ReferencedProfiles {
  jobs: ReadonlyMap<string, readonly { skill_id: string; score: number }[]>
  courses: ReadonlyMap<string, readonly { skill_id: string; score: number }[]>
  /** The tenant's Jobs as roles: a working history's job_title takes the nearest Job's skills. */
  roles?: JobRoles
}

/**
 * The tenant's Jobs by title, and each Job's own skills: those it governs and those its title
 * and description name, not those it inherits from its family (a title names the role; the
 * family is broader).
 */
export interface JobRoles {
  titles: JobTitleIndex
  skills: ReadonlyMap<string, readonly { skill_id: string; score: number }[]>
}

/**
 * How much each kind of event says about holding a skill. Employment and projects are strong;
 * learning and tickets weaker; a goal is an intention, barely evidence at all.
 */
export const KIND_WEIGHTS: Record<string, number> = {
  working_history: 1,
  project: 0.9,
  certificate: 0.9,
  resume_document: 0.8,
  merge_request: 0.8,
  skill_notes: 1,
  education_history: 0.7,
  feedback: 0.7,
  learning: 0.6,
  ticket: 0.6,
  goal: 0.2,
}

/**
 * Skills a text implies without naming them ("Took blood from outpatients": Phlebotomy) are
 * evidence too, weaker than a named skill: the extractor's confidence in them times this weight,
 * for the best few per text with a confidence of at least `IMPLIED_MIN_CONFIDENCE`. One such
 * piece of evidence stays below the threshold at which a skill is suggested; a skill implied by
 * several events, or implied and named, gets there.
 */
export const IMPLIED_WEIGHT = 0.3
export const IMPLIED_PER_TEXT = 3
export const IMPLIED_MIN_CONFIDENCE = 0.5
/**
 * A working history's job_title implies the skills of the role: the own skills of the tenant's
 * Job whose title is nearest (in any of the four languages; see `JobRoles`) are evidence, weaker
 * than a Job the event names by job_id (0.9): each skill's score times this weight times the
 * titles' similarity. A
 * title that is exactly a Job's puts the Job's strongest skills on the profile; the others need
 * one more piece of evidence.
 */
export const TITLE_WEIGHT = 0.5

/** The Job a working history's job_title stands for, when it names no Job by job_id. */
export function jobOfTitle(event: EventInput, titles: JobTitleIndex | undefined): NearestJob | undefined {
  const c = event.content
  if (titles === undefined || event.event_type !== 'working_history' || typeof c.job_id === 'string') return
  return typeof c.job_title === 'string' ? titles.nearest(c.job_title) : undefined
}

/**
 * The events whose text describes work done (what a recruiter infers skills from); tickets,
 * merge requests, certificates, learning and goals name their subject, or are intentions.
 */
const IMPLYING_EVENTS = new Set([
  'working_history',
  'project',
  'resume_document',
  'feedback',
  'education_history',
])

/** File endings of changed files in merge requests, and the skill label they stand for. */
const FILE_LANGUAGES: Record<string, string> = {
  py: 'Python',
  ts: 'TypeScript',
  tsx: 'TypeScript React',
  js: 'JavaScript',
  jsx: 'JavaScript React',
  java: 'Java',
  kt: 'Kotlin',
  cs: 'C#',
  go: 'Golang',
  rs: 'Rust',
  rb: 'Ruby',
  php: 'PHP',
  sql: 'SQL',
  scala: 'Scala',
  swift: 'Swift',
  tf: 'Terraform',
  ipynb: 'Jupyter Python',
  sh: 'Bash',
  ps1: 'PowerShell',
  vue: 'Vue.js',
  dart: 'Flutter',
  r: 'R programming',
  yml: 'YAML',
  yaml: 'YAML',
  css: 'CSS',
  scss: 'CSS',
  html: 'HTML',
}

/** The non-empty strings among the parts (and inside array parts), joined by ". ". */
function text(...parts: unknown[]): string {
  let joined = ''
  const add = (part: unknown) => {
    if (typeof part !== 'string' || part.length === 0) return
    joined = joined.length === 0 ? part : `${joined}. ${part}`
  }
  for (const part of parts) {
    if (Array.isArray(part)) for (const item of part) add(item)
    else add(part)
  }
  return joined
}

/** The free text an event holds, by event type. */
export function eventText(event: EventInput): string {
  const c = event.content
  switch (event.event_type) {
    case 'working_history':
      return text(c.job_title, c.job_description)
    case 'education_history':
      return text(c.degree, c.field_of_study, c.description)
    case 'resume_document':
      return text(c.text)
    case 'learning':
    case 'goal':
      return text(c.title, c.description)
    case 'feedback':
      return text(c.text)
    case 'project':
      return text(c.name, c.description, c.technologies)
    case 'ticket':
      return text(c.title, c.description, c.labels)
    case 'merge_request': {
      const endings = ((c.changed_files as string[] | undefined) ?? [])
        .map((file) => FILE_LANGUAGES[file.split('.').pop()?.toLowerCase() ?? ''])
        .filter((label): label is string => label !== undefined)
      return text(c.title, c.description, [...new Set(endings)])
    }
    case 'certificate':
      return text(c.name, c.issuer)
    case 'skill_notes':
      return text(c.note)
    default:
      return ''
  }
}

/**
 * The skills one event evidences: found in its text by the extractor, named directly (skill
 * notes), or taken from the profile of the Job or Course it references. Feedback events that
 * validate or reject a skill are not evidence; derivation reads them separately.
 */
export function evidenceOfEvent(
  event: EventInput,
  extractor: SkillFinder,
  referenced: ReferencedProfiles,
  knownSkills: ReadonlySet<string>,
  options: { implied?: boolean } = {},
): Evidence[] {
  if (event.event_type === 'skill_profile_feedback') return []
  const c = event.content
  const period =
    event.event_type === 'working_history' || event.event_type === 'project'
      ? typeof c.start_date === 'string'
        ? { start: c.start_date, end: (c.end_date as string | undefined) ?? event.ended_on ?? null }
        : undefined
      : undefined
  const found = new Map<string, Evidence>()
  const add = (skill_id: string, strength: number, stated_level?: number) => {
    const known = found.get(skill_id)
    if (known && known.strength >= strength) return
    const evidence: Evidence = {
      skill_id,
      event_id: event.external_id,
      event_type: event.event_type,
      strength,
      date: event.timestamp,
    }
    if (period) evidence.period = period
    if (stated_level !== undefined) evidence.stated_level = stated_level
    found.set(skill_id, evidence)
  }
  const referencedSkills =
    typeof c.job_id === 'string'
      ? referenced.jobs.get(c.job_id)
      : typeof c.course_id === 'string'
        ? referenced.courses.get(c.course_id)
        : undefined
  for (const skill of referencedSkills ?? []) add(skill.skill_id, Math.min(1, skill.score) * 0.9)
  const titled = jobOfTitle(event, referenced.roles?.titles)
  if (titled) {
    const weight = TITLE_WEIGHT * titled.similarity
    for (const skill of referenced.roles?.skills.get(titled.job_id) ?? [])
      add(skill.skill_id, Math.min(1, skill.score) * weight)
  }
  if (event.event_type === 'skill_notes' && typeof c.skill_id === 'string' && knownSkills.has(c.skill_id)) {
    add(c.skill_id, 1, typeof c.proficiency_level === 'number' ? c.proficiency_level : undefined)
  }
  const body = eventText(event)
  if (body) {
    // The skills of one text are distinct, so the order they come in changes nothing here; an
    // implied skill is never one the text names.
    extractor.visitSkills(
      body,
      event.language && event.language !== 'auto' ? event.language : 'auto',
      add,
      undefined,
      options.implied === false || !IMPLYING_EVENTS.has(event.event_type)
        ? undefined
        : {
            visit: (skillId, confidence) => add(skillId, confidence * IMPLIED_WEIGHT),
            best: IMPLIED_PER_TEXT,
            minConfidence: IMPLIED_MIN_CONFIDENCE,
          },
    )
  }
  return [...found.values()]
}

/**
 * An event as the derivation query encodes it, as JSON: [external_id, event_type, timestamp,
 * language, ended_on, characters of the content, content].
 */
type EventRecord = [string, string, string, string | null, string | null, number, Record<string, unknown>]

/** The events of JSON-encoded records, parsed in one go, and the characters of their contents. */
export function eventsOfRecords(records: readonly string[]): { events: EventInput[]; contentChars: number } {
  const parsed = JSON.parse(`[${records.join(',')}]`) as EventRecord[]
  const events: EventInput[] = new Array(parsed.length)
  let contentChars = 0
  for (let index = 0; index < parsed.length; index++) {
    const [external_id, event_type, timestamp, language, ended_on, chars, content] = parsed[
      index
    ] as EventRecord
    contentChars += chars
    events[index] = { external_id, event_type, timestamp, content, language, ended_on }
  }
  return { events, contentChars }
}
