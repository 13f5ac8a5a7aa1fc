import type { SkillExtractor } from '../extraction/skill-extractor.js'
import type { GovernedSkill } from '../schemas/entities.js'
import type { DerivedProfile, ProfileSkill } from './employee-profile.js'

const round = (value: number) => Math.round(value * 10_000) / 10_000

/** A skill found in text, as a suggested profile skill with an inferred level and criticality. */
function suggested(
  skill_id: string,
  score: number,
  source: { external_id: string; event_type: string },
): ProfileSkill {
  return {
    skill_id,
    validation_state: 'suggested',
    score: round(score),
    // A text that names a skill strongly (several mentions, specific label) asks more of it.
    proficiency_float: round(0.3 + 0.6 * score),
    proficiency_level: Math.min(5, 2 + Math.floor(score * 3)),
    governed_proficiency_level: null,
    governed_critical: null,
    inferred_critical: score >= 0.8,
    first_seen: null,
    last_seen: null,
    evidence: [source],
  }
}

/** A governed skill: validated, with the level and criticality its owner set. */
function governed(skill: GovernedSkill, source: { external_id: string; event_type: string }): ProfileSkill {
  const level = skill.proficiency_level ?? null
  return {
    skill_id: skill.skill_id,
    validation_state: 'validated',
    score: 1,
    proficiency_float: level === null ? null : round((level - 0.5) / 5),
    proficiency_level: level,
    governed_proficiency_level: level,
    governed_critical: skill.critical ?? null,
    inferred_critical: null,
    first_seen: null,
    last_seen: null,
    evidence: [source],
  }
}

/** Merges skills by id: validated beats suggested, then the higher score; evidence is pooled. */
function merge(skills: ProfileSkill[]): ProfileSkill[] {
  const byId = new Map<string, ProfileSkill>()
  for (const skill of skills) {
    const known = byId.get(skill.skill_id)
    if (!known) {
      byId.set(skill.skill_id, skill)
      continue
    }
    const keep =
      known.validation_state === 'validated' ||
      (skill.validation_state !== 'validated' && known.score >= skill.score)
        ? known
        : skill
    const other = keep === known ? skill : known
    byId.set(skill.skill_id, {
      ...keep,
      inferred_critical: keep.inferred_critical ?? other.inferred_critical,
      evidence: [
        ...keep.evidence,
        ...other.evidence.filter(
          (item) => !keep.evidence.some((known) => known.external_id === item.external_id),
        ),
      ],
    })
  }
  return [...byId.values()].sort(
    (a, b) =>
      Number(b.validation_state === 'validated') - Number(a.validation_state === 'validated') ||
      b.score - a.score ||
      (a.skill_id < b.skill_id ? -1 : 1),
  )
}

const extracted = (
  extractor: SkillExtractor,
  text: string,
  weight: number,
  source: { external_id: string; event_type: string },
) => extractor.extract(text).skills.map((skill) => suggested(skill.skill_id, skill.score * weight, source))

interface JobRecord {
  external_id: string
  title: string
  description?: string
  job_family_id?: string | null
  skills?: GovernedSkill[]
}
interface FamilyRecord {
  external_id: string
  name: string
  description?: string
  skills?: GovernedSkill[]
}

/**
 * A Job's profile: the skills its title and description name (suggested; the title counts more),
 * its family's description (weaker), and the skills the job or its family govern (validated).
 */
export function deriveJobProfile(
  job: JobRecord,
  family: FamilyRecord | undefined,
  extractor: SkillExtractor,
): DerivedProfile {
  const own = { external_id: job.external_id, event_type: 'job_profile_data' }
  const fromFamily = { external_id: family?.external_id ?? '', event_type: 'job_family_profile_data' }
  const skills = merge([
    ...(job.skills ?? []).map((skill) => governed(skill, own)),
    ...(family?.skills ?? []).map((skill) => governed(skill, fromFamily)),
    ...extracted(extractor, `${job.title}. ${job.title}. ${job.description ?? ''}`, 1, own),
    ...(family?.description
      ? extracted(extractor, family.description, 0.5, fromFamily).filter((skill) => skill.score >= 0.3)
      : []),
  ])
  return { entity_id: job.external_id, skills, low_data: skills.length === 0 }
}

/**
 * A Job Family's profile: its governed skills (validated, from job_family_profile_data), skills
 * its description names, and skills at least a third of its jobs' profiles hold (suggested, from
 * job_profile_data, scored by the share of jobs that hold them).
 */
export function deriveJobFamilyProfile(
  family: FamilyRecord,
  jobProfiles: readonly { job_id: string; skills: readonly ProfileSkill[] }[],
  extractor: SkillExtractor,
): DerivedProfile {
  const own = { external_id: family.external_id, event_type: 'job_family_profile_data' }
  const counts = new Map<string, { jobs: string[]; score: number }>()
  for (const profile of jobProfiles) {
    for (const skill of profile.skills) {
      const entry = counts.get(skill.skill_id) ?? { jobs: [], score: 0 }
      entry.jobs.push(profile.job_id)
      entry.score += skill.score
      counts.set(skill.skill_id, entry)
    }
  }
  const fromJobs: ProfileSkill[] = []
  for (const [skill_id, entry] of counts) {
    const share = entry.jobs.length / Math.max(1, jobProfiles.length)
    if (share < 1 / 3) continue
    const skill = suggested(skill_id, share * (entry.score / entry.jobs.length), {
      external_id: entry.jobs[0] as string,
      event_type: 'job_profile_data',
    })
    skill.evidence = entry.jobs.sort().map((external_id) => ({ external_id, event_type: 'job_profile_data' }))
    fromJobs.push(skill)
  }
  const skills = merge([
    ...(family.skills ?? []).map((skill) => governed(skill, own)),
    ...(family.description ? extracted(extractor, `${family.name}. ${family.description}`, 1, own) : []),
    ...fromJobs,
  ])
  return { entity_id: family.external_id, skills, low_data: skills.length === 0 }
}

/** A Course's profile: the skills its title and description name. */
export function deriveCourseProfile(
  course: { external_id: string; title: string; description?: string },
  extractor: SkillExtractor,
): DerivedProfile {
  const source = { external_id: course.external_id, event_type: 'course_profile_data' }
  const skills = merge(
    extracted(extractor, `${course.title}. ${course.title}. ${course.description ?? ''}`, 1, source),
  )
  return { entity_id: course.external_id, skills, low_data: skills.length === 0 }
}

/** A Vacancy's profile: its job's profile and the skills its title and description name. */
export function deriveVacancyProfile(
  vacancy: { external_id: string; title: string; description?: string },
  jobSkills: readonly ProfileSkill[],
  extractor: SkillExtractor,
): DerivedProfile {
  const source = { external_id: vacancy.external_id, event_type: 'vacancy_profile_data' }
  const skills = merge([
    ...jobSkills.map((skill) => ({ ...skill, evidence: [...skill.evidence] })),
    ...extracted(extractor, `${vacancy.title}. ${vacancy.title}. ${vacancy.description ?? ''}`, 1, source),
  ])
  return { entity_id: vacancy.external_id, skills, low_data: skills.length === 0 }
}
