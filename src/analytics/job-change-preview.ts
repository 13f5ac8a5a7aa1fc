import { createHash } from 'node:crypto'
import type { z } from 'zod'
import { errors } from '../errors/skillhouse-error.js'
import { type JobChangePreview, JobChangePreviewRequest } from '../schemas/analytics.js'
import { DEFAULT_VENDOR } from '../schemas/vendors.js'
import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import { timestampValue } from '../store/sql-values.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { describeIssues, isoTime, type TaxonomyTenant } from '../taxonomy/taxonomy-tenant.js'
import { listValue } from '../vendor/duckdb.js'
import {
  type DescriptionInputs,
  type DescriptionJob,
  type DescriptionSkill,
  defaultLanguage,
  generateJobDescription,
  type OutputLanguage,
  resolveSections,
  understandInstructions,
} from './job-description.js'

export type { JobChangePreview } from '../schemas/index.js'

/** zod issue codes that mean the body is shaped wrongly (400), as opposed to holding a bad value (422). */
const STRUCTURE_CODES = new Set([
  'invalid_type',
  'unrecognized_keys',
  'invalid_union',
  'invalid_key',
  'invalid_element',
])

/** Vocabulary language of the skill names in each output language. */
const VOCAB_OF: Record<OutputLanguage, VocabLanguage> = { en: 'en_uk', nl: 'nl', fr: 'fr', de: 'de' }

/**
 * Checks a preview request body (2.6): a wrong structure (not an object, a missing or mistyped
 * field, a field that is not in 2.6) is a 400; a bad value (a change_type other than
 * add_job_description, an id that is not an ExternalId, an overlong text) a 422. Each message
 * names the field.
 */
export function parseJobChangePreviewRequest(input: unknown): JobChangePreviewRequest {
  const parsed = JobChangePreviewRequest.safeParse(input)
  if (parsed.success) return parsed.data
  const issues: readonly z.core.$ZodIssue[] = parsed.error.issues
  const structural = issues.filter((issue) => STRUCTURE_CODES.has(issue.code))
  if (structural.length > 0) {
    throw errors.malformedPreviewRequest(describeIssues(structural, 'a job change preview request'))
  }
  throw errors.unprocessable(describeIssues(issues, 'a job change preview request'))
}

/**
 * `POST /job_architecture/changes/preview` (4.4, answered 202): generates a job description for
 * the job offline and deterministically (see `generateJobDescription` and
 * `understandInstructions`), stores it and returns its `change_id`.
 *
 * Defaults where 2.6 is silent: `use_internal_job_data` is true (false: no sentence of the stored
 * descriptions of the job, its family or the reference jobs is used, and the language defaults
 * to English); `sections_to_include` absent or empty means every section; the output language
 * is the one `instructions` ask for, else that of the job's own description, else that of the
 * reference jobs' descriptions, else English. Profiles are those of vendor_default.
 *
 * The change_id is derived from the applied request and the generated text: the same request on
 * the same data gives the same change_id (stored once, keeping its first created_at); any change
 * of data that changes the text gives a new one. 400/422 as `parseJobChangePreviewRequest` and
 * for unknown section names; 404 naming the unknown job or reference jobs.
 */
