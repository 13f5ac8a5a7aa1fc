import type { SeededRandom } from '../util/seeded-random.js'
import { type Lang, SENIORITY, TEMPLATES } from './generator-word-lists.js'
import { isoDate, type SkillText } from './skill-text.js'
import type { SampleSkill } from './vocabulary-sample.js'

/** What the content of one generated skill event is drawn from. */
type ContentMaker = (
  random: SeededRandom,
  text: SkillText,
  lang: Lang,
  pool: SampleSkill[],
  skill: SampleSkill,
  day: number,
) => Record<string, unknown>

/** The content of each event type, in the shape the spec gives that type. */
const CONTENT_OF_TYPE: Record<string, ContentMaker> = {
  working_history: (random, text, lang, pool, skill, day) => {
    const start = isoDate(2010, Math.max(0, day - random.int(2000)))
    const t = TEMPLATES[lang]
    return {
      job_title: `${random.pick(SENIORITY)} ${text.word(skill, lang)}`,
      start_date: start,
      ...(random.chance(0.7) ? { end_date: isoDate(2015, day) } : {}),
      company: `Company ${random.between(1, 400)}`,
      job_description: `${text.fill(random.pick(t.job), lang, pool)} ${text.fill(random.pick(t.project), lang, pool)}`,
    }
  },
  education_history: (random, text, lang, pool, skill) => ({
    degree: random.pick(['BSc', 'MSc', 'Bachelor', 'Master']),
    field_of_study: text.word(skill, lang),
    institution: `University ${random.between(1, 60)}`,
    description: text.fill(random.pick(TEMPLATES[lang].learning), lang, pool),
  }),
  resume_document: (random, text, lang, pool) => ({
    text: [0, 1, 2, 3].map(() => text.fill(random.pick(TEMPLATES[lang].job), lang, pool)).join('\n'),
  }),
  learning: (random, text, lang, pool) => ({
    title: text.fill(random.pick(TEMPLATES[lang].learning), lang, pool),
    description: text.fill(random.pick(TEMPLATES[lang].project), lang, pool),
    duration_hours: random.between(1, 40),
  }),
  feedback: (random, text, lang, pool) => ({
    text: text.fill(random.pick(TEMPLATES[lang].feedback), lang, pool),
    rating: random.between(2, 5),
  }),
  goal: (random, text, lang, pool) => ({
    title: text.fill(random.pick(TEMPLATES[lang].goal), lang, pool),
    status: random.pick(['open', 'in_progress', 'achieved']),
  }),
  project: (random, text, lang, pool, skill) => ({
    name: `Project ${text.word(skill, lang)}`,
    description: `${text.fill(random.pick(TEMPLATES[lang].project), lang, pool)} ${text.fill(random.pick(TEMPLATES[lang].project), lang, pool)}`,
    technologies: random.sample(pool, 3).map((item) => text.word(item, 'en')),
  }),
  ticket: (random, text, lang, pool) => ({
    title: text.fill(random.pick(TEMPLATES[lang].ticket), lang, pool),
    system: 'jira',
    ticket_key: `OPS-${random.between(1, 99999)}`,
  }),
  merge_request: (random, text, _lang, pool) => ({
    title: text.fill(random.pick(TEMPLATES.en.ticket), 'en', pool),
    repository: `platform/${random.pick(['billing', 'hr-portal', 'warehouse', 'analytics'])}`,
    changed_files: [
      `src/${random.pick(['api', 'jobs', 'reports'])}/${random.pick(['export', 'import', 'sync'])}.${random.pick(['py', 'ts', 'sql', 'java'])}`,
    ],
  }),
  certificate: (random, text, _lang, _pool, skill, day) => ({
    name: `${text.word(skill, 'en')} certificate`,
    issuer: random.pick(['Microsoft', 'AWS', 'PMI', 'Axelos', 'Cisco', 'Red Cross']),
    issue_date: isoDate(2015, day),
  }),
  skill_notes: (random, text, lang, pool, skill) => ({
    skill_id: skill.id,
    note: text.fill(random.pick(TEMPLATES[lang].feedback), lang, pool),
    proficiency_level: random.between(1, 5),
  }),
}

/** A skill profile feedback: the content of any type without a maker of its own. */
const skillProfileFeedback: ContentMaker = (random, _text, _lang, _pool, skill) => ({
  skill_id: skill.id,
  action: random.chance(0.8) ? 'validate' : 'reject',
})

/**
 * The content of a skill event of `type`, written in `lang` about skills of `pool`, on `day`
 * (days after 2015-01-01).
 */
export function eventContent(
  type: string,
  lang: Lang,
  pool: SampleSkill[],
  day: number,
  random: SeededRandom,
  text: SkillText,
): Record<string, unknown> {
  const skill = random.pick(pool)
  const make = CONTENT_OF_TYPE[type] ?? skillProfileFeedback
  return make(random, text, lang, pool, skill, day)
}
