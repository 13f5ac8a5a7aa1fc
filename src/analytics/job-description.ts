import { errors } from '../errors/skillhouse-error.js'
import { detectTextLanguage } from '../extraction/detect-language.js'
import {
  type JobDescriptionSection,
  OUTPUT_LANGUAGES,
  type OutputLanguage,
  SECTION_NAMES,
  type SectionName,
} from '../schemas/analytics.js'

/**
 * Generation of a job description from skill profiles and job architecture data: plain data in,
 * plain data out, no clock, no randomness, no network. The same inputs always give the same text.
 */

// The output languages and section names are part of the API (a preview's response): their schema holds them.
export { OUTPUT_LANGUAGES, type OutputLanguage, SECTION_NAMES, type SectionName }

/** How long the description is: bullets per section and sentences quoted per paragraph. */
export type DescriptionLength = 'short' | 'standard' | 'long'
const BULLETS: Record<DescriptionLength, number> = { short: 3, standard: 6, long: 10 }
const QUOTED_SENTENCES: Record<DescriptionLength, number> = { short: 0, standard: 1, long: 2 }

/** One skill of a profile, with its names in the four output languages. */
export interface DescriptionSkill {
  skill_id: string
  names: Record<OutputLanguage, string>
  /** Vocabulary skill type: hard_skill, tool, knowledge, soft_skill, language, certification. */
  skill_type: string
  validated: boolean
  score: number
  /** Required level 1–5 (governed, else inferred), null when unknown. */
  level: number | null
  critical: boolean
}

export interface DescriptionJob {
  external_id: string
  title: string
  description: string | null
  skills: DescriptionSkill[]
}

export interface DescriptionInputs {
  job: DescriptionJob
  family: { external_id: string; name: string; description: string | null } | null
  references: DescriptionJob[]
}

export interface DescriptionOptions {
  sections: readonly SectionName[]
  language: OutputLanguage
  length: DescriptionLength
  /** Whether stored free text (the job's, its family's and the references' descriptions) may be used. */
  useInternalJobData: boolean
}

export type DescriptionSection = JobDescriptionSection

export interface GeneratedDescription {
  language: OutputLanguage
  title: string
  sections: DescriptionSection[]
  /** The whole description as Markdown: a title, then each section's heading, paragraphs and bullets. */
  text: string
}

/** What was understood of free-text `instructions`. */
export interface UnderstoodInstructions {
  language?: OutputLanguage
  length?: DescriptionLength
  /** One line per instruction honoured, quoting the words it was read from. */
  applied: string[]
}

interface LanguagePack {
  headings: Record<SectionName, string>
  and: string
  summary: (title: string, family: string | null, skills: string) => string
  summaryNoSkills: (title: string, family: string | null) => string
  responsibilities: ((skill: string) => string)[]
  tool: (skill: string) => string
  noResponsibilities: (title: string) => string
  levels: readonly [string, string, string, string, string]
  essential: string
  noRequirements: (title: string) => string
  noNiceToHave: string
  family: (family: string) => string
  references: (titles: string) => string
  values: (skills: string) => string
  team: string
}

