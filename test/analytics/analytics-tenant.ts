import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant } from '../helpers/temp-tenant.js'

/**
 * A small hand-made tenant whose right answers are worked out by hand in the tests:
 *
 *   ou-a Alpha            e-a            ou-b Beta       e-b
 *   ├─ ou-a1              e-a1           └─ ou-b1        e-b1
 *   │  └─ ou-a1x                         ou-c Gamma      (nobody)
 *   │     └─ ou-a1x1                     (no unit)       e-none
 *   │        └─ ou-a1x1a  e-a1x1a
 *   │           └─ ou-a1x1a1  e-deep-1, e-deep-2
 *   └─ ou-a2              e-a2-1, e-a2-2
 *
 * Profiles (vendor_default) are inserted directly, as the derivation would write them.
 */
export const UNITS = [
  { external_id: 'ou-a', name: 'Alpha', parent_id: null },
  { external_id: 'ou-a1', name: 'Alpha One', parent_id: 'ou-a' },
  { external_id: 'ou-a1x', name: 'Alpha One X', parent_id: 'ou-a1' },
  { external_id: 'ou-a1x1', name: 'Alpha One X 1', parent_id: 'ou-a1x' },
  { external_id: 'ou-a1x1a', name: 'Alpha One X 1 A', parent_id: 'ou-a1x1' },
  { external_id: 'ou-a1x1a1', name: 'Alpha One X 1 A 1', parent_id: 'ou-a1x1a' },
  { external_id: 'ou-a2', name: 'Alpha Two', parent_id: 'ou-a' },
  { external_id: 'ou-b', name: 'Beta', parent_id: null },
  { external_id: 'ou-b1', name: 'Beta One', parent_id: 'ou-b' },
  { external_id: 'ou-c', name: 'Gamma', parent_id: null },
]

export const EMPLOYEES: { external_id: string; organisational_unit_id: string | null }[] = [
  { external_id: 'e-a', organisational_unit_id: 'ou-a' },
  { external_id: 'e-a1', organisational_unit_id: 'ou-a1' },
  { external_id: 'e-a1x1a', organisational_unit_id: 'ou-a1x1a' },
  { external_id: 'e-deep-1', organisational_unit_id: 'ou-a1x1a1' },
  { external_id: 'e-deep-2', organisational_unit_id: 'ou-a1x1a1' },
  { external_id: 'e-a2-1', organisational_unit_id: 'ou-a2' },
  { external_id: 'e-a2-2', organisational_unit_id: 'ou-a2' },
  { external_id: 'e-b', organisational_unit_id: 'ou-b' },
  { external_id: 'e-b1', organisational_unit_id: 'ou-b1' },
  { external_id: 'e-none', organisational_unit_id: null },
]

/** low_data of each employee's vendor_default profile; e-deep-2 has no profile at all. */
export const LOW_DATA: Record<string, boolean> = {
  'e-a': false,
  'e-a1': true,
  'e-a1x1a': false,
  'e-deep-1': false,
  'e-a2-1': true,
  'e-a2-2': false,
  'e-b': true,
  'e-b1': false,
  'e-none': true,
}

export const FAMILIES = [
  {
    external_id: 'jf-eng',
    name: 'Engineering',
    description:
      'The engineering family builds and runs the software of the company. It also covers test automation.',
  },
]

export const JOBS = [
  {
    external_id: 'job-dev',
    title: 'Software Developer',
    description:
      'You design, build and test the services behind our products. You review code with your peers.',
    job_family_id: 'jf-eng',
  },
  { external_id: 'job-ref1', title: 'Data Engineer', job_family_id: 'jf-eng' },
  { external_id: 'job-ref2', title: 'Platform Engineer', job_family_id: 'jf-eng' },
  {
    external_id: 'job-nl',
    title: 'Magazijnmedewerker',
    description:
      'Je ontvangt en controleert goederen in het magazijn. Je werkt met een handscanner en je bent flexibel inzetbaar.',
  },
]

