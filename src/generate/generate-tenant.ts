import { join } from 'node:path'
import { ensureFolder } from '../util/atomic-file.js'
import { SeededRandom } from '../util/seeded-random.js'
import { eventContent } from './event-content.js'
import {
  CITIES,
  EVENT_MIX,
  FIRST_NAMES,
  LANGS,
  LAST_NAMES,
  type Lang,
  SENIORITY,
  TEMPLATES,
} from './generator-word-lists.js'
import { LineWriter } from './line-writer.js'
import { isoDate, SkillText } from './skill-text.js'
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

/** How many of each entity the tenant gets: the options' counts, else their defaults. */
interface TenantCounts {
  employees: number
  jobs: number
  vacancies: number
  courses: number
  events: number
  families: number
  /** Teams: the organisational units people and vacancies belong to. */
  teams: number
}

/**
 * What every file is drawn from, in the order the files are written: one seeded random source,
 * the vocabulary's skills grouped by cluster, the skills of each job family and of each job.
 */
interface TenantDraw {
  random: SeededRandom
  text: SkillText
  counts: TenantCounts
  clusters: SampleSkill[][]
  familySkills: SampleSkill[][]
  jobSkills: SampleSkill[][]
  /** The ids of the teams. */
  units: string[]
}

const DIVISIONS = 8
const DEPARTMENTS_PER_DIVISION = 6
const COMPANIES = 5

/**
 * Writes a synthetic tenant (every entity and its skill events) that scales to 100,000 employees
 * and 2,000,000 events. Deterministic: the same options and seed give the same bytes. Texts are
 * made of the default vocabulary's names and aliases so that extraction finds skills in them.
 */
export async function generateTenant(options: GenerateOptions): Promise<GenerateResult> {
  const started = performance.now()
  const random = new SeededRandom(options.seed)
  const skills = loadSampleSkills()
  const counts = tenantCounts(options)
  ensureFolder(options.out, 'out')
  const draw = drawSkillPools(random, skills, counts)
  const files: GenerateResult['files'] = []
  const write = async (file: string, body: (out: LineWriter) => void | Promise<void>) => {
    const out = new LineWriter(join(options.out, file))
    await body(out)
    await out.close()
    files.push({ file, rows: out.rows })
  }
  await write('custom_property_definitions.csv', writeCustomPropertyDefinitions)
  await write('organisational_units.csv', (out) => writeOrganisationalUnits(out, counts.teams))
  await write('companies.ndjson', writeCompanies)
  await write('job_families.ndjson', (out) => writeJobFamilies(out, draw))
  await write('jobs.ndjson', (out) => writeJobs(out, draw))
  await write('courses.ndjson', (out) => writeCourses(out, draw))
  await write('vacancies.ndjson', (out) => writeVacancies(out, draw))
  const employees: EmployeeDraws = { job: [], lang: [] }
  await write('employees.ndjson', (out) => writeEmployees(out, draw, employees))
  const eventsFormat = options.eventsFormat ?? 'ndjson'
  await write(`skill_events.${eventsFormat}`, (out) =>
    writeSkillEvents(out, draw, employees, eventsFormat, options.onProgress),
  )
  return { out: options.out, seed: options.seed, files, seconds: (performance.now() - started) / 1000 }
}

function tenantCounts(options: GenerateOptions): TenantCounts {
  const employees = options.employees
  const jobs = options.jobs ?? Math.max(10, Math.round(employees / 10))
  return {
    employees,
    jobs,
    vacancies: options.vacancies ?? Math.max(10, Math.round(employees / 5)),
    courses: options.courses ?? Math.max(12, Math.round(employees / 500)),
    events: options.events ?? employees * 20,
    families: Math.max(10, Math.round(jobs / 100)),
    teams: Math.max(DIVISIONS * DEPARTMENTS_PER_DIVISION, Math.round(employees / 25)),
  }
}