const PACKS: Record<OutputLanguage, LanguagePack> = {
  en: {
    headings: {
      summary: 'Summary',
      responsibilities: 'Responsibilities',
      requirements: 'Requirements',
      nice_to_have: 'Nice to have',
      about_the_team: 'About the team',
    },
    and: 'and',
    summary: (title, family, skills) =>
      `As ${title}${family ? ` in our ${family} team` : ''}, you bring ${skills} to your daily work.`,
    summaryNoSkills: (title, family) =>
      `As ${title}${family ? ` in our ${family} team` : ''}, you help the team deliver every day.`,
    responsibilities: [
      (skill) => `Apply ${skill} in your day-to-day work`,
      (skill) => `Take ownership of ${skill} within the team`,
      (skill) => `Keep improving how the team uses ${skill}`,
      (skill) => `Share your knowledge of ${skill} with colleagues`,
    ],
    tool: (skill) => `Work with ${skill} every day`,
    noResponsibilities: (title) => `Carry out the day-to-day tasks of the ${title} role`,
    levels: ['basic', 'elementary', 'intermediate', 'advanced', 'expert'],
    essential: 'essential',
    noRequirements: (title) => `Motivation to learn the skills of the ${title} role`,
    noNiceToHave: 'Curiosity to grow beyond the role',
    family: (family) => `You join the ${family} job family.`,
    references: (titles) => `You work alongside colleagues in roles such as ${titles}.`,
    values: (skills) => `The team values ${skills}.`,
    team: 'You join a team that learns from each other and shares the work.',
  },
  nl: {
    headings: {
      summary: 'Samenvatting',
      responsibilities: 'Verantwoordelijkheden',
      requirements: 'Vereisten',
      nice_to_have: 'Pluspunten',
      about_the_team: 'Over het team',
    },
    and: 'en',
    summary: (title, family, skills) =>
      `Als ${title}${family ? ` in ons team ${family}` : ''} zet je dagelijks ${skills} in.`,
    summaryNoSkills: (title, family) =>
      `Als ${title}${family ? ` in ons team ${family}` : ''} help je het team elke dag vooruit.`,
    responsibilities: [
      (skill) => `${skill} toepassen in je dagelijkse werk`,
      (skill) => `Verantwoordelijkheid nemen voor ${skill} binnen het team`,
      (skill) => `Blijven verbeteren hoe het team ${skill} inzet`,
      (skill) => `Je kennis van ${skill} delen met collega's`,
    ],
    tool: (skill) => `Dagelijks werken met ${skill}`,
    noResponsibilities: (title) => `De dagelijkse taken van de functie ${title} uitvoeren`,
    levels: ['basis', 'elementair', 'gemiddeld', 'gevorderd', 'expert'],
    essential: 'essentieel',
    noRequirements: (title) => `Motivatie om de vaardigheden van de functie ${title} te leren`,
    noNiceToHave: 'Nieuwsgierigheid om verder te groeien',
    family: (family) => `Je komt terecht in de functiefamilie ${family}.`,
    references: (titles) => `Je werkt samen met collega's in functies zoals ${titles}.`,
    values: (skills) => `Belangrijk in het team: ${skills}.`,
    team: 'Je komt in een team dat van elkaar leert en het werk samen draagt.',
  },
  fr: {
    headings: {
      summary: 'Résumé',
      responsibilities: 'Responsabilités',
      requirements: 'Profil recherché',
      nice_to_have: 'Atouts',
      about_the_team: "À propos de l'équipe",
    },
    and: 'et',
    summary: (title, family, skills) =>
      `En tant que ${title}${family ? ` au sein de notre équipe ${family}` : ''}, vous mettez ${skills} au service de votre travail quotidien.`,
    summaryNoSkills: (title, family) =>
      `En tant que ${title}${family ? ` au sein de notre équipe ${family}` : ''}, vous aidez l'équipe à avancer chaque jour.`,
    responsibilities: [
      (skill) => `Mettre en œuvre ${skill} au quotidien`,
      (skill) => `Prendre en charge ${skill} au sein de l'équipe`,
      (skill) => `Améliorer en continu l'usage de ${skill} dans l'équipe`,
      (skill) => `Partager votre expertise en ${skill} avec vos collègues`,
    ],
    tool: (skill) => `Utiliser ${skill} au quotidien`,
    noResponsibilities: (title) => `Assurer les tâches quotidiennes du poste de ${title}`,
    levels: ['notions', 'élémentaire', 'intermédiaire', 'avancé', 'expert'],
    essential: 'indispensable',
    noRequirements: (title) => `Envie d'apprendre les compétences du poste de ${title}`,
    noNiceToHave: 'Curiosité et envie de progresser',
    family: (family) => `Vous rejoignez la famille de métiers ${family}.`,
    references: (titles) => `Vous travaillez aux côtés de collègues occupant des postes tels que ${titles}.`,
    values: (skills) => `Qualités appréciées dans l'équipe : ${skills}.`,
    team: 'Vous rejoignez une équipe qui apprend ensemble et partage le travail.',
  },
  de: {
    headings: {
      summary: 'Zusammenfassung',
      responsibilities: 'Aufgaben',
      requirements: 'Anforderungen',
      nice_to_have: 'Wünschenswert',
      about_the_team: 'Über das Team',
    },
    and: 'und',
    summary: (title, family, skills) =>
      `Als ${title}${family ? ` im Team ${family}` : ''} setzen Sie täglich ${skills} ein.`,
    summaryNoSkills: (title, family) =>
      `Als ${title}${family ? ` im Team ${family}` : ''} bringen Sie das Team jeden Tag voran.`,
    responsibilities: [
      (skill) => `${skill} in der täglichen Arbeit anwenden`,
      (skill) => `Verantwortung für ${skill} im Team übernehmen`,
      (skill) => `Den Einsatz von ${skill} im Team kontinuierlich verbessern`,
      (skill) => `Ihr Wissen über ${skill} mit Kolleginnen und Kollegen teilen`,
    ],
    tool: (skill) => `Täglich mit ${skill} arbeiten`,
    noResponsibilities: (title) => `Die täglichen Aufgaben der Rolle ${title} übernehmen`,
    levels: [
      'Grundkenntnisse',
      'Basiskenntnisse',
      'gute Kenntnisse',
      'sehr gute Kenntnisse',
      'Expertenwissen',
    ],
    essential: 'unerlässlich',
    noRequirements: (title) => `Motivation, die Fähigkeiten der Rolle ${title} zu lernen`,
    noNiceToHave: 'Neugier, über die Rolle hinaus zu wachsen',
    family: (family) => `Sie verstärken die Jobfamilie ${family}.`,
    references: (titles) => `Sie arbeiten mit Kolleginnen und Kollegen in Rollen wie ${titles} zusammen.`,
    values: (skills) => `Im Team besonders geschätzt: ${skills}.`,
    team: 'Sie kommen in ein Team, das voneinander lernt und die Arbeit gemeinsam trägt.',
  },
}