export async function previewJobChange(
  tenant: TaxonomyTenant,
  input: unknown,
): Promise<{ change_id: string }> {
  const request = parseJobChangePreviewRequest(input)
  const sections = resolveSections(request.context.sections_to_include)
  const instructions = request.context.instructions ?? null
  const understood = understandInstructions(instructions ?? undefined)
  const useInternalJobData = request.context.use_internal_job_data ?? true
  const referenceIds = [...new Set(request.context.reference_job_ids ?? [])].filter(
    (id) => id !== request.job_id,
  )
  const inputs = await loadDescriptionInputs(tenant, request.job_id, referenceIds)
  const language = understood.language ?? defaultLanguage(inputs, useInternalJobData)
  const generated = generateJobDescription(inputs, {
    sections,
    language,
    length: understood.length ?? 'standard',
    useInternalJobData,
  })
  const context: JobChangePreview['context'] = {
    instructions,
    reference_job_ids: referenceIds,
    sections_to_include: sections,
    use_internal_job_data: useInternalJobData,
  }
  const stored: Omit<JobChangePreview, 'change_id' | 'created_at'> = {
    change_type: request.change_type,
    job_id: request.job_id,
    status: 'previewed',
    language,
    title: generated.title,
    job_description: generated.text,
    sections: generated.sections,
    context,
    instructions_applied: understood.applied,
  }
  const changeId = `jcp-${createHash('sha256').update(JSON.stringify(stored)).digest('hex').slice(0, 32)}`
  await tenant.database.run(`INSERT OR IGNORE INTO job_change_previews VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    changeId,
    request.change_type,
    request.job_id,
    language,
    JSON.stringify(request),
    JSON.stringify(stored),
    timestampValue(new Date()),
  ])
  return { change_id: changeId }
}

/** A stored Job change preview by its change_id; 404 when no preview has it. */
export async function getJobChangePreview(
  tenant: TaxonomyTenant,
  changeId: string,
): Promise<JobChangePreview> {
  const row = await tenant.database.one<{ preview: string; created_at: unknown }>(
    'SELECT preview::VARCHAR AS preview, created_at FROM job_change_previews WHERE change_id = $1',
    [changeId],
  )
  if (!row)
    throw errors.notFound(
      'job change preview',
      changeId,
      'generate one with POST /job_architecture/changes/preview',
    )
  const stored = JSON.parse(row.preview) as Omit<JobChangePreview, 'change_id' | 'created_at'>
  return {
    change_id: changeId,
    change_type: stored.change_type,
    job_id: stored.job_id,
    status: stored.status,
    created_at: isoTime(row.created_at),
    language: stored.language,
    title: stored.title,
    job_description: stored.job_description,
    sections: stored.sections,
    context: stored.context,
    instructions_applied: stored.instructions_applied,
  }
}

type JobRow = {
  external_id: string
  title: string
  description: string | null
  job_family_id: string | null
}

/** The job, its family and the reference jobs with their vendor_default profiles; 404 for unknown jobs. */
async function loadDescriptionInputs(
  tenant: TaxonomyTenant,
  jobId: string,
  referenceIds: readonly string[],
): Promise<DescriptionInputs> {
  const ids = [jobId, ...referenceIds]
  const rows = await tenant.database.all<JobRow>(
    `SELECT external_id, json_extract_string(doc, '$.title') AS title,
            json_extract_string(doc, '$.description') AS description, job_family_id
       FROM jobs WHERE list_contains($1, external_id)`,
    [listValue(ids)],
  )
  const byId = new Map(rows.map((row) => [row.external_id, row]))
  const missing = ids.filter((id) => !byId.has(id))
  if (missing.length > 0) throw errors.unknownPreviewJobs(jobId, missing)
  const job = byId.get(jobId) as JobRow
  const family = job.job_family_id
    ? await tenant.database.one<{ external_id: string; name: string; description: string | null }>(
        `SELECT external_id, json_extract_string(doc, '$.name') AS name,
                json_extract_string(doc, '$.description') AS description
           FROM job_families WHERE external_id = $1`,
        [job.job_family_id],
      )
    : undefined
  const skills = await jobSkills(tenant, ids)
  const describe = (row: JobRow): DescriptionJob => ({
    external_id: row.external_id,
    title: row.title,
    description: row.description,
    skills: skills.get(row.external_id) ?? [],
  })
  return {
    job: describe(job),
    family: family ?? null,
    references: referenceIds.map((id) => describe(byId.get(id) as JobRow)),
  }
}

/** The profile skills of several jobs, with their names in the four output languages. */
async function jobSkills(
  tenant: TaxonomyTenant,
  jobIds: readonly string[],
): Promise<Map<string, DescriptionSkill[]>> {
  const rows = await tenant.database.all<{
    entity_id: string
    skill_id: string
    validation_state: string
    score: number
    level: number | null
    critical: boolean
    skill_type: string
  }>(
    `SELECT p.entity_id, p.skill_id, p.validation_state, p.score,
            coalesce(p.governed_proficiency_level, p.proficiency_level) AS level,
            coalesce(p.governed_critical, p.inferred_critical, false) AS critical,
            coalesce(s.skill_type, 'hard_skill') AS skill_type
       FROM profile_skills p
       LEFT JOIN skills s ON s.external_vendor = p.external_vendor AND s.external_id = p.skill_id
      WHERE p.entity_type = 'job' AND p.external_vendor = $2 AND list_contains($1, p.entity_id)`,
    [listValue([...jobIds]), DEFAULT_VENDOR],
  )
  const labels = await tenant.database.all<{ skill_id: string; language: string; label: string }>(
    `SELECT skill_id, language, label FROM skill_labels
      WHERE external_vendor = $2 AND kind = 'name' AND skill_id IN (
        SELECT skill_id FROM profile_skills
         WHERE entity_type = 'job' AND external_vendor = $2 AND list_contains($1, entity_id))
      ORDER BY skill_id, language, label`,
    [listValue([...jobIds]), DEFAULT_VENDOR],
  )
  const names = SkillNames.fromLabels(labels)
  const byJob = new Map<string, DescriptionSkill[]>()
  for (const row of rows) {
    const nameIn = (language: OutputLanguage) => names.name(row.skill_id, VOCAB_OF[language]) ?? row.skill_id
    const skill: DescriptionSkill = {
      skill_id: row.skill_id,
      names: { en: nameIn('en'), nl: nameIn('nl'), fr: nameIn('fr'), de: nameIn('de') },
      skill_type: row.skill_type,
      validated: row.validation_state === 'validated',
      score: row.score,
      level: row.level,
      critical: row.critical,
    }
    const list = byJob.get(row.entity_id)
    if (list) list.push(skill)
    else byJob.set(row.entity_id, [skill])
  }
  return byJob
}
