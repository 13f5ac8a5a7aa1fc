import { createHash } from 'node:crypto'
import type { DerivedProfile, ProfileSkill } from './employee-profile.js'

/**
 * Derived profiles encoded for storage, column by column: what a derivation worker hands back
 * to the thread that stores them (a few strings per profile, cheap to pass and to append), and
 * what `ProfileWriter` appends. A profile's skills travel as one JSON text of columns that SQL
 * unfolds into `profile_skills` rows, and only for the profiles that changed.
 */
export interface ProfileRows {
  entityIds: string[]
  profileHashes: string[]
  suggestedHashes: string[]
  skillCounts: number[]
  lowData: boolean[]
  /** The stored version: JSON of each skill's identifying fields (`stable`). */
  versions: string[]
  /** JSON of the `profile_skills` columns (see `PROFILE_SKILL_COLUMNS`). */
  skills: string[]
}

/**
 * The structure of `ProfileRows.skills` for DuckDB's `from_json`: one list per column of
 * `profile_skills` after entity_type, entity_id and external_vendor, in table order. Evidence
 * is JSON text inside the JSON, so that it is stored exactly as written.
 */
export const PROFILE_SKILL_COLUMNS =
  '{"s":["VARCHAR"],"v":["VARCHAR"],"c":["DOUBLE"],"f":["DOUBLE"],"l":["INTEGER"],"g":["INTEGER"],"k":["BOOLEAN"],"i":["BOOLEAN"],"a":["DATE"],"b":["DATE"],"e":["VARCHAR"]}'

export function emptyProfileRows(): ProfileRows {
  return {
    entityIds: [],
    profileHashes: [],
    suggestedHashes: [],
    skillCounts: [],
    lowData: [],
    versions: [],
    skills: [],
  }
}

/** Encodes one profile: its hashes (profile and suggested set), its stored version and its skill rows. */
export function addProfileRow(rows: ProfileRows, profile: DerivedProfile): void {
  const skills = profile.skills
  const suggested: string[] = []
  const columns = {
    s: [] as string[],
    v: [] as string[],
    c: [] as number[],
    f: [] as (number | null)[],
    l: [] as (number | null)[],
    g: [] as (number | null)[],
    k: [] as (boolean | null)[],
    i: [] as (boolean | null)[],
    a: [] as (string | null)[],
    b: [] as (string | null)[],
    e: [] as string[],
  }
  const stable: unknown[] = []
  for (const skill of skills) {
    if (skill.validation_state === 'suggested') suggested.push(skill.skill_id)
    stable.push(stableFields(skill))
    columns.s.push(skill.skill_id)
    columns.v.push(skill.validation_state)
    columns.c.push(skill.score)
    columns.f.push(skill.proficiency_float)
    columns.l.push(skill.proficiency_level)
    columns.g.push(skill.governed_proficiency_level)
    columns.k.push(skill.governed_critical)
    columns.i.push(skill.inferred_critical)
    columns.a.push(skill.first_seen)
    columns.b.push(skill.last_seen)
    columns.e.push(JSON.stringify(skill.evidence))
  }
  const version = JSON.stringify(stable)
  rows.entityIds.push(profile.entity_id)
  rows.profileHashes.push(hash(version))
  rows.suggestedHashes.push(hash(JSON.stringify(suggested.sort())))
  rows.skillCounts.push(skills.length)
  rows.lowData.push(profile.low_data)
  rows.versions.push(version)
  rows.skills.push(JSON.stringify(columns))
}

const hash = (json: string) => createHash('sha1').update(json).digest('base64url')

/** The fields that make a profile what it is (for its hash and its stored versions). */
const stableFields = (skill: ProfileSkill) => [
  skill.skill_id,
  skill.validation_state,
  skill.score,
  skill.proficiency_float,
  skill.proficiency_level,
  skill.governed_proficiency_level,
  skill.governed_critical,
  skill.inferred_critical,
  skill.first_seen,
  skill.last_seen,
  skill.evidence.map((item) => item.external_id),
]
