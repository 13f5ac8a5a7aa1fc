import type { z } from 'zod'
import { CustomPropertyDefinitionRow, type CustomPropertyEntityType } from '../schemas/custom-properties.js'
import {
  Company,
  Course,
  Employee,
  Job,
  JobFamily,
  OrganisationalUnit,
  Vacancy,
} from '../schemas/entities.js'
import { MatchFeedback } from '../schemas/matching.js'
import { SkillEventRow } from '../schemas/skill-events.js'

/** A table a reference can point at; `skills` means the tenant's skills of any vendor. */
export type ReferenceTarget =
  | 'organisational_units'
  | 'jobs'
  | 'job_families'
  | 'jobs_or_job_families'
  | 'companies'
  | 'courses'
  | 'employees'
  | 'vacancies'
  | 'skills'

export interface Reference {
  path: string
  target: ReferenceTarget
  id: string
}

/** How one entity of the input files is checked and stored. */
export interface EntityKind {
  entity: string
  schema: z.ZodType
  /** Table rows land in; `doc` tables keep the validated record whole, as JSON. */
  table: string
  storage: 'doc' | 'skill_events' | 'definitions' | 'match_feedback'
  /** Extra indexed columns of a `doc` table, read from the record. */
  columns?: readonly string[]
  customPropertyType?: CustomPropertyEntityType
  key: (record: Record<string, unknown>) => string
  references: (record: Record<string, unknown>) => Reference[]
  /** Every target `references` may name, loaded before the file is read. */
  referenceTargets: readonly ReferenceTarget[]
  /** Ingest order in a folder: what others refer to comes first. */
  order: number
}

const id = (record: Record<string, unknown>) => String(record.external_id)
const ref = (path: string, target: ReferenceTarget, value: unknown): Reference[] =>
  typeof value === 'string' ? [{ path, target, id: value }] : []
const governedSkills = (record: Record<string, unknown>): Reference[] =>
  ((record.skills as { skill_id: string }[] | undefined) ?? []).flatMap((skill, index) =>
    ref(`skills.${index}.skill_id`, 'skills', skill.skill_id),
  )

export const ENTITY_KINDS: readonly EntityKind[] = [
  {
    entity: 'custom_property_definitions',
    schema: CustomPropertyDefinitionRow,
    table: 'custom_property_definitions',
    storage: 'definitions',
    key: (record) => `${record.entity_type}/${record.property_name}`,
    references: () => [],
    referenceTargets: [],
    order: 0,
  },
  {
    entity: 'companies',
    schema: Company,
    table: 'companies',
    storage: 'doc',
    customPropertyType: 'companies',
    key: id,
    references: () => [],
    referenceTargets: [],
    order: 1,
  },
  {
    entity: 'organisational_units',
    schema: OrganisationalUnit,
    table: 'organisational_units',
    storage: 'doc',
    columns: ['parent_id'],
    customPropertyType: 'organisational_units',
    key: id,
    references: (record) => ref('parent_id', 'organisational_units', record.parent_id),
    referenceTargets: ['organisational_units'],
    order: 2,
  },
  {
    entity: 'job_families',
    schema: JobFamily,
    table: 'job_families',
    storage: 'doc',
    customPropertyType: 'job_architecture/job_families',
    key: id,
    references: governedSkills,
    referenceTargets: ['skills'],
    order: 3,
  },
  {
    entity: 'jobs',
    schema: Job,
    table: 'jobs',
    storage: 'doc',
    columns: ['job_family_id'],
    customPropertyType: 'job_architecture/jobs',
    key: id,
    references: (record) => [
      ...ref('job_family_id', 'job_families', record.job_family_id),
      ...governedSkills(record),
    ],
    referenceTargets: ['job_families', 'skills'],
    order: 4,
  },
  {
    entity: 'courses',
    schema: Course,
    table: 'courses',
    storage: 'doc',
    customPropertyType: 'courses',
    key: id,
    references: () => [],
    referenceTargets: [],
    order: 5,
  },
  {
    entity: 'vacancies',
    schema: Vacancy,
    table: 'vacancies',
    storage: 'doc',
    columns: ['status', 'job_id', 'company_id', 'organisational_unit_id'],
    customPropertyType: 'vacancies',
    key: id,
    references: (record) => [
      ...ref('job_id', 'jobs', record.job_id),
      ...ref('company_id', 'companies', record.company_id),
      ...ref('organisational_unit_id', 'organisational_units', record.organisational_unit_id),
    ],
    referenceTargets: ['jobs', 'companies', 'organisational_units'],
    order: 6,
  },
  {
    entity: 'employees',
    schema: Employee,
    table: 'employees',
    storage: 'doc',
    columns: ['organisational_unit_id', 'job_id'],
    customPropertyType: 'employees',
    key: id,
    references: (record) => [
      ...ref('organisational_unit_id', 'organisational_units', record.organisational_unit_id),
      ...ref('job_id', 'jobs', record.job_id),
      ...((record.desired_functions as string[] | undefined) ?? []).flatMap((value, index) =>
        ref(`desired_functions.${index}`, 'jobs_or_job_families', value),
      ),
    ],
    referenceTargets: ['organisational_units', 'jobs_or_job_families'],
    order: 7,
  },
  {
    entity: 'skill_events',
    schema: SkillEventRow,
    table: 'skill_events',
    storage: 'skill_events',
    key: id,
    references: (record) => {
      const content = (record.content ?? {}) as Record<string, unknown>
      return [
        ...ref('employee_id', 'employees', record.employee_id),
        ...ref('content.job_id', 'jobs', content.job_id),
        ...ref('content.course_id', 'courses', content.course_id),
        ...ref('content.skill_id', 'skills', content.skill_id),
      ]
    },
    referenceTargets: ['employees', 'jobs', 'courses', 'skills'],
    order: 8,
  },
  {
    entity: 'match_feedback',
    schema: MatchFeedback,
    table: 'match_feedback',
    storage: 'match_feedback',
    key: (record) => `${record.employee_id}/${record.vacancy_id}`,
    references: (record) => [
      ...ref('employee_id', 'employees', record.employee_id),
      ...ref('vacancy_id', 'vacancies', record.vacancy_id),
    ],
    referenceTargets: ['employees', 'vacancies'],
    order: 9,
  },
]

export const ENTITY_NAMES = ENTITY_KINDS.map((kind) => kind.entity)

export function entityKind(entity: string): EntityKind | undefined {
  return ENTITY_KINDS.find((kind) => kind.entity === entity)
}