/** Skill "profiles": clusters of related skills that job families, jobs and people are built from. */
function drawSkillPools(random: SeededRandom, skills: SampleSkill[], counts: TenantCounts): TenantDraw {
  const byCluster = new Map<string, SampleSkill[]>()
  for (const skill of skills) byCluster.set(skill.cluster, [...(byCluster.get(skill.cluster) ?? []), skill])
  const clusters = [...byCluster.values()]
  const familySkills = Array.from({ length: counts.families }, () => random.sample(clusters, 3).flat())
  const jobSkills = Array.from({ length: counts.jobs }, (_, index) => {
    const pool = familySkills[index % counts.families] as SampleSkill[]
    return random.sample(pool, Math.min(pool.length, random.between(6, 12)))
  })
  const units = Array.from({ length: counts.teams }, (_, team) => `ou-t${team}`)
  return { random, text: new SkillText(random), counts, clusters, familySkills, jobSkills, units }
}

function writeCustomPropertyDefinitions(out: LineWriter): void {
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
}

/** A group of divisions with departments, and the teams spread over the departments. */
function writeOrganisationalUnits(out: LineWriter, teams: number): void {
  out.header('external_id,name,parent_id')
  out.line('ou-root,Group,')
  for (let d = 0; d < DIVISIONS; d++) {
    out.line(`ou-d${d},Division ${d + 1},ou-root`)
    for (let p = 0; p < DEPARTMENTS_PER_DIVISION; p++)
      out.line(`ou-d${d}-p${p},Department ${d + 1}.${p + 1},ou-d${d}`)
  }
  for (let t = 0; t < teams; t++) {
    const d = t % DIVISIONS
    const p = Math.floor(t / DIVISIONS) % DEPARTMENTS_PER_DIVISION
    out.line(`ou-t${t},Team ${t + 1},ou-d${d}-p${p}`)
  }
}

function writeCompanies(out: LineWriter): void {
  for (let c = 0; c < COMPANIES; c++) {
    const city = CITIES[c * 3] as (typeof CITIES)[number]
    out.json({
      external_id: `co-${c}`,
      name: `Company ${c + 1}`,
      vat: `${city.country}0${String(100000000 + c * 7919).slice(0, 9)}`,
      location: { lat: city.lat, lng: city.lng },
    })
  }
}

function writeJobFamilies(out: LineWriter, { random, text, counts, familySkills }: TenantDraw): void {
  for (let f = 0; f < counts.families; f++) {
    const pool = familySkills[f] as SampleSkill[]
    out.json({
      external_id: `jf-${f}`,
      name: `Family ${f + 1}: ${text.word(pool[0] as SampleSkill, 'en')}`,
      description: text.fill(random.pick(TEMPLATES.en.job), 'en', pool),
      skills: random.sample(pool, Math.min(5, pool.length)).map((skill) => ({
        skill_id: skill.id,
        proficiency_level: random.between(2, 5),
        critical: random.chance(0.3),
      })),
    })
  }
}

function writeJobs(out: LineWriter, { random, text, counts, jobSkills }: TenantDraw): void {
  for (let j = 0; j < counts.jobs; j++) {
    const pool = jobSkills[j] as SampleSkill[]
    const lang = random.weighted(LANGS, [6, 2, 1, 1])
    out.json({
      external_id: `job-${j}`,
      title: `${random.pick(SENIORITY)} ${text.word(pool[0] as SampleSkill, 'en')} specialist ${j + 1}`,
      description: [0, 1, 2].map(() => text.fill(random.pick(TEMPLATES[lang].job), lang, pool)).join(' '),
      job_family_id: `jf-${j % counts.families}`,
      custom_properties: { job_grade: random.between(1, 12) },
    })
  }
}