/** Skill types that describe work to do (responsibilities) rather than traits or languages. */
const WORK_TYPES = new Set(['hard_skill', 'tool', 'knowledge'])

/**
 * Section names as a client writes them, checked and put in a canonical spelling: case and the
 * separators space and hyphen do not matter ("Nice to have", "nice-to-have"); duplicates count
 * once; the request's order is kept. Absent or empty: every section in the order of
 * SECTION_NAMES. An unknown name is a 422 listing the valid ones.
 */
export function resolveSections(input: readonly string[] | undefined): SectionName[] {
  if (!input || input.length === 0) return [...SECTION_NAMES]
  const sections: SectionName[] = []
  const unknown: string[] = []
  for (const raw of input) {
    const name = raw
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_')
    if ((SECTION_NAMES as readonly string[]).includes(name)) {
      if (!sections.includes(name as SectionName)) sections.push(name as SectionName)
    } else unknown.push(raw)
  }
  if (unknown.length > 0) {
    throw errors.unprocessable(
      unknown.map(
        (name) =>
          `context.sections_to_include: '${name}' is not a section; valid: ${SECTION_NAMES.join(', ')}`,
      ),
    )
  }
  return sections
}

/** Names of the output languages as they are written in each of the four languages. */
const LANGUAGE_WORDS: Record<OutputLanguage, string[]> = {
  en: ['english', 'engels', 'anglais', 'englisch'],
  nl: [
    'dutch',
    'flemish',
    'nederlands',
    'vlaams',
    'néerlandais',
    'neerlandais',
    'flamand',
    'niederländisch',
    'niederlandisch',
    'flämisch',
  ],
  fr: ['french', 'frans', 'français', 'francais', 'französisch', 'franzosisch'],
  de: ['german', 'duits', 'allemand', 'deutsch'],
}
const LANGUAGE_BY_WORD = new Map(
  OUTPUT_LANGUAGES.flatMap((language) => LANGUAGE_WORDS[language].map((word) => [word, language] as const)),
)
/** "in Dutch", "into French", "en français", "auf Deutsch", "in het Nederlands", "naar het Frans". */
const LANGUAGE_REQUEST = new RegExp(
  `(?<![\\p{L}])(?:in|into|to|en|auf|op|naar|na)\\s+(?:(?:het|de)\\s+)?(${[...LANGUAGE_BY_WORD.keys()].join('|')})(?![\\p{L}])`,
  'giu',
)
/** "language: nl", "taal=fr", "langue : de", "Sprache: en". */
const LANGUAGE_CODE = /(?<![\p{L}])(?:language|lang|taal|langue|sprache)\s*[:=]\s*(en|nl|fr|de)(?![\p{L}])/giu
/** Words that make "fluency in French" a requirement about the candidate, not the output language. */
const ABILITY_WORDS = new Set([
  'fluent',
  'fluency',
  'fluently',
  'proficient',
  'proficiency',
  'skilled',
  'knowledge',
  'experience',
  'speaks',
  'speaking',
  'spoken',
  'vloeiend',
  'kennis',
  'ervaring',
  'courant',
  'maîtrise',
  'connaissance',
  'connaissances',
  'kenntnisse',
  'fließend',
  'fliessend',
])
const SHORT_WORDS = [
  'short',
  'shorter',
  'concise',
  'brief',
  'briefly',
  'kort',
  'korte',
  'beknopt',
  'court',
  'courte',
  'concis',
  'bref',
  'brève',
  'kurz',
  'kurze',
  'knapp',
]
const LONG_WORDS = [
  'detailed',
  'long',
  'longer',
  'extensive',
  'elaborate',
  'uitgebreid',
  'gedetailleerd',
  'détaillé',
  'détaillée',
  'detaille',
  'ausführlich',
  'detailliert',
]
const wordPattern = (words: readonly string[]) =>
  new RegExp(`(?<![\\p{L}])(${words.join('|')})(?![\\p{L}])`, 'iu')

