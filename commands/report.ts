import { basename, join, resolve } from 'node:path'
import { SkillhouseCommand, tenantFlag } from '../src/cli/base-command.js'
import { writeTenantReport } from '../src/operations/report-operations.js'
import { environmentLocale, parseReportOptions } from '../src/report/report-options.js'
import type { WrittenReport } from '../src/report/write-report.js'
import { VENDORS } from '../src/schemas/vendors.js'
import { Flags } from '../src/vendor/oclif.js'

export default class Report extends SkillhouseCommand {
  static override summary = "The consultant's skills report: one HTML page with charts, and an Excel workbook"
  static override description =
    "Writes report.html (one self-contained page: inline CSS and SVG charts, nothing fetched, opens offline and prints) and report.xlsx (the table behind every chart, one sheet each) into --out: overview, organisation heatmap, supply and demand, internal mobility, bench strength and data quality, computed by the same functions the API answers with. Skill names follow --vocab-language; numbers and dates --locale (default: the environment's)."
  static override examples = [
    '<%= config.bin %> report --tenant demo --out out/report',
    '<%= config.bin %> report --out out/report --vocab-language nl --locale nl-BE --depth 3 --group-by subdomain',
  ]
  static override fieldFlags = { external_vendor: 'vendor' }

  static override flags = {
    tenant: tenantFlag,
    out: Flags.string({
      description: 'folder that receives report.html and report.xlsx (made when missing)',
      required: true,
    }),
    vendor: Flags.string({
      description: 'vocabulary vendor of the profiles (default vendor_default)',
      options: [...VENDORS],
    }),
    'vocab-language': Flags.string({ description: 'language of the skill names (default en_uk)' }),
    'as-of': Flags.string({ description: 'the date the report speaks of (YYYY-MM-DD; default today)' }),
    locale: Flags.string({ description: "BCP 47 locale of numbers and dates (default: the environment's)" }),
    depth: Flags.integer({
      description: 'depth of organisational units in the heatmap (roots are 1)',
      default: 2,
    }),
    'group-by': Flags.string({
      description: 'heatmap columns: skill clusters or subdomains',
      options: ['skill_cluster', 'subdomain'],
      default: 'skill_cluster',
    }),
  }

  async run(): Promise<WrittenReport> {
    const { flags } = await this.parse(Report)
    const options = parseReportOptions({
      out: flags.out,
      external_vendor: flags.vendor,
      vocab_language: flags['vocab-language'],
      as_of: flags['as-of'],
      locale: flags.locale,
      depth: flags.depth,
      group_by: flags['group-by'],
    })
    const progress = await this.progressReport()
    progress.stage('report')
    const report = await this.runOnTenant(
      flags,
      writeTenantReport,
      // The folder and the locale as this command has them, whichever process writes the report.
      { ...options, out: resolve(options.out), locale: options.locale ?? environmentLocale() },
      { progress },
    ).finally(() => progress.stop())
    // The files as the folder was named (a server writes them by their whole path).
    const written = {
      ...report,
      html: join(options.out, basename(report.html)),
      xlsx: join(options.out, basename(report.xlsx)),
    }
    for (const [section, state] of Object.entries(written.sections))
      if (state !== 'chart') this.note(`${section}: ${state}`)
    this.log(`report of ${written.tenant} written in ${written.seconds} s: ${written.html}, ${written.xlsx}`)
    return written
  }
}
