import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { type AnswerState, KeptVacancyAnswers, readAnswerState } from '../matching/kept-vacancy-answers.js'
import { vacancyMatchesPath } from '../matching/match-output.js'
import { matchAllEmployees } from '../matching/match-vacancies.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { writeFileAtomic } from '../util/atomic-file.js'
import { codeStamp } from '../util/module-source.js'

/**
 * The nightly run's 4.11 answers, one file per employee, kept in step with the data by doing only
 * what changed. An employee's answer depends on the employee (record, skill profile, match
 * feedback) and on what every answer shares (the vacancies, their jobs and profiles, postal codes,
 * custom property definitions, the tenant's settings, the request, the model's version). The
 * answers are kept beside the database by the fingerprints of both parts (KeptVacancyAnswers):
 * while the shared part is unchanged, only employees whose part changed are matched again; the
 * others' answers are placed from what is kept, into this output folder or a new one. The output
 * folder keeps a state file with the checksum of each employee's file there: a file is written
 * only when its content changed (or it is gone), and every employee's file keeps a checksum in
 * the manifest.
 */

/** Bumped whenever the scoring or the answer's shape changes: every answer is computed again. */
const ANSWER_VERSION = 1

const STATE_FILE = '.state.json'

export interface VacancyOutputs {
  /** Employees with an answer file. */
  employees: number
  /** Employees matched in this run (their part or the shared part changed). */
  computed: number
  /** Files written (their content changed, or the folder did not hold them). */
  written: number
  failed: { employee_id: string; errors: string[] }[]
  /** sha256 of every employee's file, by file name in the folder. */
  files: Record<string, string>
}

/** Writes `<out>/matching_vacancies/<employee>.json` for every employee, matching only what changed. */
export async function writeVacancyOutputs(tenant: OpenTenant, out: string): Promise<VacancyOutputs> {
  const folder = join(out, 'matching_vacancies')
  mkdirSync(folder, { recursive: true })
  const statePath = join(folder, STATE_FILE)
  const shared = await sharedFingerprint(tenant)
  const inputs = await employeeFingerprints(tenant.database)
  const kept = KeptVacancyAnswers.open(tenant.database.path, shared)
  // What this folder holds already: a file whose checksum is the answer's stays as it is.
  const previous = readAnswerState(statePath)
  const state: AnswerState = { version: ANSWER_VERSION, shared, employees: {} }
  let written = 0
  const place = (id: string, sha256: string) => {
    const path = vacancyMatchesPath(out, id)
    if (previous?.employees[id]?.sha256 !== sha256 || !existsSync(path)) {
      kept.place(sha256, path)
      written++
    }
    state.employees[id] = { input: inputs.get(id) ?? '', sha256 }
  }
  const stale: string[] = []
  for (const [id, input] of inputs) {
    const sha256 = kept.answer(id, input)
    if (sha256 === undefined) stale.push(id)
    else {
      place(id, sha256)
      await kept.settle()
    }
  }
  let failed: VacancyOutputs['failed'] = []
  if (stale.length > 0) {
    const summary = await matchAllEmployees(
      tenant,
      {},
      {},
      async (response) => {
        place(response.employee_id, kept.keep(`${JSON.stringify(response)}\n`))
        await kept.settle()
      },
      { employees: stale },
    )
    failed = summary.failed
  }
  // The files of employees that are gone (or whose answer failed) leave with them.
  for (const id of Object.keys(previous?.employees ?? {})) {
    if (!state.employees[id]) rmSync(vacancyMatchesPath(out, id), { force: true })
  }
  // The answers are on the disk before a state file (or the manifest) says they are there.
  await kept.commit(state.employees)
  writeFileAtomic(statePath, JSON.stringify(state))
  const files: Record<string, string> = {}
  for (const [id, entry] of Object.entries(state.employees))
    files[basename(vacancyMatchesPath(out, id))] = entry.sha256
  return { employees: Object.keys(state.employees).length, computed: stale.length, written, failed, files }
}

/** What every employee's answer depends on, as one fingerprint (one query of aggregates). */
async function sharedFingerprint(tenant: OpenTenant): Promise<string> {
  const row = await tenant.database.one<{ parts: string }>(
    `SELECT concat_ws('/',
       (SELECT count(*) || ':' || coalesce(sum(hash(external_id, doc_hash)), 0) FROM vacancies),
       (SELECT count(*) || ':' || coalesce(sum(hash(external_id, doc_hash)), 0) FROM jobs),
       (SELECT count(*) || ':' || coalesce(sum(hash(external_id, doc_hash)), 0) FROM job_families),
       (SELECT count(*) || ':' || coalesce(sum(hash(entity_type, entity_id, external_vendor, version, profile_hash, low_data)), 0)
          FROM skill_profiles WHERE entity_type <> 'employee'),
       (SELECT count(*) || ':' || coalesce(sum(hash(country, postal_code, lat, lng)), 0) FROM postal_codes),
       (SELECT count(*) || ':' || coalesce(sum(hash(entity_type, property_name, property_type)), 0) FROM custom_property_definitions)
     ) AS parts`,
  )
  return createHash('sha256')
    .update(
      JSON.stringify({
        version: ANSWER_VERSION,
        code: answerCodeStamp(),
        parts: row?.parts ?? '',
        settings: tenant.settings,
      }),
    )
    .digest('hex')
}

/** The code that makes a 4.11 answer (match-vacancies and all it imports): an answer kept by other code is computed again. */
const answerCodeStamp = () => codeStamp(['../matching/match-vacancies'], import.meta.url)

/** Per employee, a fingerprint of what their answer depends on of their own. */
async function employeeFingerprints(database: TenantDatabase): Promise<Map<string, string>> {
  const rows = await database.all<{ external_id: string; input: string }>(
    `SELECT e.external_id, hash(e.doc_hash, coalesce(p.profiles, ''), coalesce(f.feedback, 0))::VARCHAR AS input
       FROM employees e
       LEFT JOIN (SELECT entity_id, string_agg(external_vendor || ':' || version || ':' || profile_hash || ':' || low_data, ',' ORDER BY external_vendor) AS profiles
                    FROM skill_profiles WHERE entity_type = 'employee' GROUP BY entity_id) p ON p.entity_id = e.external_id
       LEFT JOIN (SELECT employee_id, sum(hash(vacancy_id, feedback, timestamp)) AS feedback
                    FROM match_feedback GROUP BY employee_id) f ON f.employee_id = e.external_id`,
  )
  return new Map(rows.map((row) => [row.external_id, row.input]))
}
