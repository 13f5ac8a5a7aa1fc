import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { vacancyMatchesPath } from '../matching/match-output.js'
import { matchAllEmployees } from '../matching/match-vacancies.js'
import type { TenantDatabase } from '../store/tenant-database.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { writeFileAtomic } from '../util/atomic-file.js'

/**
 * The nightly run's 4.11 answers, one file per employee, kept in step with the data by doing only
 * what changed. An employee's answer depends on the employee (record, skill profile, match
 * feedback) and on what every answer shares (the vacancies, their jobs and profiles, postal codes,
 * custom property definitions, the tenant's settings, the request, the model's version). The
 * output folder keeps a state file with the fingerprint of the shared part and, per employee, the
 * fingerprint of their part and the checksum of their file: while the shared part is unchanged,
 * only employees whose part changed (or whose file is gone) are matched again, a file is written
 * only when its content changed, and every employee's file keeps a checksum in the manifest.
 */

/** Bumped whenever the scoring or the answer's shape changes: every answer is computed again. */
const ANSWER_VERSION = 1

const STATE_FILE = '.state.json'

interface OutputState {
  version: number
  shared: string
  employees: Record<string, { input: string; sha256: string }>
}

export interface VacancyOutputs {
  /** Employees with an answer file. */
  employees: number
  /** Employees matched in this run (their part or the shared part changed). */
  computed: number
  /** Files written (their content changed). */
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
  const previous = readState(statePath)
  const known =
    previous && previous.version === ANSWER_VERSION && previous.shared === shared ? previous : null
  const state: OutputState = { version: ANSWER_VERSION, shared, employees: {} }
  const stale: string[] = []
  for (const [id, input] of inputs) {
    const before = known?.employees[id]
    if (before && before.input === input && existsSync(vacancyMatchesPath(out, id)))
      state.employees[id] = before
    else stale.push(id)
  }
  let written = 0
  let failed: VacancyOutputs['failed'] = []
  if (stale.length > 0) {
    const summary = await matchAllEmployees(
      tenant,
      {},
      {},
      (response) => {
        const path = vacancyMatchesPath(out, response.employee_id)
        const text = `${JSON.stringify(response)}\n`
        const sha256 = createHash('sha256').update(text).digest('hex')
        const before = previous?.employees[response.employee_id]
        if (before?.sha256 !== sha256 || !existsSync(path)) {
          writeFileAtomic(path, text)
          written++
        }
        state.employees[response.employee_id] = { input: inputs.get(response.employee_id) ?? '', sha256 }
      },
      { employees: stale },
    )
    failed = summary.failed
  }
  // The files of employees that are gone (or whose answer failed) leave with them.
  for (const id of Object.keys(previous?.employees ?? {})) {
    if (!state.employees[id]) rmSync(vacancyMatchesPath(out, id), { force: true })
  }
  writeFileAtomic(statePath, JSON.stringify(state))
  const files: Record<string, string> = {}
  for (const [id, entry] of Object.entries(state.employees))
    files[basename(vacancyMatchesPath(out, id))] = entry.sha256
  return { employees: Object.keys(state.employees).length, computed: stale.length, written, failed, files }
}

function readState(path: string): OutputState | null {
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as OutputState
    return typeof state.shared === 'string' && typeof state.employees === 'object' ? state : null
  } catch {
    return null
  }
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
    .update(JSON.stringify({ parts: row?.parts ?? '', settings: tenant.settings }))
    .digest('hex')
}

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
