import { readdirSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import {
  TaxonomyImportOptions,
  type TaxonomyImportSummary,
  type VocabularyFormat,
} from '../schemas/taxonomy-operations.js'
import { importEsco, isEscoFileName } from './import-esco.js'
import { importSkillhouse } from './import-skillhouse.js'
import { parseInput, type TaxonomyTenant } from './taxonomy-tenant.js'

/**
 * The format of the paths when `--format` is not given: ESCO when any of them is (or holds) a file
 * of an ESCO skills pillar download, otherwise the skillhouse format.
 */
export function detectVocabularyFormat(paths: readonly string[]): VocabularyFormat {
  for (const path of paths) {
    let names: string[] = [basename(path)]
    try {
      if (statSync(path).isDirectory()) names = readdirSync(path)
    } catch {
      continue
    }
    if (names.some(isEscoFileName)) return 'esco'
  }
  return 'skillhouse'
}

/** `taxonomy import`: checks the options and imports the paths in their format. */
export async function importTaxonomy(
  tenant: TaxonomyTenant,
  input: TaxonomyImportOptions,
  onStage?: (stage: string) => void,
): Promise<TaxonomyImportSummary> {
  const options = parseInput(TaxonomyImportOptions, input, 'the import options')
  const format = options.format ?? detectVocabularyFormat(options.paths)
  const common = {
    external_vendor: options.external_vendor,
    ...(onStage ? { onStage } : {}),
  }
  return format === 'esco'
    ? importEsco(tenant, options.paths, common)
    : importSkillhouse(tenant, options.paths, { ...common, replace: options.replace })
}