export const VACANCIES = [
  { external_id: 'vac-1', title: 'Java developer', job_id: 'job-dev' },
  { external_id: 'vac-empty', title: 'Open application' },
]

/** One row of profile_skills, as the derivation writes it. */
export interface ProfileRow {
  entity_type: 'employee' | 'job' | 'vacancy'
  entity_id: string
  skill_id: string
  score: number
  level?: number | null
  governed_level?: number | null
  governed_critical?: boolean | null
  inferred_critical?: boolean | null
  validated?: boolean
  vendor?: string
}

export const PROFILES: ProfileRow[] = [
  // The vacancy: critical Java (governed, level 4), critical-by-inference enquiry handling.
  {
    entity_type: 'vacancy',
    entity_id: 'vac-1',
    skill_id: 'skl-java',
    score: 1,
    governed_level: 4,
    governed_critical: true,
    validated: true,
  },
  {
    entity_type: 'vacancy',
    entity_id: 'vac-1',
    skill_id: 'skl-customer-enquiry-handling',
    score: 0.5,
    inferred_critical: true,
  },
  {
    entity_type: 'vacancy',
    entity_id: 'vac-1',
    skill_id: 'skl-project-management',
    score: 0.9,
    level: 3,
    inferred_critical: false,
  },
  { entity_type: 'vacancy', entity_id: 'vac-1', skill_id: 'skl-python', score: 0.9, level: 2 },
  { entity_type: 'vacancy', entity_id: 'vac-1', skill_id: 'skl-sql', score: 0.9, level: 3 },
  { entity_type: 'vacancy', entity_id: 'vac-1', skill_id: 'skl-git', score: 0.6, level: 2 },
  { entity_type: 'vacancy', entity_id: 'vac-1', skill_id: 'skl-data-analysis', score: 0.6, level: 2 },
  { entity_type: 'vacancy', entity_id: 'vac-1', skill_id: 'skl-teamwork', score: 0.4 },
  { entity_type: 'vacancy', entity_id: 'vac-1', skill_id: 'skl-dutch', score: 0.7, level: 3 },
  // e-deep-1: Java below the level asked, Python above, SQL equal, teamwork and Dutch without a comparable level.
  { entity_type: 'employee', entity_id: 'e-deep-1', skill_id: 'skl-java', score: 0.8, level: 2 },
  { entity_type: 'employee', entity_id: 'e-deep-1', skill_id: 'skl-python', score: 0.8, level: 3 },
  { entity_type: 'employee', entity_id: 'e-deep-1', skill_id: 'skl-sql', score: 0.7, level: 3 },
  { entity_type: 'employee', entity_id: 'e-deep-1', skill_id: 'skl-teamwork', score: 0.6, level: 1 },
  { entity_type: 'employee', entity_id: 'e-deep-1', skill_id: 'skl-dutch', score: 0.6, level: null },
  // Other Python holders, for the org export's skill filter; e-a2-1 holds it only with vendor_a.
  { entity_type: 'employee', entity_id: 'e-b1', skill_id: 'skl-python', score: 0.5, level: 2 },
  {
    entity_type: 'employee',
    entity_id: 'e-b',
    skill_id: 'skl-python',
    score: 0.5,
    level: 2,
    validated: true,
  },
  {
    entity_type: 'employee',
    entity_id: 'e-a2-1',
    skill_id: 'skl-python',
    score: 0.5,
    level: 2,
    vendor: 'vendor_a',
  },
  // Jobs of the preview.
  {
    entity_type: 'job',
    entity_id: 'job-dev',
    skill_id: 'skl-java',
    score: 1,
    governed_level: 4,
    governed_critical: true,
    validated: true,
  },
  { entity_type: 'job', entity_id: 'job-dev', skill_id: 'skl-python', score: 0.8, level: 3 },
  { entity_type: 'job', entity_id: 'job-dev', skill_id: 'skl-git', score: 0.7, level: 2 },
  { entity_type: 'job', entity_id: 'job-dev', skill_id: 'skl-dutch', score: 0.6, level: 3 },
  { entity_type: 'job', entity_id: 'job-dev', skill_id: 'skl-teamwork', score: 0.5, level: 2 },
  { entity_type: 'job', entity_id: 'job-ref1', skill_id: 'skl-python', score: 0.9, level: 3 },
  { entity_type: 'job', entity_id: 'job-ref1', skill_id: 'skl-sql', score: 0.9, level: 3 },
  { entity_type: 'job', entity_id: 'job-ref1', skill_id: 'skl-data-analysis', score: 0.8, level: 3 },
  { entity_type: 'job', entity_id: 'job-ref2', skill_id: 'skl-sql', score: 0.7, level: 2 },
  { entity_type: 'job', entity_id: 'job-ref2', skill_id: 'skl-git', score: 0.9, level: 3 },
  { entity_type: 'job', entity_id: 'job-ref2', skill_id: 'skl-project-management', score: 0.8, level: 2 },
  { entity_type: 'job', entity_id: 'job-nl', skill_id: 'skl-forklift-operation', score: 0.9, level: 3 },
  { entity_type: 'job', entity_id: 'job-nl', skill_id: 'skl-teamwork', score: 0.6, level: 2 },
]