/**
 * Reads the free-text `instructions` of a preview request. Understood, in English, Dutch, French
 * or German:
 * - an output language: "in Dutch", "in het Nederlands", "en français", "auf Deutsch", "into
 *   German", or "language: nl" — the first such request wins; "fluent in French" is a
 *   requirement, not a language request, and is ignored;
 * - a length: "short", "concise", "brief", "kort", "beknopt", "court", "concis", "kurz" give 3
 *   bullets per section and no quoted sentences; "detailed", "long", "extensive", "uitgebreid",
 *   "détaillé", "ausführlich" give 10 bullets and two quoted sentences. A request that mentions
 *   brevity at all is short.
 * Everything else is kept with the request but does not change the text.
 */
export function understandInstructions(instructions: string | undefined): UnderstoodInstructions {
  const understood: UnderstoodInstructions = { applied: [] }
  if (!instructions) return understood
  const found: { index: number; language: OutputLanguage; words: string }[] = []
  for (const match of instructions.matchAll(LANGUAGE_REQUEST)) {
    const before = instructions.slice(Math.max(0, match.index - 40), match.index).toLowerCase()
    const previous = before.match(/\p{L}+/gu)?.slice(-2) ?? []
    if (previous.some((word) => ABILITY_WORDS.has(word))) continue
    const language = LANGUAGE_BY_WORD.get((match[1] as string).toLowerCase())
    if (language) found.push({ index: match.index, language, words: match[0] })
  }
  for (const match of instructions.matchAll(LANGUAGE_CODE)) {
    found.push({
      index: match.index,
      language: (match[1] as string).toLowerCase() as OutputLanguage,
      words: match[0],
    })
  }
  found.sort((a, b) => a.index - b.index)
  const first = found[0]
  if (first) {
    understood.language = first.language
    understood.applied.push(`language: ${first.language} (from "${first.words}")`)
  }
  const short = wordPattern(SHORT_WORDS).exec(instructions)
  const long = wordPattern(LONG_WORDS).exec(instructions)
  if (short) {
    understood.length = 'short'
    understood.applied.push(`length: short (from "${short[0]}")`)
  } else if (long) {
    understood.length = 'long'
    understood.applied.push(`length: long (from "${long[0]}")`)
  }
  return understood
}

