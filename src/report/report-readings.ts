import { THIN_HOLDERS } from './gather-bench.js'
import { HEATMAP_LEVEL } from './gather-organisation.js'
import type { LocaleFormat } from './number-format.js'
import type {
  BenchStrength,
  DataQuality,
  Mobility,
  OrganisationHeatmap,
  Overview,
  SupplyDemand,
} from './report-model.js'

/**
 * The short plain-language reading under each chart: what the figures say, in sentences a
 * reader outside engineering can act on. Built from the same figures as the chart and the
 * workbook.
 */
export function overviewReading(overview: Overview, asOf: string, format: LocaleFormat): string[] {
  const lines = [
    `${format.count(overview.employees)} employees, ${format.count(overview.jobs)} jobs and ${format.count(overview.vacancies)} vacancies, ${format.count(overview.open_vacancies)} of them open. Their profiles use ${format.count(overview.skills_in_use)} different skills.`,
  ]
  const held = overview.skills_by_level.reduce((sum, row) => sum + row.held, 0)
  if (overview.employees_in_units === 0 && held > 0) {
    lines.push(
      `No employee belongs to an organisational unit, so low data availability is not counted (spec 4.6 counts it per unit); the chart shows instead the ${format.count(held)} skills their profiles hold, by level.`,
    )
  }
  if (overview.employees_in_units > 0) {
    lines.push(
      `${format.share(overview.low_data_in_units / overview.employees_in_units)} of the ${format.count(overview.employees_in_units)} employees placed in an organisational unit have low data availability (fewer than 3 skills, no skill event in the last 3 years, or no profile yet): what the report says about them rests on little.`,
    )
  }
  lines.push(
    overview.latest_event
      ? `The latest skill event is dated ${format.day(overview.latest_event)}${overview.last_ingest ? `; data was last loaded on ${format.moment(overview.last_ingest)}` : ''}.`
      : 'The tenant holds no skill events yet.',
  )
  lines.push(
    overview.derived_as_of
      ? `Profiles were last derived as of ${format.day(overview.derived_as_of)}${overview.derived_at ? ` (on ${format.moment(overview.derived_at)})` : ''}; the report is as of ${format.day(asOf)}.`
      : `Skill profiles have not been derived yet: run skillhouse derive (or skillhouse run) first; the report is as of ${format.day(asOf)}.`,
  )
  return lines
}

export function heatmapReading(heatmap: OrganisationHeatmap, format: LocaleFormat): string[] {
  const roots = heatmap.units.filter((unit) => unit.depth === 1)
  const everyone = roots.reduce((sum, unit) => sum + unit.employees, 0)
  const widest = heatmap.groups[0]
  const lines: string[] = []
  if (widest && everyone > 0) {
    lines.push(
      `The most widely held ${noun(heatmap)} is ${widest.name}: ${format.share(widest.holders / everyone)} of employees hold one of its skills at level ${HEATMAP_LEVEL} or more.`,
    )
  }
  const inner = heatmap.units.filter((unit) => unit.depth > 1 && unit.employees > 0)
  if (widest && inner.length > 0) {
    const strongest = inner.reduce((best, unit) =>
      (unit.holders[0] ?? 0) / unit.employees > (best.holders[0] ?? 0) / best.employees ? unit : best,
    )
    lines.push(
      `${strongest.name} has the highest share in ${widest.name} (${format.share((strongest.holders[0] ?? 0) / strongest.employees)}). Pale cells are where a ${heatmap.rows_by === 'jobs' ? 'job' : 'unit'} is thin in a ${noun(heatmap)} the organisation has elsewhere.`,
    )
  }
  if (heatmap.rows_by === 'jobs') {
    lines.push(
      `No employee belongs to an organisational unit, so rows are all employees and, below them, their jobs, with their employees in brackets; columns are the ${format.count(heatmap.charted_groups)} most held of ${format.count(heatmap.groups.length)} ${noun(heatmap)}s (all of them are in the workbook). Place employees in organisational units to compare units instead.`,
    )
    return lines
  }
  lines.push(
    `Rows are units down to depth ${heatmap.depth} with their employees in brackets (each unit counts every unit below it); columns are the ${format.count(heatmap.charted_groups)} most held of ${format.count(heatmap.groups.length)} ${noun(heatmap)}s (all of them are in the workbook).${heatmap.employees_without_unit > 0 ? ` ${format.count(heatmap.employees_without_unit)} employees belong to no unit and are in no row.` : ''}`,
  )
  return lines
}

