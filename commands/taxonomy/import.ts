import { resolve } from 'node:path'
import { SkillhouseCommand, tenantFlag } from '../../src/cli/base-command.js'
import { importVocabulary } from '../../src/operations/taxonomy-operations.js'
import { type TaxonomyImportSummary, VOCABULARY_FORMATS } from '../../src/schemas/taxonomy-operations.js'
import { VENDORS } from '../../src/schemas/vendors.js'
import { Args, Flags } from '../../src/vendor/oclif.js'

export default class TaxonomyImport extends SkillhouseCommand {
  static override summary =
    'Load a vocabulary: an ESCO download, or a custom taxonomy in the skillhouse format'
  static override description =
    `--format esco reads the official ESCO CSV download (skillsHierarchy, broaderRelationsSkillPillar, skills_<lang>.csv or the skill collections; several languages merge) and replaces the vendor's vocabulary (default vendor_a, which must be activated on the tenant). --format skillhouse reads vocabulary JSON files (one Domain each, as fixtures/vocabulary/default) and skills.csv into the tenant's custom taxonomy (default vendor_default). Without --format, a path holding ESCO files means esco. Skills are compared by content: an unchanged vocabulary changes nothing and sends no event; otherwise one taxonomy change is recorded and its CloudEvents go to the outbox.`
  static override examples = [
    '<%= config.bin %> tenant update demo --vendor vendor_a && <%= config.bin %> taxonomy import fixtures/esco-sample --format esco --tenant demo',
    '<%= config.bin %> taxonomy import fixtures/esco-sample/transversalSkillsCollection_en.csv fixtures/esco-sample/skillsHierarchy_en.csv fixtures/esco-sample/broaderRelationsSkillPillar_en.csv --format esco --tenant demo',
    '<%= config.bin %> taxonomy import fixtures/custom-taxonomy --format skillhouse --tenant demo',
  ]
  static override strict = false
  static override args = { path: Args.string({ description: 'files or folders to import', required: true }) }
  static override flags = {
    tenant: tenantFlag,
    format: Flags.string({
      description: 'vocabulary format (default: detected from the files)',
      options: [...VOCABULARY_FORMATS],
    }),
    'external-vendor': Flags.string({
      description:
        'vendor whose taxonomy receives the vocabulary (esco: vendor_a; skillhouse: vendor_default)',
      options: [...VENDORS],
    }),
    replace: Flags.boolean({
      description: 'skillhouse format: delete custom entities the files do not hold',
    }),
  }

  async run(): Promise<TaxonomyImportSummary> {
    const { argv, flags } = await this.parse(TaxonomyImport)
    const progress = await this.progressReport()
    const summary = await this.runOnTenant(
      flags,
      importVocabulary,
      {
        // Paths as the process that does the work finds them (a server has a folder of its own).
        paths: (argv as string[]).map((path) => resolve(path)),
        format: flags.format as TaxonomyImportSummary['format'] | undefined,
        external_vendor: flags['external-vendor'] as TaxonomyImportSummary['external_vendor'] | undefined,
        replace: flags.replace,
      },
      { progress },
    ).finally(() => progress.stop())
    const counts = (label: string, level: { created: number; updated: number; deleted: number }) =>
      this.log(
        `${label.padEnd(16)} ${level.created} created, ${level.updated} updated, ${level.deleted} deleted`,
      )
    this.log(
      `${summary.format} → ${summary.external_vendor}${summary.custom ? ' (custom taxonomy)' : ''}: ${summary.skills} skills in ${summary.languages.join(', ') || 'no language'}`,
    )
    counts('skills', summary.skill_changes)
    counts('domains', summary.domains)
    counts('subdomains', summary.subdomains)
    counts('skill clusters', summary.skill_clusters)
    this.log(
      summary.change_id
        ? `recorded change ${summary.change_id}; ${summary.events} events in the outbox (${summary.seconds.toFixed(1)} s)`
        : `nothing changed; no change recorded, no event sent (${summary.seconds.toFixed(1)} s)`,
    )
    for (const skipped of summary.skipped) this.note(`skipped ${skipped.path}: ${skipped.reason}`)
    for (const note of summary.notes) this.note(note)
    return summary
  }
}
