import { createWriteStream, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { ensureFolder } from '../util/atomic-file.js'
import { SeededRandom } from '../util/seeded-random.js'
import { loadSampleSkills, type SampleSkill } from './vocabulary-sample.js'

export interface GenerateOptions {
  out: string
  seed: number
  employees: number
  events?: number | undefined
  jobs?: number | undefined
  vacancies?: number | undefined
  courses?: number | undefined
  eventsFormat?: 'ndjson' | 'csv' | undefined
  onProgress?: (written: number, total: number) => void
}

export interface GenerateResult {
  out: string
  seed: number
  files: { file: string; rows: number }[]
  seconds: number
}

type Lang = 'en' | 'nl' | 'fr' | 'de'
const LANGS: Lang[] = ['en', 'nl', 'fr', 'de']

const CITIES: { country: string; postal: string; lat: number; lng: number; lang: Lang }[] = [
  { country: 'BE', postal: '1000', lat: 50.8466, lng: 4.3528, lang: 'nl' },
  { country: 'BE', postal: '2000', lat: 51.2194, lng: 4.4025, lang: 'nl' },
  { country: 'BE', postal: '9000', lat: 51.0543, lng: 3.7174, lang: 'nl' },
  { country: 'BE', postal: '4000', lat: 50.6326, lng: 5.5797, lang: 'fr' },
  { country: 'NL', postal: '1012', lat: 52.3731, lng: 4.8926, lang: 'nl' },
  { country: 'NL', postal: '3011', lat: 51.9225, lng: 4.4792, lang: 'nl' },
  { country: 'NL', postal: '3511', lat: 52.0907, lng: 5.1214, lang: 'nl' },
  { country: 'NL', postal: '5611', lat: 51.4416, lng: 5.4697, lang: 'nl' },
  { country: 'FR', postal: '75001', lat: 48.8603, lng: 2.3477, lang: 'fr' },
  { country: 'FR', postal: '69001', lat: 45.7676, lng: 4.8344, lang: 'fr' },
  { country: 'FR', postal: '59000', lat: 50.6292, lng: 3.0573, lang: 'fr' },
  { country: 'DE', postal: '10115', lat: 52.532, lng: 13.3849, lang: 'de' },
  { country: 'DE', postal: '50667', lat: 50.9375, lng: 6.9603, lang: 'de' },
  { country: 'DE', postal: '80331', lat: 48.1374, lng: 11.5755, lang: 'de' },
  { country: 'GB', postal: 'EC1A', lat: 51.5203, lng: -0.0986, lang: 'en' },
  { country: 'GB', postal: 'M1', lat: 53.4794, lng: -2.2453, lang: 'en' },
  { country: 'GB', postal: 'EH1', lat: 55.9521, lng: -3.1965, lang: 'en' },
]

const TEMPLATES: Record<
  Lang,
  {
    job: string[]
    project: string[]
    learning: string[]
    ticket: string[]
    feedback: string[]
    goal: string[]
  }
> = {
  en: {
    job: [
      'Responsible for {0} and {1}; day to day work with {2}.',
      'Led the {0} work stream, introduced {1} and coached colleagues in {2}.',
      'Hands-on {0} with a strong focus on {1} and {2}.',
    ],
    project: [
      'Delivered a {0} project using {1} and {2}.',
      'Migrated the team to {0}; set up {1} and documented {2}.',
      'Built a proof of concept combining {0} with {1}.',
    ],
    learning: ['Course on {0} and {1}', 'Advanced {0} workshop', 'Introduction to {0} with exercises in {1}'],
    ticket: [
      'Fix {0} issue in the {1} module',
      'Add {0} support to the {1} report',
      'Investigate {0} failure after {1} change',
    ],
    feedback: [
      'Shows real expertise in {0} and is the go-to person for {1}.',
      'Very strong in {0}; should grow in {1}.',
    ],
    goal: ['Become proficient in {0}', 'Obtain a certification in {0} and apply {1}'],
  },
  nl: {
    job: [
      'Verantwoordelijk voor {0} en {1}; dagelijks werk met {2}.',
      'Trok het {0}-traject, voerde {1} in en coachte collega’s in {2}.',
      'Praktische ervaring met {0}, met focus op {1} en {2}.',
    ],
    project: [
      'Project opgeleverd rond {0} met {1} en {2}.',
      'Migratie naar {0} begeleid; {1} opgezet en {2} gedocumenteerd.',
    ],
    learning: ['Opleiding {0} en {1}', 'Workshop {0} voor gevorderden'],
    ticket: ['Probleem met {0} in module {1} oplossen', 'Ondersteuning voor {0} toevoegen aan {1}'],
    feedback: [
      'Toont echte expertise in {0} en is het aanspreekpunt voor {1}.',
      'Zeer sterk in {0}; kan nog groeien in {1}.',
    ],
    goal: ['Vaardig worden in {0}', 'Certificaat behalen in {0} en {1} toepassen'],
  },
  fr: {
    job: [
      'Responsable de {0} et de {1} ; travail quotidien avec {2}.',
      'A piloté le chantier {0}, introduit {1} et formé les collègues à {2}.',
      'Expérience concrète en {0}, avec un accent sur {1} et {2}.',
    ],
    project: [
      'Projet livré autour de {0} avec {1} et {2}.',
      'Migration vers {0} ; mise en place de {1} et documentation de {2}.',
    ],
    learning: ['Formation {0} et {1}', 'Atelier avancé {0}'],
    ticket: ['Corriger un problème de {0} dans le module {1}', 'Ajouter la prise en charge de {0} dans {1}'],
    feedback: [
      'Fait preuve d’une vraie expertise en {0} et est la référence pour {1}.',
      'Très solide en {0} ; peut progresser en {1}.',
    ],
    goal: ['Maîtriser {0}', 'Obtenir une certification en {0} et appliquer {1}'],
  },
  de: {
    job: [
      'Verantwortlich für {0} und {1}; tägliche Arbeit mit {2}.',
      'Leitete den Bereich {0}, führte {1} ein und schulte Kollegen in {2}.',
      'Praktische Erfahrung in {0} mit Schwerpunkt auf {1} und {2}.',
    ],
    project: [
      'Projekt rund um {0} mit {1} und {2} umgesetzt.',
      'Migration auf {0} begleitet; {1} eingeführt und {2} dokumentiert.',
    ],
    learning: ['Schulung {0} und {1}', 'Fortgeschrittenen-Workshop {0}'],
    ticket: ['Fehler bei {0} im Modul {1} beheben', 'Unterstützung für {0} in {1} ergänzen'],
    feedback: [
      'Zeigt echte Expertise in {0} und ist Ansprechpartner für {1}.',
      'Sehr stark in {0}; Entwicklungspotenzial bei {1}.',
    ],
    goal: ['Sicher werden in {0}', 'Zertifizierung in {0} erwerben und {1} anwenden'],
  },
}

const FIRST = [
  'Anna',
  'Pieter',
  'Sophie',
  'Lukas',
  'Emma',
  'Thomas',
  'Julie',
  'Jan',
  'Marie',
  'David',
  'Sarah',
  'Noah',
  'Lena',
  'Hugo',
  'Eva',
  'Tom',
  'Léa',
  'Max',
  'Fleur',
  'Omar',
]
const LAST = [
  'Peeters',
  'Janssens',
  'de Vries',
  'Bakker',
  'Martin',
  'Bernard',
  'Müller',
  'Schmidt',
  'Smith',
  'Jones',
  'Dubois',
  'Visser',
  'Maes',
  'Weber',
  'Taylor',
  'Lambert',
  'Meyer',
  'Claes',
  'Wouters',
  'Brown',
]
const SENIORITY = ['Junior', 'Medior', 'Senior', 'Lead', 'Principal']
const EVENT_MIX: [string, number][] = [
  ['working_history', 22],
  ['learning', 14],
  ['project', 14],
  ['education_history', 5],
  ['certificate', 5],
  ['resume_document', 4],
  ['feedback', 6],
  ['goal', 5],
  ['ticket', 10],
  ['merge_request', 8],
  ['skill_notes', 5],
  ['skill_profile_feedback', 2],
]

/**
 * Writes a synthetic tenant (every entity and its skill events) that scales to 100,000 employees
 * and 2,000,000 events. Deterministic: the same options and seed give the same bytes. Texts are
 * made of the default vocabulary's names and aliases so that extraction finds skills in them.
 */
export async function generateTenant(options: GenerateOptions): Promise<GenerateResult> {
  const started = performance.now()
  const random = new SeededRandom(options.seed)
  const skills = loadSampleSkills()
  const employees = options.employees
  const jobCount = options.jobs ?? Math.max(10, Math.round(employees / 10))
  const vacancyCount = options.vacancies ?? Math.max(10, Math.round(employees / 5))
  const courseCount = options.courses ?? Math.max(12, Math.round(employees / 500))
  const eventCount = options.events ?? employees * 20
  const familyCount = Math.max(10, Math.round(jobCount / 100))
  ensureFolder(options.out, '--out')
  const files: GenerateResult['files'] = []
  const writer = async (file: string, write: (out: Out) => void | Promise<void>) => {
    const out = new Out(join(options.out, file))
    await write(out)
    await out.close()
    files.push({ file, rows: out.rows })
  }

  // Skill "profiles": clusters of related skills that jobs and people are built from.
  const byCluster = new Map<string, SampleSkill[]>()
  for (const skill of skills) byCluster.set(skill.cluster, [...(byCluster.get(skill.cluster) ?? []), skill])
  const clusters = [...byCluster.values()]
  const familySkills = Array.from({ length: familyCount }, () => random.sample(clusters, 3).flat())
  const jobSkills = Array.from({ length: jobCount }, (_, index) => {
    const pool = familySkills[index % familyCount] as SampleSkill[]
    return random.sample(pool, Math.min(pool.length, random.between(6, 12)))
  })
  const words = (skill: SampleSkill, lang: Lang) => random.pick(skill.words[lang])
  const fill = (template: string, lang: Lang, pool: SampleSkill[]) =>
    template.replace(/\{(\d)\}/g, () => words(random.pick(pool), lang))

  await writer('custom_property_definitions.csv', (out) => {
    out.header('entity_type,property_name,property_type')
    for (const row of [
      'employees,contract_type,text',
      'employees,fte,number',
      'employees,remote_ok,boolean',
      'employees,mobility_regions,list[text]',
      'vacancies,contract_type,text',
      'vacancies,min_fte,number',
      'vacancies,remote_possible,boolean',
      'vacancies,regions,list[text]',
      'job_architecture/jobs,job_grade,number',
    ])
      out.line(row)
  })

  const divisions = 8
  const departmentsPerDivision = 6
  const teams = Math.max(divisions * departmentsPerDivision, Math.round(employees / 25))
  const units: string[] = []
  await writer('organisational_units.csv', (out) => {
    out.header('external_id,name,parent_id')
    out.line('ou-root,Group,')
    for (let d = 0; d < divisions; d++) {
      out.line(`ou-d${d},Division ${d + 1},ou-root`)
      for (let p = 0; p < departmentsPerDivision; p++)
        out.line(`ou-d${d}-p${p},Department ${d + 1}.${p + 1},ou-d${d}`)
    }
    for (let t = 0; t < teams; t++) {
      const d = t % divisions
      const p = Math.floor(t / divisions) % departmentsPerDivision
      units.push(`ou-t${t}`)
      out.line(`ou-t${t},Team ${t + 1},ou-d${d}-p${p}`)
    }
  })

  await writer('companies.ndjson', (out) => {
    for (let c = 0; c < 5; c++) {
      const city = CITIES[c * 3] as (typeof CITIES)[number]
      out.json({
        external_id: `co-${c}`,
        name: `Company ${c + 1}`,
        vat: `${city.country}0${String(100000000 + c * 7919).slice(0, 9)}`,
        location: { lat: city.lat, lng: city.lng },
      })
    }
  })

  await writer('job_families.ndjson', (out) => {
    for (let f = 0; f < familyCount; f++) {
      const pool = familySkills[f] as SampleSkill[]
      out.json({
        external_id: `jf-${f}`,
        name: `Family ${f + 1}: ${words(pool[0] as SampleSkill, 'en')}`,
        description: fill(random.pick(TEMPLATES.en.job), 'en', pool),
        skills: random.sample(pool, Math.min(5, pool.length)).map((skill) => ({
          skill_id: skill.id,
          proficiency_level: random.between(2, 5),
          critical: random.chance(0.3),
        })),
      })
    }
  })

  await writer('jobs.ndjson', (out) => {
    for (let j = 0; j < jobCount; j++) {
      const pool = jobSkills[j] as SampleSkill[]
      const lang = random.weighted(LANGS, [6, 2, 1, 1])
      out.json({
        external_id: `job-${j}`,
        title: `${random.pick(SENIORITY)} ${words(pool[0] as SampleSkill, 'en')} specialist ${j + 1}`,
        description: [0, 1, 2].map(() => fill(random.pick(TEMPLATES[lang].job), lang, pool)).join(' '),
        job_family_id: `jf-${j % familyCount}`,
        custom_properties: { job_grade: random.between(1, 12) },
      })
    }
  })

  await writer('courses.ndjson', (out) => {
    for (let c = 0; c < courseCount; c++) {
      const pool = random.pick(clusters)
      const lang = random.pick(LANGS)
      out.json({
        external_id: `course-${c}`,
        title: fill(random.pick(TEMPLATES[lang].learning), lang, pool),
        description: fill(random.pick(TEMPLATES[lang].project), lang, pool),
        language: lang,
        duration_hours: random.between(2, 40),
      })
    }
  })

  await writer('vacancies.ndjson', (out) => {
    for (let v = 0; v < vacancyCount; v++) {
      const job = random.int(jobCount)
      const pool = jobSkills[job] as SampleSkill[]
      const city = random.pick(CITIES)
      const location = random.chance(0.5)
        ? {
            lat: round(city.lat + (random.next() - 0.5) / 10),
            lng: round(city.lng + (random.next() - 0.5) / 10),
          }
        : { country: city.country, postal_code: city.postal }
      out.json({
        external_id: `vac-${v}`,
        title: `${random.pick(SENIORITY)} ${words(pool[0] as SampleSkill, city.lang)}`,
        description: fill(random.pick(TEMPLATES[city.lang].job), city.lang, pool),
        status: random.weighted(['active', 'on_hold', 'filled', 'closed'], [80, 5, 10, 5]),
        job_id: `job-${job}`,
        company_id: `co-${random.int(5)}`,
        organisational_unit_id: random.pick(units),
        location,
        languages: [
          { language: city.lang, level: random.between(2, 5) },
          ...(city.lang !== 'en' && random.chance(0.5)
            ? [{ language: 'en', level: random.between(2, 4) }]
            : []),
        ],
        published_date: isoDate(2025, random.int(600)),
        custom_properties: {
          contract_type: random.pick(['permanent', 'temporary', 'freelance']),
          min_fte: random.pick([0.5, 0.8, 1]),
          remote_possible: random.chance(0.4),
          regions: [city.country],
        },
      })
    }
  })

  const employeeJob: number[] = []
  const employeeLang: Lang[] = []
  await writer('employees.ndjson', (out) => {
    for (let e = 0; e < employees; e++) {
      const job = random.int(jobCount)
      const city = random.pick(CITIES)
      employeeJob.push(job)
      employeeLang.push(city.lang)
      out.json({
        external_id: `emp-${e}`,
        first_name: random.pick(FIRST),
        last_name: random.pick(LAST),
        organisational_unit_id: random.pick(units),
        job_id: `job-${job}`,
        hire_date: isoDate(2005, random.int(7000)),
        location: random.chance(0.7)
          ? { country: city.country, postal_code: city.postal }
          : { lat: city.lat, lng: city.lng },
        languages: [
          { language: city.lang, level: 5 },
          ...(city.lang !== 'en' ? [{ language: 'en', level: random.between(2, 5) }] : []),
        ],
        ...(random.chance(0.3) ? { desired_functions: [`job-${random.int(jobCount)}`] } : {}),
        custom_properties: {
          contract_type: random.pick(['permanent', 'temporary', 'freelance']),
          fte: random.pick([0.5, 0.8, 1]),
          remote_ok: random.chance(0.5),
          mobility_regions: [city.country],
        },
      })
    }
  })

  const eventsFormat = options.eventsFormat ?? 'ndjson'
  await writer(`skill_events.${eventsFormat}`, async (out) => {
    if (eventsFormat === 'csv') out.header('employee_id,external_id,event_type,timestamp,source,content')
    const types = EVENT_MIX.map(([type]) => type)
    const weights = EVENT_MIX.map(([, weight]) => weight)
    for (let index = 0; index < eventCount; index++) {
      // Events go round the employees so that every employee has some, in a mixed order.
      const e = (index * 7919) % employees
      const lang = random.chance(0.7) ? (employeeLang[e] as Lang) : 'en'
      const own = jobSkills[employeeJob[e] as number] as SampleSkill[]
      const pool = random.chance(0.8) ? own : random.pick(clusters)
      const type = random.weighted(types, weights)
      const day = random.int(4000)
      const event = {
        employee_id: `emp-${e}`,
        external_id: `ev-${index}`,
        event_type: type,
        timestamp: isoDate(2015, day),
        content: eventContent(type, lang, pool, day, random, fill, words),
        source: random.pick(['workday', 'cornerstone', 'jira', 'gitlab', 'cv-parser', 'manager-portal']),
      }
      if (eventsFormat === 'csv') {
        out.line(
          `${event.employee_id},${event.external_id},${event.event_type},${event.timestamp},${event.source},${csvQuote(JSON.stringify(event.content))}`,
        )
      } else out.json(event)
      if (index % 10_000 === 9_999) await out.drained()
      if (index % 100_000 === 99_999) options.onProgress?.(index + 1, eventCount)
    }
  })

  return { out: options.out, seed: options.seed, files, seconds: (performance.now() - started) / 1000 }
}

function eventContent(
  type: string,
  lang: Lang,
  pool: SampleSkill[],
  day: number,
  random: SeededRandom,
  fill: (template: string, lang: Lang, pool: SampleSkill[]) => string,
  words: (skill: SampleSkill, lang: Lang) => string,
): Record<string, unknown> {
  const t = TEMPLATES[lang]
  const skill = random.pick(pool)
  switch (type) {
    case 'working_history': {
      const start = isoDate(2010, Math.max(0, day - random.int(2000)))
      return {
        job_title: `${random.pick(SENIORITY)} ${words(skill, lang)}`,
        start_date: start,
        ...(random.chance(0.7) ? { end_date: isoDate(2015, day) } : {}),
        company: `Company ${random.between(1, 400)}`,
        job_description: `${fill(random.pick(t.job), lang, pool)} ${fill(random.pick(t.project), lang, pool)}`,
      }
    }
    case 'education_history':
      return {
        degree: random.pick(['BSc', 'MSc', 'Bachelor', 'Master']),
        field_of_study: words(skill, lang),
        institution: `University ${random.between(1, 60)}`,
        description: fill(random.pick(t.learning), lang, pool),
      }
    case 'resume_document':
      return { text: [0, 1, 2, 3].map(() => fill(random.pick(t.job), lang, pool)).join('\n') }
    case 'learning':
      return {
        title: fill(random.pick(t.learning), lang, pool),
        description: fill(random.pick(t.project), lang, pool),
        duration_hours: random.between(1, 40),
      }
    case 'feedback':
      return { text: fill(random.pick(t.feedback), lang, pool), rating: random.between(2, 5) }
    case 'goal':
      return {
        title: fill(random.pick(t.goal), lang, pool),
        status: random.pick(['open', 'in_progress', 'achieved']),
      }
    case 'project':
      return {
        name: `Project ${words(skill, lang)}`,
        description: `${fill(random.pick(t.project), lang, pool)} ${fill(random.pick(t.project), lang, pool)}`,
        technologies: random.sample(pool, 3).map((item) => words(item, 'en')),
      }
    case 'ticket':
      return {
        title: fill(random.pick(t.ticket), lang, pool),
        system: 'jira',
        ticket_key: `OPS-${random.between(1, 99999)}`,
      }
    case 'merge_request':
      return {
        title: fill(random.pick(TEMPLATES.en.ticket), 'en', pool),
        repository: `platform/${random.pick(['billing', 'hr-portal', 'warehouse', 'analytics'])}`,
        changed_files: [
          `src/${random.pick(['api', 'jobs', 'reports'])}/${random.pick(['export', 'import', 'sync'])}.${random.pick(['py', 'ts', 'sql', 'java'])}`,
        ],
      }
    case 'certificate':
      return {
        name: `${words(skill, 'en')} certificate`,
        issuer: random.pick(['Microsoft', 'AWS', 'PMI', 'Axelos', 'Cisco', 'Red Cross']),
        issue_date: isoDate(2015, day),
      }
    case 'skill_notes':
      return {
        skill_id: skill.id,
        note: fill(random.pick(t.feedback), lang, pool),
        proficiency_level: random.between(1, 5),
      }
    default:
      return { skill_id: skill.id, action: random.chance(0.8) ? 'validate' : 'reject' }
  }
}

const round = (value: number) => Math.round(value * 1e5) / 1e5
const csvQuote = (value: string) => `"${value.replaceAll('"', '""')}"`

function isoDate(fromYear: number, days: number): string {
  return new Date(Date.UTC(fromYear, 0, 1) + days * 86_400_000).toISOString().slice(0, 10)
}

/** A buffered line writer that counts data rows. */
class Out {
  private readonly stream: WriteStream
  private buffer: string[] = []
  private size = 0
  rows = 0
  constructor(path: string) {
    this.stream = createWriteStream(path)
  }
  private congested = false
  header(text: string) {
    this.buffer.push(text)
  }
  line(text: string) {
    this.buffer.push(text)
    this.size += text.length
    this.rows++
    if (this.size > 1 << 20) this.flush()
  }
  /** Waits while the file stream is congested, so that memory stays flat at any size. */
  async drained() {
    if (!this.congested) return
    await new Promise<void>((resolve) => this.stream.once('drain', () => resolve()))
    this.congested = false
  }
  json(value: unknown) {
    this.line(JSON.stringify(value))
  }
  private flush() {
    if (this.buffer.length && !this.stream.write(`${this.buffer.join('\n')}\n`)) this.congested = true
    this.buffer = []
    this.size = 0
  }
  async close() {
    this.flush()
    await new Promise<void>((resolve, reject) => {
      this.stream.once('error', reject)
      this.stream.end(() => resolve())
    })
  }
}
