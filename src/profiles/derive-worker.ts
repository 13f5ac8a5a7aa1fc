import { readFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { JobTitleIndex, type TitledJob } from '../extraction/job-titles.js'
import { type CompiledVocabulary, SkillExtractor } from '../extraction/skill-extractor.js'
import type { StemPairs } from '../extraction/text-tokens.js'
import { deriveEmployeeProfile } from './employee-profile.js'
import { eventsOfRecords, type SkillFinder } from './evidence.js'
import { addProfileRow, emptyProfileRows, type ProfileRows } from './profile-rows.js'

/** What a derivation worker starts with: the compiled vocabulary and the profiles events may refer to. */
export interface DeriveWorkerSetup {
  vocabulary: CompiledVocabulary
  /** The stems the calling thread knows: words stemmed before are not stemmed again. */
  stems: StemPairs
  jobs: [string, { skill_id: string; score: number }[]][]
  courses: [string, { skill_id: string; score: number }[]][]
  /** The tenant's Jobs by title and their own skills, for working histories' job titles. */
  roles:
    | { titledJobs: TitledJob[]; skills: [string, readonly { skill_id: string; score: number }[]][] }
    | undefined
  /** Implied skills as evidence (see `DeriveOptions.implied`). */
  implied: boolean
  asOf: string
}

/** Employees in order, how many events each has, and those events as JSON records (see `eventsOfRecords`). */
export interface DeriveWorkerBatch {
  id: number
  employees: string[]
  counts: number[]
  records: string[]
}

/** What one worker has done so far (each answer carries the totals). */
export interface DeriveWorkerStats {
  /** Characters of event content read and of text handed to the extractor. */
  content_chars: number
  extracted_chars: number
  /** Time spent in extraction, and on batches altogether (wall clock of this thread). */
  extract_seconds: number
  busy_seconds: number
  /** CPU time of this thread since its first batch, when the system tells (Linux). */
  cpu_seconds: number | null
}

export interface DeriveWorkerResult {
  id: number
  rows: ProfileRows
  /** Stems computed for this batch, for the calling thread to save (see `saveStems`). */
  stems: StemPairs
  stats: DeriveWorkerStats
}

const setup = workerData as DeriveWorkerSetup
const extractor = SkillExtractor.load(setup.vocabulary)
extractor.stems.remember(setup.stems, { unsaved: false })
extractor.stems.reportLearned()
const stats: DeriveWorkerStats = {
  content_chars: 0,
  extracted_chars: 0,
  extract_seconds: 0,
  busy_seconds: 0,
  cpu_seconds: null,
}
/** The extractor, timed: what is measured is extraction alone, not parsing or profile building. */
const timedExtractor: SkillFinder = {
  visitSkills(text, language, visit, minScore, implied) {
    const started = performance.now()
    extractor.visitSkills(text, language, visit, minScore, implied)
    stats.extract_seconds += (performance.now() - started) / 1000
    stats.extracted_chars += text.length
  },
}
const context = {
  extractor: timedExtractor,
  referenced: {
    jobs: new Map(setup.jobs),
    courses: new Map(setup.courses),
    ...(setup.roles
      ? { roles: { titles: new JobTitleIndex(setup.roles.titledJobs), skills: new Map(setup.roles.skills) } }
      : {}),
  },
  knownSkills: new Set(extractor.skillIds),
  asOf: setup.asOf,
  implied: setup.implied,
}
let cpuAtStart: number | null | undefined

parentPort?.on('message', (batch: DeriveWorkerBatch) => {
  const started = performance.now()
  cpuAtStart ??= threadCpuSeconds()
  const rows = emptyProfileRows()
  let offset = 0
  for (let index = 0; index < batch.employees.length; index++) {
    const count = batch.counts[index] as number
    // One employee's events at a time: what is parsed dies young, before the collector copies it.
    const { events, contentChars } = eventsOfRecords(batch.records.slice(offset, offset + count))
    addProfileRow(rows, deriveEmployeeProfile(batch.employees[index] as string, events, context))
    stats.content_chars += contentChars
    offset += count
  }
  stats.busy_seconds += (performance.now() - started) / 1000
  const cpu = threadCpuSeconds()
  stats.cpu_seconds = cpu === null || cpuAtStart === null ? null : cpu - cpuAtStart
  parentPort?.postMessage({
    id: batch.id,
    rows,
    stems: extractor.stems.takeLearned(),
    stats,
  } satisfies DeriveWorkerResult)
})

/**
 * CPU seconds this thread has used (user and system), from /proc/thread-self/stat on Linux
 * (clock ticks of 1/100 s); null elsewhere. Node 20 has no per-thread CPU clock of its own:
 * `process.cpuUsage()` counts every thread of the process.
 */
function threadCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}
