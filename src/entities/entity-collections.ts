import { type EntityKind, entityKind } from '../records/entity-kinds.js'

/**
 * The collections of the resource pattern of docs/api.md (`POST /collection`, `GET|PATCH|DELETE
 * /collection/{id}`, `GET /collection?starting_after=&limit=`) for the entities the spec names but
 * does not describe. Each is checked and stored as its ingest entity is, so that a record sent over
 * HTTP and the same record in a data file end up byte for byte the same row.
 */
export interface EntityCollection {
  /** The path below the tenant's base URL. */
  path: string
  /** The ingest entity: schema, table, indexed columns, references. */
  kind: EntityKind
  /** What one record is called in messages. */
  noun: string
  /** The owner type of its Skill Profile rows, when derivation gives it one. */
  profileType?: 'employee' | 'job' | 'job_family' | 'vacancy' | 'course'
  /**
   * Who refers to a record: a DELETE is refused with 409 while any of these finds one. Fixed SQL
   * taking the record's external_id as $1 and answering the referring external_ids.
   */
  dependents: readonly { sql: string; noun: string }[]
  /** What a DELETE removes with the record: rows that mean nothing without it. Fixed SQL, $1 = id. */
  cascade: readonly string[]
  /** Records whose derived profile depends on this one: their change_seq moves on a DELETE. Fixed SQL, $1 = id. */
  touchOnDelete: readonly string[]
}

const kind = (entity: string): EntityKind => {
  const found = entityKind(entity)
  if (!found) throw new Error(`no ingest entity ${entity}`)
  return found
}

const profileRows = (type: string) => [
  `DELETE FROM profile_skills WHERE entity_type = '${type}' AND entity_id = $1`,
  `DELETE FROM skill_profiles WHERE entity_type = '${type}' AND entity_id = $1`,
  `DELETE FROM skill_profile_versions WHERE entity_type = '${type}' AND entity_id = $1`,
]

export const ENTITY_COLLECTIONS: readonly EntityCollection[] = [
  {
    path: 'companies',
    kind: kind('companies'),
    noun: 'company',
    dependents: [{ sql: 'SELECT external_id FROM vacancies WHERE company_id = $1', noun: 'vacancies' }],
    cascade: [],
    touchOnDelete: [],
  },
  {
    path: 'organisational_units',
    kind: kind('organisational_units'),
    noun: 'organisational unit',
    dependents: [
      { sql: 'SELECT external_id FROM organisational_units WHERE parent_id = $1', noun: 'child units' },
      { sql: 'SELECT external_id FROM employees WHERE organisational_unit_id = $1', noun: 'employees' },
      { sql: 'SELECT external_id FROM vacancies WHERE organisational_unit_id = $1', noun: 'vacancies' },
    ],
    cascade: [],
    touchOnDelete: [],
  },
  {
    path: 'job_architecture/job_families',
    kind: kind('job_families'),
    noun: 'job family',
    profileType: 'job_family',
    dependents: [{ sql: 'SELECT external_id FROM jobs WHERE job_family_id = $1', noun: 'jobs' }],
    cascade: profileRows('job_family'),
    touchOnDelete: [],
  },
  {
    path: 'job_architecture/jobs',
    kind: kind('jobs'),
    noun: 'job',
    profileType: 'job',
    dependents: [
      { sql: 'SELECT external_id FROM employees WHERE job_id = $1', noun: 'employees' },
      { sql: 'SELECT external_id FROM vacancies WHERE job_id = $1', noun: 'vacancies' },
      {
        sql: "SELECT external_id FROM skill_events WHERE content->>'$.job_id' = $1",
        noun: 'skill events',
      },
    ],
    cascade: profileRows('job'),
    // The family's profile is built from its jobs: it must be derived again without this one.
    touchOnDelete: [
      `UPDATE job_families SET change_seq = nextval('change_seq')
        WHERE external_id = (SELECT job_family_id FROM jobs WHERE external_id = $1)`,
    ],
  },
  {
    path: 'courses',
    kind: kind('courses'),
    noun: 'course',
    profileType: 'course',
    dependents: [
      {
        sql: "SELECT external_id FROM skill_events WHERE content->>'$.course_id' = $1",
        noun: 'skill events',
      },
    ],
    cascade: profileRows('course'),
    touchOnDelete: [],
  },
  {
    path: 'vacancies',
    kind: kind('vacancies'),
    noun: 'vacancy',
    profileType: 'vacancy',
    dependents: [],
    cascade: [...profileRows('vacancy'), 'DELETE FROM match_feedback WHERE vacancy_id = $1'],
    touchOnDelete: [],
  },
  {
    path: 'employees',
    kind: kind('employees'),
    noun: 'employee',
    profileType: 'employee',
    dependents: [],
    // An employee's events, feedback and profile are about that employee only: they go with it.
    cascade: [
      ...profileRows('employee'),
      'DELETE FROM skill_events WHERE employee_id = $1',
      'DELETE FROM match_feedback WHERE employee_id = $1',
    ],
    touchOnDelete: [],
  },
]

/** The collection at `path` (e.g. `job_architecture/jobs`), if it is one. */
export function entityCollection(path: string): EntityCollection | undefined {
  return ENTITY_COLLECTIONS.find((collection) => collection.path === path)
}
