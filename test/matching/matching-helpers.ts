import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import type { CreateTenantOptions, OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

/** A hand-made tenant for matching tests: its temp folder, the open tenant and helpers. */
export interface MatchingTenantFixture {
  dir: string
  tenant: OpenTenant
  /** Writes data files (name → content) and ingests them; fails the test on any rejected row. */
  ingest: (files: Record<string, string>) => Promise<void>
  /** Inserts one entity's profile rows (and its skill_profiles row) directly. */
  profile: (
    entityType: string,
    entityId: string,
    skills: ProfileRow[],
    options?: ProfileOptions,
  ) => Promise<void>
  close: () => void
}

export interface ProfileRow {
  skill_id: string
  score?: number
  validated?: boolean
  level?: number | null
  float?: number | null
  governed_level?: number | null
  critical?: boolean | null
  inferred_critical?: boolean | null
  evidence?: { external_id: string; event_type: string }[]
}

export interface ProfileOptions {
  lowData?: boolean
  vendor?: string
}

let counter = 0

/** Creates a tenant with the default vocabulary and the given features. */
export async function matchingTenant(
  options: Partial<CreateTenantOptions> = {},
): Promise<MatchingTenantFixture> {
  const temp = tempDir('skillhouse-matching-')
  const tenant = await createOpenTenant(join(temp.dir, 'data'), `t${++counter}`, options)
  const inbox = join(temp.dir, 'in')
  mkdirSync(inbox, { recursive: true })
  let batch = 0
  return {
    dir: temp.dir,
    tenant,
    ingest: async (files) => {
      const folder = join(inbox, String(++batch))
      mkdirSync(folder, { recursive: true })
      for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content)
      const summary = await ingestPaths({
        database: tenant.database,
        settings: tenant.settings,
        paths: [folder],
        rejectsDir: join(temp.dir, 'rejects'),
      })
      if (summary.rows_rejected > 0) {
        throw new Error(`rejected rows: ${JSON.stringify(summary.files.map((file) => file.rejects_file))}`)
      }
    },
    profile: async (entityType, entityId, skills, profileOptions = {}) => {
      const vendor = profileOptions.vendor ?? 'vendor_default'
      for (const skill of skills) {
        await tenant.database.run(
          `INSERT INTO profile_skills VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, NULL, $12)`,
          [
            entityType,
            entityId,
            vendor,
            skill.skill_id,
            skill.validated ? 'validated' : 'suggested',
            skill.score ?? 1,
            skill.float ?? null,
            skill.level ?? null,
            skill.governed_level ?? null,
            skill.critical ?? null,
            skill.inferred_critical ?? null,
            JSON.stringify(skill.evidence ?? []),
          ],
        )
      }
      await tenant.database.run(
        `INSERT OR REPLACE INTO skill_profiles VALUES ($1, $2, $3, 1, $4, 'h', $5, $6, now())`,
        [
          entityType,
          entityId,
          vendor,
          `h${skills.map((skill) => skill.skill_id).join(',')}`,
          skills.length,
          profileOptions.lowData ?? false,
        ],
      )
    },
    close: () => {
      tenant.database.close()
      temp.cleanup()
    },
  }
}

/** CSV rows from objects (simple values only). */
export function csv(header: string[], rows: (string | number | boolean | null)[][]): string {
  return `${header.join(',')}\n${rows.map((row) => row.map((value) => (value === null ? '' : String(value))).join(',')).join('\n')}\n`
}

/** NDJSON from records. */
export function ndjson(records: unknown[]): string {
  return `${records.map((record) => JSON.stringify(record)).join('\n')}\n`
}
