import { readFileSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { writeFileAtomic } from '../util/atomic-file.js'
import { processAlive } from '../util/file-lock.js'

/**
 * What a run holding a tenant's database says about itself, in a file beside the database
 * (`<tenant>.duckdb.run.json`): while the run holds the database nothing else can open it, so
 * `tenant list` and the refusal of other commands read this file instead.
 */
export interface RunStatus {
  run_id: string
  kind: string
  pid: number
  host: string
  started_at: string
  stage: string
  stage_started_at: string
}

export const runStatusFile = (databasePath: string) => `${databasePath}.run.json`

export function writeRunStatus(databasePath: string, status: RunStatus): void {
  writeFileAtomic(runStatusFile(databasePath), `${JSON.stringify(status, null, 2)}\n`)
}

export function clearRunStatus(databasePath: string): void {
  rmSync(runStatusFile(databasePath), { force: true })
}

/**
 * The status of the run holding the database, when its file is there and its process alive; a
 * file left by a run that was killed (`kill -9`) names no live process and is ignored.
 */
export function readRunStatus(databasePath: string): RunStatus | undefined {
  let status: RunStatus
  try {
    status = JSON.parse(readFileSync(runStatusFile(databasePath), 'utf8')) as RunStatus
  } catch {
    return undefined
  }
  if (status.host === hostname() && !processAlive(status.pid)) return undefined
  return status
}

/** "nightly run run-… (PID 123), in stage derive since 02:13:05Z, started 02:00:01Z". */
export function describeRun(status: RunStatus): string {
  return `${status.kind} run ${status.run_id} (PID ${status.pid}), in stage ${status.stage} since ${status.stage_started_at}, started ${status.started_at}`
}
