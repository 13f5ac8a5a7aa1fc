import type { VocabLanguage } from '../schemas/vocabulary-languages.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { SkillNames } from '../taxonomy/skill-names.js'
import { listValue } from '../vendor/duckdb.js'
import { weightedTargetSkills } from './job-index.js'
import { explanation } from './match-jobs.js'
import {
  type Coverage,
  contribution,
  roundFigure,
  type ScoringFeatures,
  scoreCoverage,
} from './scoring-model.js'
import type { EmployeeEvents, EmployeeEvidence, EmployeeForMatching } from './vacancy-employee.js'
import type { VacancyIndex } from './vacancy-index.js'
import type { VacancyMatchRecord } from './vacancy-match-schema.js'
import type { VacancyPlan } from './vacancy-request-check.js'

/** What the records of one page of 4.11 are made from. */
export interface VacancyPage {
  index: VacancyIndex
  plan: VacancyPlan
  employee: EmployeeForMatching
  query: { offset: number; response_format: string }
  includes: ReadonlySet<string>
  features: ScoringFeatures
  language: VocabLanguage
  names?: SkillNames | undefined
  evidence: EmployeeEvidence | undefined
  /** The employee's evidence events (include=relevant_experience). */
  events: EmployeeEvents | undefined
  /** The page's vacancies' titles and descriptions (include=entity). */
  entities: Map<string, { title: string; description: string | null }> | undefined
}

/** The record of one ranked vacancy, at `position` on the page, with the requested includes. */
export function vacancyRecord(
  page: VacancyPage,
  entry: { vacancy: number; score: number },
  position: number,
): VacancyMatchRecord {
  const { index, includes, query } = page
  const vacancy = entry.vacancy
  const vacancyId = index.ids[vacancy] as string
  const record: VacancyMatchRecord = {
    vacancy_id: vacancyId,
    score: entry.score,
    rank: query.offset + position + 1,
  }
  const needCoverage = includes.has('relevant_experience') || query.response_format === 'explained'
  const coverage = needCoverage ? vacancyCoverage(page, vacancy) : undefined
  if (includes.has('custom_properties')) record.custom_properties = index.customProperties[vacancy] ?? {}
  if (page.entities)
    record.entity = page.entities.get(vacancyId) ?? {
      title: index.titles[vacancy] as string,
      description: null,
    }
  if (includes.has('location')) record.location = vacancyLocation(page, vacancy)
  if (page.events && coverage) record.relevant_experience = relevantExperience(page, page.events, coverage)
  if (includes.has('score_breakdown')) record.score_breakdown = scoreBreakdown(page.plan, vacancy)
  if (includes.has('match_feedback')) {
    const feedback = page.employee.feedback.get(vacancyId)
    record.match_feedback = feedback
      ? { feedback: feedback.feedback as never, timestamp: feedback.timestamp }
      : null
  }
  if (coverage && page.names && query.response_format === 'explained') {
    record.explanation = vacancyExplanation(page, page.names, vacancy, coverage)
  }
  return record
}

/** S_skills of the employee for the vacancy with its explanation (scoring-model.ts, section 1). */
function vacancyCoverage(page: VacancyPage, vacancy: number): Coverage {
  const { index, plan } = page
  return scoreCoverage(
    weightedTargetSkills(index.targets, index.skillIds, index.features, vacancy),
    (skill) => {
      const number = index.skillIndex.get(skill) as number
      return plan.heldMask[number] === 1
        ? { strength: plan.held[number] as number, level: plan.heldLevel[number] as number }
        : undefined
    },
    page.features,
  )
}

/** include=location: the vacancy's place and its distance from the request's origin. */
function vacancyLocation(page: VacancyPage, vacancy: number): VacancyMatchRecord['location'] {
  const { index } = page
  const known = !Number.isNaN(index.lat[vacancy] as number)
  const distance = page.plan.distance?.[vacancy]
  return {
    location: index.location[vacancy] ?? null,
    lat: known ? (index.lat[vacancy] as number) : null,
    lng: known ? (index.lng[vacancy] as number) : null,
    known,
    distance_km: distance !== undefined && !Number.isNaN(distance) ? Math.round(distance * 10) / 10 : null,
    ...(index.locationNote[vacancy] ? { note: index.locationNote[vacancy] as string } : {}),
  }
}

/**
 * include=relevant_experience: the employee's events that show the matched skills (of the allowed
 * event types), newest first, ties by external id.
 */
function relevantExperience(
  page: VacancyPage,
  events: EmployeeEvents,
  coverage: Coverage,
): VacancyMatchRecord['relevant_experience'] {
  const allowed = page.plan.allowedEventTypes
  const byEvent = new Map<string, string[]>()
  for (const skill of coverage.matched) {
    for (const item of page.evidence?.get(skill.skill_id) ?? []) {
      if (allowed && !allowed.has(item.event_type)) continue
      const list = byEvent.get(item.external_id) ?? []
      list.push(skill.skill_id)
      byEvent.set(item.external_id, list)
    }
  }
  return [...byEvent.entries()]
    .flatMap(([external_id, skill_ids]) => {
      const event = events.get(external_id)
      return event
        ? [
            {
              external_id,
              event_type: event.event_type as never,
              timestamp: event.timestamp,
              summary: event.summary,
              skill_ids,
            },
          ]
        : []
    })
    .sort((a, b) =>
      a.timestamp > b.timestamp ? -1 : a.timestamp < b.timestamp ? 1 : a.external_id < b.external_id ? -1 : 1,
    )
}

/** include=score_breakdown: each component's score and what it adds to the vacancy's score. */
function scoreBreakdown(plan: VacancyPlan, vacancy: number): VacancyMatchRecord['score_breakdown'] {
  return plan.components.map((component) => {
    const score = component.score(vacancy)
    return {
      weight: component.weight,
      value: component.value,
      score: roundFigure(score),
      contribution: roundFigure(contribution(component.value, score, plan.totalValue)),
      ...(component.property_name ? { property_name: component.property_name } : {}),
    }
  })
}

/** response_format=explained: matched and missing skills, and the notes of the request and the vacancy. */
function vacancyExplanation(
  page: VacancyPage,
  names: SkillNames,
  vacancy: number,
  coverage: Coverage,
): VacancyMatchRecord['explanation'] {
  const notes = [...page.plan.notes]
  const note = page.index.locationNote[vacancy]
  if (note)
    notes.push(`location unknown: ${note}; geo-distance filters did not exclude it and geo_distance scored 0`)
  return {
    ...(explanation(coverage, names, page.language, page.features) as Pick<
      NonNullable<VacancyMatchRecord['explanation']>,
      'matched_skills' | 'missing_skills'
    >),
    notes,
  }
}

/** Titles and descriptions of some vacancies (include=entity), fetched for the page only. */
export async function vacancyEntities(
  database: TenantDatabase,
  ids: string[],
): Promise<Map<string, { title: string; description: string | null }>> {
  if (ids.length === 0) return new Map()
  const rows = await database.all<{ external_id: string; title: string; description: string | null }>(
    `SELECT external_id, doc->>'title' AS title, doc->>'description' AS description FROM vacancies WHERE list_contains($1, external_id)`,
    [listValue(ids)],
  )
  return new Map(rows.map((row) => [row.external_id, { title: row.title, description: row.description }]))
}
