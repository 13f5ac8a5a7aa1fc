import type { VacancyMatchWeight } from '../schemas/matching.js'
import { compilePropertyRule, isCustomPropertyRule } from './custom-property-rules.js'
import {
  distanceScore,
  earnedWeight,
  languageRequirementScore,
  type ScoreComponent,
} from './scoring-model.js'
import type { EmployeeEvidence, EmployeeForMatching } from './vacancy-employee.js'
import type { VacancyIndex } from './vacancy-index.js'
import type { VacancyRequestContext } from './vacancy-request-context.js'

/** A weight of 4.11 as a component of the score: s_k of a vacancy number, its value v_k. */
export interface VacancyComponent extends ScoreComponent {
  weight: string
  property_name?: string
}

/** The employee's skills numbered like the vacancy index: strength, level, and 1 where held. */
export interface HeldSkills {
  held: Float64Array
  heldLevel: Uint8Array
  heldMask: Uint8Array
  /** The numbers of the skills held (where heldMask is 1), in the employee's order. */
  heldNumbers: number[]
}

type WeightOf<Kind extends VacancyMatchWeight['weight']> = Extract<VacancyMatchWeight, { weight: Kind }>

/**
 * The weights of a request as components, in the request's order: skills_match is always one
 * (1.0, first, unless the request gives it). Problems and notes go to the context; `distance`
 * tells whether a component reads distances.
 */
export function vacancyComponents(
  context: VacancyRequestContext,
  given: readonly VacancyMatchWeight[],
  skills: HeldSkills,
): { components: VacancyComponent[]; distance: boolean } {
  const weights: readonly VacancyMatchWeight[] = given.some((weight) => weight.weight === 'skills_match')
    ? given
    : [{ weight: 'skills_match', value: 1 }, ...given]
  const offsetOfGiven = weights === given ? 0 : 1
  const components: VacancyComponent[] = []
  for (const [position, weight] of weights.entries()) {
    const field = `weights[${position - offsetOfGiven}]`
    const component = isCustomPropertyRule(weight)
      ? propertyComponent(context, weight, field)
      : componentOf(context, weight, field, skills)
    if (component) components.push(component)
  }
  return { components, distance: weights.some((weight) => weight.weight === 'geo_distance') }
}

/** One weight (not a custom property rule) as a component. */
function componentOf(
  context: VacancyRequestContext,
  weight: VacancyMatchWeight,
  field: string,
  skills: HeldSkills,
): VacancyComponent | null {
  switch (weight.weight) {
    case 'skills_match':
      return { weight: weight.weight, value: weight.value, score: skillsScore(context.index, skills) }
    case 'desired_functions':
      return desiredFunctionsComponent(context.index, context.employee, weight)
    case 'geo_distance':
      return distanceComponent(context, weight, field)
    case 'language':
      return languageComponent(context.index, context.spoken, weight)
    default:
      return null
  }
}

/** A custom property weight: the rule's score of the vacancy, named by its property or properties. */
function propertyComponent(
  context: VacancyRequestContext,
  weight: VacancyMatchWeight,
  field: string,
): VacancyComponent {
  const { index, employeeProps } = context
  const rule = compilePropertyRule(weight, field, context.rules)
  return {
    weight: weight.weight,
    value: weight.value,
    property_name:
      'property_name' in weight
        ? weight.property_name
        : `${(weight as { from_entity_property: string }).from_entity_property}/${(weight as { to_entity_property: string }).to_entity_property}`,
    score: (vacancy) => rule.score(employeeProps, index.customProperties[vacancy]),
  }
}