/**
 * The language to write in when the instructions name none: the language of the job's own
 * description when internal job data may be used, else the language most reference job
 * descriptions are written in (ties: the first reference's), else English.
 */
export function defaultLanguage(inputs: DescriptionInputs, useInternalJobData: boolean): OutputLanguage {
  if (!useInternalJobData) return 'en'
  if (inputs.job.description?.trim()) return detectTextLanguage(inputs.job.description)
  const votes = new Map<OutputLanguage, number>()
  let leader: OutputLanguage | undefined
  for (const reference of inputs.references) {
    if (!reference.description?.trim()) continue
    const language = detectTextLanguage(reference.description)
    const count = (votes.get(language) ?? 0) + 1
    votes.set(language, count)
    if (leader === undefined || count > (votes.get(leader) ?? 0)) leader = language
  }
  return leader ?? 'en'
}

/** Importance order used everywhere: critical, then governed, then score, then skill_id. */
export function byImportance(a: DescriptionSkill, b: DescriptionSkill): number {
  return (
    Number(b.critical) - Number(a.critical) ||
    Number(b.validated) - Number(a.validated) ||
    b.score - a.score ||
    (a.skill_id < b.skill_id ? -1 : a.skill_id > b.skill_id ? 1 : 0)
  )
}

/**
 * Writes a job description (the change `add_job_description` of 4.4):
 * - summary: the title, its family and the three most important work skills; with internal job
 *   data, the first sentence(s) of the job's own description when it is in the output language;
 * - responsibilities: one bullet per most important hard skill, tool or knowledge of the job's
 *   profile, phrasings rotating so that bullets read differently;
 * - requirements: the critical, governed or level ≥ 3 skills (else the most important ones), each
 *   with its level word and "essential" when critical;
 * - nice_to_have: skills at least half of the reference jobs hold and the job lacks, then the job's
 *   other skills, then the skills fewer reference jobs hold;
 * - about_the_team: the family, its description's first sentence(s) (internal data, same
 *   language), the reference jobs' titles, and the job's soft skills.
 * Bullet counts follow `length`; a section without material says so in one generic line.
 */
export function generateJobDescription(
  inputs: DescriptionInputs,
  options: DescriptionOptions,
): GeneratedDescription {
  const draft = new DescriptionDraft(inputs, options)
  const sections = options.sections.map((section) => ({
    section,
    heading: draft.pack.headings[section],
    ...SECTION_WRITERS[section](draft),
  }))
  return { language: options.language, title: draft.title, sections, text: markdownOf(draft.title, sections) }
}

/** What the sections of one description are written from: the job's skills sorted and sorted out, and the wording. */
class DescriptionDraft {
  readonly pack: LanguagePack
  /** Bullets per section. */
  readonly limit: number
  /** Sentences quoted from stored descriptions (0 without internal job data). */
  readonly quoted: number
  readonly title: string
  readonly family: string | null
  /** The job's skills, most important first; its work skills (hard skills, tools, knowledge) and soft skills. */
  readonly skills: DescriptionSkill[]
  readonly work: DescriptionSkill[]
  readonly soft: DescriptionSkill[]
  /** The requirements: the critical, governed or level ≥ 3 skills, else the most important ones. */
  readonly required: DescriptionSkill[]