const ndjson = (rows: readonly object[]) => `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`

/** Writes the entity files of the tenant above into `dir`. */
export function writeEntityFiles(dir: string): void {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'organisational_units.ndjson'), ndjson(UNITS))
  writeFileSync(join(dir, 'employees.ndjson'), ndjson(EMPLOYEES))
  writeFileSync(join(dir, 'job_families.ndjson'), ndjson(FAMILIES))
  writeFileSync(join(dir, 'jobs.ndjson'), ndjson(JOBS))
  writeFileSync(join(dir, 'vacancies.ndjson'), ndjson(VACANCIES))
}

/** Inserts profile skills and employee profile headers as the derivation would. */
export async function insertProfiles(
  tenant: OpenTenant,
  rows: readonly ProfileRow[] = PROFILES,
): Promise<void> {
  for (const row of rows) {
    const level = row.governed_level ?? row.level ?? null
    await tenant.database.run(
      `INSERT INTO profile_skills VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, NULL, '[]')`,
      [
        row.entity_type,
        row.entity_id,
        row.vendor ?? 'vendor_default',
        row.skill_id,
        row.validated ? 'validated' : 'suggested',
        row.score,
        level === null ? null : (level - 0.5) / 5,
        level,
        row.governed_level ?? null,
        row.governed_critical ?? null,
        row.inferred_critical ?? null,
      ],
    )
  }
  for (const [employee, lowData] of Object.entries(LOW_DATA)) {
    await tenant.database.run(
      `INSERT INTO skill_profiles VALUES ('employee', $1, 'vendor_default', 1, 'h', 'h', 0, $2, now())`,
      [employee, lowData],
    )
  }
}

/** Creates the tenant above in `dataDir` (vendor_a activated, with no vocabulary of its own) and opens it. */
export async function createAnalyticsTenant(dataDir: string, name = 'acme'): Promise<OpenTenant> {
  const tenant = await createOpenTenant(dataDir, name, { vendors: ['vendor_a'] })
  const files = join(dataDir, '..', `${name}-files`)
  writeEntityFiles(files)
  const summary = await ingestPaths({
    database: tenant.database,
    settings: tenant.settings,
    paths: [files],
    rejectsDir: join(dataDir, '..', `${name}-rejects`),
  })
  if (summary.rows_rejected > 0)
    throw new Error(`the analytics tenant's files have rejected rows: ${JSON.stringify(summary)}`)
  await insertProfiles(tenant)
  return tenant
}