/** S_skills of the employee for a vacancy (scoring-model.ts, section 1), over the index's rows. */
function skillsScore(index: VacancyIndex, skills: HeldSkills): (vacancy: number) => number {
  const { targets } = index
  const { held, heldLevel, heldMask } = skills
  const proficiency = index.features.proficiencyMatching
  return (vacancy: number) => {
    const total = targets.total[vacancy] as number
    if (!(total > 0)) return 0
    let sum = 0
    const to = targets.start[vacancy + 1] as number
    for (let row = targets.start[vacancy] as number; row < to; row++) {
      const skill = targets.skill[row] as number
      if (heldMask[skill] === 0) continue
      sum += earnedWeight(
        targets.weight[row] as number,
        held[skill] as number,
        targets.required[row] as number,
        heldLevel[skill] as number,
        proficiency,
      )
    }
    return sum / total
  }
}

/** 1 when the vacancy's job, or its job's family, is among the employee's desired functions. */
function desiredFunctionsComponent(
  index: VacancyIndex,
  employee: EmployeeForMatching,
  weight: WeightOf<'desired_functions'>,
): VacancyComponent {
  const desired = new Set(employee.record.desired_functions ?? [])
  return {
    weight: weight.weight,
    value: weight.value,
    score: (vacancy) => {
      const job = index.jobId[vacancy]
      const family = index.familyId[vacancy]
      return (job && desired.has(job)) || (family && desired.has(family)) ? 1 : 0
    },
  }
}

/** `distanceScore` from the request's origin; 0 for every vacancy when there is none. */
function distanceComponent(
  context: VacancyRequestContext,
  weight: WeightOf<'geo_distance'>,
  field: string,
): VacancyComponent {
  if (weight.zero_score_distance <= weight.full_score_distance) {
    context.problems.add(
      `${field}.zero_score_distance: must be greater than full_score_distance (${weight.full_score_distance}); got ${weight.zero_score_distance}`,
    )
  }
  const from = context.origin
  if (!from && context.originField === null) context.notes.push(`${context.home.note}: geo_distance scored 0`)
  const array = from ? context.distances.from(from) : null
  return {
    weight: weight.weight,
    value: weight.value,
    score: (vacancy) =>
      array
        ? distanceScore(
            Number.isNaN(array[vacancy] as number) ? null : (array[vacancy] as number),
            weight.full_score_distance,
            weight.zero_score_distance,
          )
        : 0,
  }
}

/** The mean `languageRequirementScore` over the vacancy's language requirements (1 without any). */
function languageComponent(
  index: VacancyIndex,
  spoken: Map<string, number>,
  weight: WeightOf<'language'>,
): VacancyComponent {
  const { max_overqualification: maxOver, max_underqualification: maxUnder } = weight
  return {
    weight: weight.weight,
    value: weight.value,
    score: (vacancy) => {
      const from = index.langStart[vacancy] as number
      const to = index.langStart[vacancy + 1] as number
      if (to === from) return 1
      let sum = 0
      for (let row = from; row < to; row++) {
        const heldLevelOf = spoken.get(index.langCode[row] as string) ?? 0
        sum += languageRequirementScore(index.langLevel[row] as number, heldLevelOf, maxOver, maxUnder)
      }
      return sum / (to - from)
    },
  }
}

/**
 * The employee's skills in the index's numbering; with `allowed` event types, only the skills
 * some evidence of those types shows.
 */
export function heldSkills(
  index: VacancyIndex,
  employee: EmployeeForMatching,
  allowed: ReadonlySet<string> | null,
  evidence: EmployeeEvidence | undefined,
): HeldSkills {
  const held = new Float64Array(index.skillIds.length)
  const heldLevel = new Uint8Array(index.skillIds.length)
  const heldMask = new Uint8Array(index.skillIds.length)
  const heldNumbers: number[] = []
  for (const skill of employee.skills) {
    const number = skill.number
    if (allowed) {
      const shown = evidence?.get(index.skillIds[number] as string) ?? []
      if (!shown.some((item) => allowed.has(item.event_type))) continue
    }
    held[number] = skill.strength
    heldLevel[number] = skill.level
    if (heldMask[number] === 0) heldNumbers.push(number)
    heldMask[number] = 1
  }
  return { held, heldLevel, heldMask, heldNumbers }
}