  constructor(
    readonly inputs: DescriptionInputs,
    readonly options: DescriptionOptions,
  ) {
    this.pack = PACKS[options.language]
    this.limit = BULLETS[options.length]
    this.quoted = options.useInternalJobData ? QUOTED_SENTENCES[options.length] : 0
    this.title = inputs.job.title
    this.family = inputs.family?.name ?? null
    this.skills = [...inputs.job.skills].sort(byImportance)
    this.work = this.skills.filter((skill) => WORK_TYPES.has(skill.skill_type))
    this.soft = this.skills.filter((skill) => skill.skill_type === 'soft_skill')
    const core = this.skills.filter((skill) => skill.critical || skill.validated || (skill.level ?? 0) >= 3)
    this.required = (core.length > 0 ? core : this.skills).slice(0, this.limit)
  }

  /** A skill's name in the output language. */
  name = (skill: DescriptionSkill): string => skill.names[this.options.language]

  /** Names as a list in running text: "a, b and c". */
  list(names: readonly string[]): string {
    return names.length <= 1
      ? (names[0] ?? '')
      : `${names.slice(0, -1).join(', ')} ${this.pack.and} ${names[names.length - 1]}`
  }

  /** The first `count` sentences of a stored text, when it is written in the output language. */
  sentencesIn(text: string | null | undefined, count: number): string[] {
    return count > 0 && text?.trim() && detectTextLanguage(text) === this.options.language
      ? firstSentences(text, count)
      : []
  }
}

type SectionBody = Omit<DescriptionSection, 'section' | 'heading'>

/** The title, its family and the three most important work skills, then the job's own first sentence(s). */
function writeSummary(draft: DescriptionDraft): SectionBody {
  const { pack, title, family } = draft
  const highlights = (draft.work.length > 0 ? draft.work : draft.skills).slice(0, 3).map(draft.name)
  const opening =
    highlights.length > 0
      ? pack.summary(title, family, draft.list(highlights))
      : pack.summaryNoSkills(title, family)
  return {
    paragraphs: [[opening, ...draft.sentencesIn(draft.inputs.job.description, draft.quoted)].join(' ')],
    bullets: [],
  }
}

/** One bullet per most important work skill, phrasings rotating so that bullets read differently. */
function writeResponsibilities(draft: DescriptionDraft): SectionBody {
  const { pack, name } = draft
  const bullets = draft.work
    .slice(0, draft.limit)
    .map((skill, index) =>
      skill.skill_type === 'tool'
        ? pack.tool(name(skill))
        : (pack.responsibilities[index % pack.responsibilities.length] as (skill: string) => string)(
            name(skill),
          ),
    )
  return { paragraphs: [], bullets: bullets.length > 0 ? bullets : [pack.noResponsibilities(draft.title)] }
}

/** The required skills, each with its level word and "essential" when critical. */
function writeRequirements(draft: DescriptionDraft): SectionBody {
  const { pack, name } = draft
  const bullets = draft.required.map((skill) => {
    const notes = [
      ...(skill.level !== null ? [pack.levels[Math.min(5, Math.max(1, skill.level)) - 1] as string] : []),
      ...(skill.critical ? [pack.essential] : []),
    ]
    return notes.length > 0 ? `${name(skill)} (${notes.join(', ')})` : name(skill)
  })
  return { paragraphs: [], bullets: bullets.length > 0 ? bullets : [pack.noRequirements(draft.title)] }
}

/**
 * Skills at least half of the reference jobs hold and the job lacks, then the job's other
 * skills, then the skills fewer reference jobs hold.
 */