function writeCourses(out: LineWriter, { random, text, counts, clusters }: TenantDraw): void {
  for (let c = 0; c < counts.courses; c++) {
    const pool = random.pick(clusters)
    const lang = random.pick(LANGS)
    out.json({
      external_id: `course-${c}`,
      title: text.fill(random.pick(TEMPLATES[lang].learning), lang, pool),
      description: text.fill(random.pick(TEMPLATES[lang].project), lang, pool),
      language: lang,
      duration_hours: random.between(2, 40),
    })
  }
}

function writeVacancies(out: LineWriter, { random, text, counts, jobSkills, units }: TenantDraw): void {
  for (let v = 0; v < counts.vacancies; v++) {
    const job = random.int(counts.jobs)
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
      title: `${random.pick(SENIORITY)} ${text.word(pool[0] as SampleSkill, city.lang)}`,
      description: text.fill(random.pick(TEMPLATES[city.lang].job), city.lang, pool),
      status: random.weighted(['active', 'on_hold', 'filled', 'closed'], [80, 5, 10, 5]),
      job_id: `job-${job}`,
      company_id: `co-${random.int(COMPANIES)}`,
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
}

/** The job and the language of each employee: what their skill events are written about and in. */
interface EmployeeDraws {
  job: number[]
  lang: Lang[]
}

function writeEmployees(out: LineWriter, { random, counts, units }: TenantDraw, drawn: EmployeeDraws): void {
  for (let e = 0; e < counts.employees; e++) {
    const job = random.int(counts.jobs)
    const city = random.pick(CITIES)
    drawn.job.push(job)
    drawn.lang.push(city.lang)
    out.json({
      external_id: `emp-${e}`,
      first_name: random.pick(FIRST_NAMES),
      last_name: random.pick(LAST_NAMES),
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
      ...(random.chance(0.3) ? { desired_functions: [`job-${random.int(counts.jobs)}`] } : {}),
      custom_properties: {
        contract_type: random.pick(['permanent', 'temporary', 'freelance']),
        fte: random.pick([0.5, 0.8, 1]),
        remote_ok: random.chance(0.5),
        mobility_regions: [city.country],
      },
    })
  }
}

const EVENT_TYPES = EVENT_MIX.map(([type]) => type)
const EVENT_WEIGHTS = EVENT_MIX.map(([, weight]) => weight)
const EVENT_SOURCES = ['workday', 'cornerstone', 'jira', 'gitlab', 'cv-parser', 'manager-portal']

async function writeSkillEvents(
  out: LineWriter,
  { random, text, counts, clusters, jobSkills }: TenantDraw,
  employees: EmployeeDraws,
  format: 'ndjson' | 'csv',
  onProgress: GenerateOptions['onProgress'],
): Promise<void> {
  if (format === 'csv') out.header('employee_id,external_id,event_type,timestamp,source,content')
  for (let index = 0; index < counts.events; index++) {
    // Events go round the employees so that every employee has some, in a mixed order.
    const employee = (index * 7919) % counts.employees
    const lang = random.chance(0.7) ? (employees.lang[employee] as Lang) : 'en'
    const own = jobSkills[employees.job[employee] as number] as SampleSkill[]
    const pool = random.chance(0.8) ? own : random.pick(clusters)
    const type = random.weighted(EVENT_TYPES, EVENT_WEIGHTS)
    const day = random.int(4000)
    const event = {
      employee_id: `emp-${employee}`,
      external_id: `ev-${index}`,
      event_type: type,
      timestamp: isoDate(2015, day),
      content: eventContent(type, lang, pool, day, random, text),
      source: random.pick(EVENT_SOURCES),
    }
    if (format === 'csv') {
      out.line(
        `${event.employee_id},${event.external_id},${event.event_type},${event.timestamp},${event.source},${csvQuote(JSON.stringify(event.content))}`,
      )
    } else out.json(event)
    if (index % 10_000 === 9_999) await out.drained()
    if (index % 100_000 === 99_999) onProgress?.(index + 1, counts.events)
  }
}

const round = (value: number) => Math.round(value * 1e5) / 1e5
const csvQuote = (value: string) => `"${value.replaceAll('"', '""')}"`
