import { importPostalCodes, type PostalImportSummary } from '../geo/postal-codes.js'
import type { TaxonomyImportOptions, TaxonomyImportSummary } from '../schemas/taxonomy-operations.js'
import { importTaxonomy } from '../taxonomy/import-taxonomy.js'
import { tenantOperation } from './tenant-operation.js'

/** `skillhouse taxonomy import PATH…`; paths absolute. */
export const importVocabulary = tenantOperation(
  'taxonomy.import',
  true,
  (tenant, params: TaxonomyImportOptions, { progress }): Promise<TaxonomyImportSummary> =>
    importTaxonomy(tenant, params, (stage) => progress.stage(stage)),
)

/** `skillhouse geo import PATH…`; paths absolute. */
export const importPostal = tenantOperation(
  'geo.import',
  true,
  (tenant, params: { paths: string[] }, { progress }): Promise<PostalImportSummary> =>
    importPostalCodes(tenant.database, params.paths, {
      onFile: (path) => progress.stage(`postal codes ← ${path}`),
    }),
)
