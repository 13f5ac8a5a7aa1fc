import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { matchAnswerFlags } from '../../src/cli/shared-flags.js'
import {
  jobMatchesText,
  type MatchFileFormat,
  readRequestFile,
  writeJobMatches,
} from '../../src/matching/match-output.js'
import { matchEmployeesForJobs } from '../../src/operations/matching-operations.js'
import type { JobMatchingResponse } from '../../src/schemas/matching.js'
import { Flags } from '../../src/vendor/oclif.js'

export default class MatchJobs extends SkillhouseCommand {
  static override summary = 'Top matching employees for jobs (4.10), one page or every page'
  static override description =
    `The request file is the endpoint's JSON body ({filters, weights, limit, match_limit_per_entity, score_min_threshold, starting_after, include_overqualified, min_critical_skills_match_ratio}); without it, every job with the defaults. One page holds \`limit\` jobs in external_id order; --all-pages exports every job from starting_after on (scored in one pass over all cores), equal to the pages concatenated. Output: the spec's JSON body, or one {job_id, matches} record per line with --format ndjson; --out writes it atomically.`
  static override examples = [
    '<%= config.bin %> match jobs --all-pages --out out/matching_employees.json',
    '<%= config.bin %> match jobs --request fixtures/examples/matching-employees-request.json --response-format explained --vocab-language de',
    '<%= config.bin %> match jobs --all-pages --format ndjson --out out/matching_employees.ndjson',
  ]
  static override flags = {
    tenant: tenantFlag,
    request: Flags.string({ description: 'JSON file with the request body of 4.10' }),
    'all-pages': Flags.boolean({ description: 'every page from starting_after on, not one page' }),
    out: Flags.string({ description: 'write the result to this file (atomically) instead of stdout' }),
    ...matchAnswerFlags(),
    format: Flags.string({
      description: 'json (the spec body) or ndjson (a record per line)',
      options: ['json', 'ndjson'],
      default: 'json',
    }),
  }

  async run(): Promise<
    JobMatchingResponse | { out: string; jobs: number; matches: number; seconds: number }
  > {
    const { flags } = await this.parse(MatchJobs)
    const body = readRequestFile(flags.request, { filters: [], weights: [] })
    const query = {
      response_format: flags['response-format'],
      external_vendor: flags['external-vendor'],
      vocab_language: flags['vocab-language'],
    }
    const spinner = (await this.spinner('matching jobs'))?.start()
    const started = performance.now()
    const response = await this.runOnTenant(flags, matchEmployeesForJobs, {
      body,
      query,
      all_pages: flags['all-pages'],
    }).finally(() => spinner?.stop())
    const format = flags.format as MatchFileFormat
    const matches = response.records.reduce((sum, record) => sum + record.matches.length, 0)
    const seconds = (performance.now() - started) / 1000
    if (flags.out) {
      writeJobMatches(flags.out, response, format)
      this.log(
        `${response.records.length} jobs, ${matches} matches → ${flags.out} in ${seconds.toFixed(1)} s`,
      )
      return { out: flags.out, jobs: response.records.length, matches, seconds }
    }
    if (!this.jsonEnabled()) process.stdout.write(jobMatchesText(response, format))
    return response
  }
}
