import { parentPort, workerData } from 'node:worker_threads'
import { type LabelInput, SkillExtractor } from '../extraction/skill-extractor.js'
import { parseContents } from './derive.js'
import { type DerivedProfile, deriveEmployeeProfile } from './employee-profile.js'
import type { EventInput } from './evidence.js'

/** What a derivation worker starts with: the vocabulary and the profiles events may refer to. */
export interface DeriveWorkerSetup {
  labels: LabelInput[]
  jobs: [string, { skill_id: string; score: number }[]][]
  courses: [string, { skill_id: string; score: number }[]][]
  asOf: string
}

export interface DeriveWorkerBatch {
  id: number
  employees: [string, EventInput[]][]
}

export interface DeriveWorkerResult {
  id: number
  profiles: DerivedProfile[]
}

const setup = workerData as DeriveWorkerSetup
const extractor = SkillExtractor.compile(setup.labels)
const context = {
  extractor,
  referenced: { jobs: new Map(setup.jobs), courses: new Map(setup.courses) },
  knownSkills: new Set(extractor.skillIds),
  asOf: setup.asOf,
}

parentPort?.on('message', (batch: DeriveWorkerBatch) => {
  const profiles = batch.employees.map(([employeeId, events]) =>
    deriveEmployeeProfile(employeeId, parseContents(events), context),
  )
  parentPort?.postMessage({ id: batch.id, profiles } satisfies DeriveWorkerResult)
})