export function supplyDemandReading(supply: SupplyDemand, format: LocaleFormat): string[] {
  const short = supply.skills.filter((skill) => skill.shortage > 0)
  const top = supply.skills[0]
  const lines = [
    'Demand counts the open vacancies that ask for a skill; jobs are shown beside it but not counted, as a job describes a role that is mostly filled already.',
  ]
  if (top) {
    const level = top.asked_level === null ? '' : ` (typically at level ${top.asked_level})`
    lines.push(
      top.shortage > 0
        ? `The largest shortage is ${top.skill_name}: ${format.count(top.demand)} open vacancies ask for it${level}, and ${format.count(top.holders)} employees hold it at that level.`
        : `No skill is short: each is held at the level asked by at least as many employees as open vacancies ask for it. The closest is ${top.skill_name}: ${format.count(top.demand)} open vacancies ask for it${level}, and ${format.count(top.holders)} employees hold it at that level.`,
    )
  }
  lines.push(
    `${format.count(short.length)} of the ${format.count(supply.skills.length)} skills most asked for are held by fewer employees than the open vacancies that ask for them; these are candidates for hiring or training. Skills at the bottom are well covered inside.`,
  )
  return lines
}

export function mobilityReading(mobility: Mobility, format: LocaleFormat): string[] {
  const none = mobility.vacancies.filter((vacancy) => vacancy.candidates.length === 0).length
  const strong = mobility.vacancies.filter((vacancy) => vacancy.strong_candidates > 0).length
  return [
    `Of ${format.count(mobility.vacancies.length)} open vacancies, ${format.count(none)} have no internal candidate within reach (50 km, any skill in common) and ${format.count(strong)} have at least one employee scoring ${format.matchScore(mobility.strong_score)} or above, who could be approached first.`,
    'For the best candidate of each vacancy, the table lists the skills they lack or hold below the level asked: what a move would take to learn.',
  ]
}

export function benchReading(bench: BenchStrength, format: LocaleFormat): string[] {
  const empty = bench.jobs.filter((job) => job.matching === 0).length
  const thin = bench.jobs.filter((job) => job.thin_critical_skills.length > 0).length
  return [
    `Of ${format.count(bench.jobs.length)} jobs, ${format.count(empty)} have no employee matching at ${format.matchScore(bench.score_threshold)} or more: if their holders left, nobody inside could step in.`,
    `${format.count(thin)} jobs have a critical skill that fewer than ${THIN_HOLDERS} employees hold at the job's level: one departure would leave the organisation without it.`,
  ]
}

export function dataQualityReading(quality: DataQuality, format: LocaleFormat): string[] {
  const texts = quality.event_types.filter((type) => type.without_skill !== null)
  const events = quality.event_types.reduce((sum, type) => sum + type.events, 0)
  const lines: string[] = []
  if (events === 0) lines.push('The tenant holds no skill events yet.')
  else if (!quality.derived)
    lines.push(
      `${format.count(events)} skill events are stored; profiles have not been derived from them yet.`,
    )
  else {
    const textEvents = texts.reduce((sum, type) => sum + type.events, 0)
    const without = texts.reduce((sum, type) => sum + (type.without_skill ?? 0), 0)
    const worst = [...texts].sort(
      (a, b) => (b.without_skill ?? 0) / b.events - (a.without_skill ?? 0) / a.events,
    )[0]
    lines.push(
      `${format.share(textEvents > 0 ? without / textEvents : 0)} of ${format.count(textEvents)} skill events with a text gave no skill to a profile: the extraction found no skill of the vocabulary in them, or too little to count.${worst ? ` The weakest type is ${worst.event_type} (${format.share((worst.without_skill ?? 0) / worst.events)}).` : ''}`,
    )
  }
  const future = quality.future_dated
  if (future.events > 0)
    lines.push(
      `${format.count(future.events)} skill events are dated after ${future.after}, the latest ${future.latest}: they count only from their dates on. Dates in the future are often a source's clock or a day-month swap; check them at the source.`,
    )
  const run = quality.last_run
  lines.push(
    run
      ? `The last nightly run (${run.run_id}, ${run.status}${run.finished_at ? `, ${format.moment(run.finished_at)}` : ''}) rejected ${format.count(run.rejected_rows)} input rows${run.rejected_rows > 0 ? '; its rejects folder names each row, field and reason' : ''}.`
      : 'No nightly run (skillhouse run) is recorded for this tenant, so there are no rejected rows to report.',
  )
  return lines
}

const noun = (heatmap: OrganisationHeatmap) =>
  heatmap.group_by === 'subdomain' ? 'subdomain' : 'skill cluster'