function writeNiceToHave(draft: DescriptionDraft): SectionBody {
  const { skills, inputs } = draft
  const own = new Set(skills.map((skill) => skill.skill_id))
  const requiredIds = new Set(draft.required.map((skill) => skill.skill_id))
  const shared = referenceSkills(inputs.references).filter((entry) => !own.has(entry.skill.skill_id))
  const half = inputs.references.length / 2
  const picked = [
    ...shared.filter((entry) => entry.jobs >= half).map((entry) => entry.skill),
    ...skills.filter((skill) => !requiredIds.has(skill.skill_id)),
    ...shared.filter((entry) => entry.jobs < half).map((entry) => entry.skill),
  ].slice(0, draft.limit)
  return { paragraphs: [], bullets: picked.length > 0 ? picked.map(draft.name) : [draft.pack.noNiceToHave] }
}

/** The family and its description's first sentence(s), the reference jobs' titles, the soft skills. */
function writeAboutTheTeam(draft: DescriptionDraft): SectionBody {
  const { pack, family, inputs } = draft
  const titles = inputs.references.map((reference) => reference.title).slice(0, draft.limit)
  const sentences = [
    ...(family ? [pack.family(family)] : []),
    ...draft.sentencesIn(inputs.family?.description, draft.quoted),
    ...(titles.length > 0 ? [pack.references(draft.list(titles))] : []),
    ...(draft.soft.length > 0 ? [pack.values(draft.list(draft.soft.slice(0, 3).map(draft.name)))] : []),
  ]
  return { paragraphs: [(sentences.length > 0 ? sentences : [pack.team]).join(' ')], bullets: [] }
}

const SECTION_WRITERS: Record<SectionName, (draft: DescriptionDraft) => SectionBody> = {
  summary: writeSummary,
  responsibilities: writeResponsibilities,
  requirements: writeRequirements,
  nice_to_have: writeNiceToHave,
  about_the_team: writeAboutTheTeam,
}

/** The description as Markdown: the title, then each section's heading, paragraphs and bullets. */
function markdownOf(title: string, sections: readonly DescriptionSection[]): string {
  const text = [
    `# ${title}`,
    ...sections.map((section) =>
      [
        `## ${section.heading}`,
        ...section.paragraphs,
        ...(section.bullets.length ? [section.bullets.map((bullet) => `- ${bullet}`).join('\n')] : []),
      ].join('\n\n'),
    ),
  ].join('\n\n')
  return `${text}\n`
}

/** Skills of the reference jobs with how many of them hold each, most shared first. */
function referenceSkills(references: readonly DescriptionJob[]): { skill: DescriptionSkill; jobs: number }[] {
  const byId = new Map<string, { skill: DescriptionSkill; jobs: number; total: number }>()
  for (const reference of references) {
    for (const skill of reference.skills) {
      const entry = byId.get(skill.skill_id)
      if (entry) {
        entry.jobs += 1
        entry.total += skill.score
        if (byImportance(skill, entry.skill) < 0) entry.skill = skill
      } else byId.set(skill.skill_id, { skill, jobs: 1, total: skill.score })
    }
  }
  return [...byId.values()]
    .sort(
      (a, b) =>
        b.jobs - a.jobs ||
        b.total / b.jobs - a.total / a.jobs ||
        (a.skill.skill_id < b.skill.skill_id ? -1 : a.skill.skill_id > b.skill.skill_id ? 1 : 0),
    )
    .map(({ skill, jobs }) => ({ skill, jobs }))
}

/** The first `count` sentences of a text's first paragraph, whitespace collapsed; overlong ones are skipped. */
export function firstSentences(text: string, count: number): string[] {
  const paragraph = text.trim().split(/\n\s*\n/)[0] ?? ''
  return paragraph
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+(?=[\p{Lu}\d"«„])/u)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 0 && sentence.length <= 300)
    .slice(0, count)
    .map((sentence) => (/[.!?]$/.test(sentence) ? sentence : `${sentence}.`))
}
