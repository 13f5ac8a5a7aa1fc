import { randomUUID } from 'node:crypto'
import { exportOrganisation, LOW_DATA_INCLUDE } from '../analytics/org-export.js'
import { readState } from '../profiles/derive-state.js'
import { SkillNames } from '../taxonomy/skill-names.js'
import { requireVendor } from '../taxonomy/taxonomy-tenant.js'
import { resolveVocabLanguage } from '../taxonomy/vocabulary-languages.js'
import type { OpenTenant } from '../tenants/tenant-service.js'
import { gatherBench } from './gather-bench.js'
import { gatherDataQuality } from './gather-data-quality.js'
import { gatherMobility } from './gather-mobility.js'
import { gatherOrganisation } from './gather-organisation.js'
import { gatherOverview } from './gather-overview.js'
import { gatherSupplyDemand } from './gather-supply-demand.js'
import type { ReportData } from './report-model.js'
import type { ReportOptions } from './report-options.js'
import { SkillHolders } from './skill-holders.js'

/**
 * Gathers every section of the report from one tenant. Nothing writes to the tenant meanwhile
 * (the command holds its database), so the reads share one data version: the matching and gap
 * indexes are built once and serve every vacancy and job, as they serve the server's reads.
 */
export async function gatherReport(
  opened: OpenTenant,
  options: Pick<ReportOptions, 'external_vendor' | 'vocab_language' | 'as_of' | 'depth' | 'group_by'> & {
    locale: string
    onSection?: (section: string) => void
  },
): Promise<ReportData> {
  const tenant: OpenTenant = { ...opened, dataVersion: `report-${randomUUID()}` }
  const vendor = requireVendor(tenant, options.external_vendor ?? 'vendor_default')
  const language = await resolveVocabLanguage(tenant, vendor, options.vocab_language)
  const section = (name: string) => options.onSection?.(name)
  const lastAsOf = (await readState(tenant.database)).last_as_of
  const derived = lastAsOf !== null
  const names = await SkillNames.load(tenant.database, vendor)
  const holders = await SkillHolders.load(tenant.database, vendor)

  section('overview')
  // One organisational export (4.6 with low data availability) serves the overview and the heatmap.
  const org = await exportOrganisation(tenant, { external_vendor: vendor, include: [LOW_DATA_INCLUDE] })
  const overview = await gatherOverview(tenant, vendor, holders, org)
  section('organisation')
  const organisation = await gatherOrganisation(tenant, vendor, org, {
    depth: options.depth,
    group_by: options.group_by,
    derived,
    employees: overview.employees,
  })
  section('supply and demand')
  const supply = await gatherSupplyDemand(tenant.database, vendor, language, names, holders, { derived })
  section('internal mobility')
  const mobility = await gatherMobility(tenant, vendor, language, names, {
    derived,
    openVacancies: overview.open_vacancies,
    employees: overview.employees,
  })
  section('bench strength')
  const bench = await gatherBench(tenant, vendor, language, names, holders, {
    derived,
    jobs: overview.jobs,
    employees: overview.employees,
  })
  section('data quality')
  const quality = await gatherDataQuality(tenant.database, vendor, {
    derived,
    // Events after the day profiles were derived as of (else today) do not count yet.
    asOf: lastAsOf ?? options.as_of ?? new Date().toISOString().slice(0, 10),
  })
  return {
    tenant: tenant.settings.name,
    vendor,
    language,
    locale: options.locale,
    as_of: options.as_of ?? new Date().toISOString().slice(0, 10),
    generated_at: new Date().toISOString(),
    overview,
    organisation,
    supply,
    mobility,
    bench,
    quality,
  }
}
