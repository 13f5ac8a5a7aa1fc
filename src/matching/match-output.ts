import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { errors } from '../errors/skillhouse-error.js'
import type { JobMatchingResponse } from '../schemas/matching.js'
import { writeFileAtomic } from '../util/atomic-file.js'
import type { VacancyMatchingResponse } from './vacancy-match-schema.js'

/**
 * A request body from a file (`request`, a file): the endpoint's JSON body, as a client would send
 * it. An unreadable file is a 400 naming it; the body itself is checked by the matching function.
 */
export function readRequestFile(path: string | undefined, fallback: Record<string, unknown>): unknown {
  if (path === undefined) return fallback
  if (!existsSync(path)) throw errors.badRequest(`\`request\` ${path} does not exist`)
  const text = readFileSync(path, 'utf8')
  try {
    return JSON.parse(text)
  } catch (error) {
    throw errors.badRequest(`\`request\` ${path} is not valid JSON: ${(error as Error).message}`)
  }
}

export type MatchFileFormat = 'json' | 'ndjson'

/** 4.10 as text: the spec's body (json), or one `{job_id, matches}` record per line (ndjson). */
export function jobMatchesText(response: JobMatchingResponse, format: MatchFileFormat): string {
  if (format === 'ndjson') return response.records.map((record) => `${JSON.stringify(record)}\n`).join('')
  return `${JSON.stringify(response)}\n`
}

/** Writes 4.10 output to `path` whole or not at all (a temporary sibling renamed over it). */
export function writeJobMatches(path: string, response: JobMatchingResponse, format: MatchFileFormat): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileAtomic(path, jobMatchesText(response, format))
}

/** Where one employee's 4.11 answer goes under an output folder (docs/api.md). */
export function vacancyMatchesPath(outDir: string, employeeId: string): string {
  return join(outDir, 'matching_vacancies', `${employeeId}.json`)
}

/** Writes one employee's 4.11 answer to `<outDir>/matching_vacancies/<employee>.json`, atomically. */
export function writeVacancyMatches(outDir: string, response: VacancyMatchingResponse): string {
  const path = vacancyMatchesPath(outDir, response.employee_id)
  mkdirSync(dirname(path), { recursive: true })
  writeFileAtomic(path, `${JSON.stringify(response)}\n`)
  return path
}
