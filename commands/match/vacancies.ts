import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { matchAnswerFlags } from '../../src/cli/shared-flags.js'
import { textTable } from '../../src/cli/text-table.js'
import { readRequestFile, writeVacancyMatches } from '../../src/matching/match-output.js'
import type { VacancyMatchingResponse } from '../../src/matching/vacancy-match-schema.js'
import { matchVacanciesForAll, matchVacanciesForEmployee } from '../../src/operations/matching-operations.js'
import { VACANCY_MATCH_INCLUDES } from '../../src/schemas/matching.js'
import { Flags } from '../../src/vendor/oclif.js'

interface BatchSummary {
  employees: number
  matches: number
  seconds: number
  failed: { employee_id: string; errors: string[] }[]
  out: string | null
}

export default class MatchVacancies extends SkillhouseCommand {
  static override summary = 'Top matching vacancies for an employee (4.11), or for every employee'
  static override description =
    `The request file is the endpoint's JSON body ({filters, weights, event_types}); without it, the defaults (skills only, within 50 km of the employee). Flags mirror the query parameters. With --out DIR each employee's answer is written atomically to DIR/matching_vacancies/<employee>.json; without it the answer goes to stdout (one JSON line per employee with --all-employees). In a batch, an employee the request cannot serve (a max_geo_distance filter without a location, for an employee whose location is unknown) is reported and skipped, and the command exits with 3.`
  static override examples = [
    '<%= config.bin %> match vacancies --employee emp-10001 --include entity --include score_breakdown',
    '<%= config.bin %> match vacancies --employee emp-10001 --request fixtures/examples/matching-vacancies-request.json --response-format explained',
    '<%= config.bin %> match vacancies --all-employees --out out/',
  ]
  static override flags = {
    tenant: tenantFlag,
    employee: Flags.string({
      description: 'external_id of the employee',
      exactlyOne: ['employee', 'all-employees'],
    }),
    'all-employees': Flags.boolean({ description: 'every employee, in external_id order' }),
    request: Flags.string({ description: 'JSON file with the request body of 4.11' }),
    'min-score': Flags.string({ description: 'minimum score, 0 to 1 (default 0)' }),
    limit: Flags.string({ description: 'number of results, 1 to 100 (default 10)' }),
    offset: Flags.string({ description: 'rank offset, at least 0 (default 0)' }),
    include: Flags.string({
      description: 'attributes to add (repeatable)',
      multiple: true,
      options: [...VACANCY_MATCH_INCLUDES],
    }),
    ...matchAnswerFlags(),
    out: Flags.string({ description: 'folder receiving matching_vacancies/<employee>.json' }),
  }

  async run(): Promise<VacancyMatchingResponse | BatchSummary | { out: string }> {
    const { flags } = await this.parse(MatchVacancies)
    const body = readRequestFile(flags.request, {})
    const query = {
      ...(flags['min-score'] !== undefined ? { min_score: flags['min-score'] } : {}),
      ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
      ...(flags.offset !== undefined ? { offset: flags.offset } : {}),
      ...(flags.include ? { include: flags.include } : {}),
      response_format: flags['response-format'],
      external_vendor: flags['external-vendor'],
      vocab_language: flags['vocab-language'],
    }
    if (flags.employee !== undefined) {
      // A table for a person shows each vacancy's title and distance: asked for, whatever --include says.
      const table = !flags.out && !this.jsonEnabled()
      const shown = table
        ? { ...query, include: [...new Set([...(query.include ?? []), 'entity', 'location'])] }
        : query
      const response = await this.runOnTenant(flags, matchVacanciesForEmployee, {
        employee: flags.employee,
        body,
        query: shown as typeof query,
      })
      if (flags.out) {
        const path = writeVacancyMatches(flags.out, response)
        this.log(`${response.records.length} of ${response.total} matches → ${path}`)
        return { out: path }
      }
      if (table) this.printMatches(flags.employee, response)
      return response
    }
    const spinner = (await this.spinner('matching employees'))?.start()
    let done = 0
    const summary = await this.runOnTenant(
      flags,
      matchVacanciesForAll,
      { body, query },
      {
        item: (value) => {
          const response = value as VacancyMatchingResponse
          done++
          if (spinner) spinner.text = `${done} employees`
          if (flags.out) writeVacancyMatches(flags.out, response)
          else if (!this.jsonEnabled()) process.stdout.write(`${JSON.stringify(response)}\n`)
        },
      },
    ).finally(() => spinner?.stop())
    for (const failure of summary.failed)
      this.note(`skipped ${failure.employee_id}: ${failure.errors.join('; ')}`)
    if (flags.out) {
      this.log(
        `${summary.employees - summary.failed.length} employees, ${summary.matches} matches → ${flags.out}/matching_vacancies in ${summary.seconds.toFixed(1)} s`,
      )
    }
    if (summary.failed.length > 0) process.exitCode = 3
    return { ...summary, out: flags.out ?? null }
  }

  /** The answer as a person reads it: rank, score, title, distance, id. */
  private printMatches(employee: string, response: VacancyMatchingResponse): void {
    this.log(
      `${employee}: ${response.records.length} of ${response.total} vacancies${response.geo_filter_applied ? ' (within the distance filter)' : ''}`,
    )
    if (response.geo_filter_note) this.log(`  ${response.geo_filter_note}`)
    const rows = response.records.map((record) => [
      String(record.rank),
      record.score.toFixed(3),
      record.entity?.title ?? '',
      record.location?.distance_km === null || record.location?.distance_km === undefined
        ? '-'
        : `${record.location.distance_km} km`,
      record.vacancy_id,
    ])
    for (const line of textTable(['RANK', 'SCORE', 'VACANCY', 'DISTANCE', 'ID'], rows, [0, 1, 3]))
      this.log(`  ${line}`)
  }
}
