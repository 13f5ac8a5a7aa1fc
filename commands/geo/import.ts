import { resolve } from 'node:path'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import type { PostalImportSummary } from '../../src/geo/postal-codes.js'
import { importPostal } from '../../src/operations/taxonomy-operations.js'
import { Args } from '../../src/vendor/oclif.js'

export default class GeoImport extends SkillhouseCommand {
  static override summary =
    'Load postal codes (GeoNames format) for the geo-distance filters and weights of matching'
  static override description =
    `Reads GeoNames postal-code files: the CSV with the header country_code,zipcode,place,state,state_code,province,province_code,community,community_code,latitude,longitude, or GeoNames' tab-separated dump (allCountries.txt, BE.txt). A folder means every .csv and .txt in it. A postal code listed with several places is placed at their mean; each country in the input replaces that country's earlier codes. Rows without a country, a code or valid coordinates are reported with their line numbers, and the command then exits with 3. Addresses {country, postal_code} of employees, vacancies and requests are placed through this table.`
  static override examples = [
    '<%= config.bin %> geo import fixtures/postal-codes/demo.csv',
    '<%= config.bin %> geo import fixtures/postal-codes --tenant demo --json',
  ]
  static override strict = false
  static override args = {
    path: Args.string({ description: 'postal-code files or folders', required: true }),
  }
  static override flags = { tenant: tenantFlag }

  async run(): Promise<PostalImportSummary> {
    const { argv, flags } = await this.parse(GeoImport)
    const progress = await this.progressReport()
    const summary = await this.runOnTenant(
      flags,
      importPostal,
      { paths: (argv as string[]).map((path) => resolve(path)) },
      { progress },
    ).finally(() => progress.stop())
    for (const file of summary.files) {
      this.log(
        `${file.file}: ${file.rows_read} rows, ${file.codes} postal codes (${file.countries.join(', ') || 'none'}), ${file.rows_rejected} rejected`,
      )
      for (const reject of file.rejects) this.note(`  line ${reject.line}: ${reject.reason}`)
    }
    for (const country of summary.countries) this.log(`${country.country} ${country.codes} postal codes`)
    this.log(`${summary.codes_written} postal codes written in ${summary.seconds.toFixed(1)} s`)
    if (summary.rows_rejected > 0) process.exitCode = 3
    return summary
  }
}
