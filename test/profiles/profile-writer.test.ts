import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DerivedProfile } from '../../src/profiles/employee-profile.js'
import { ProfileWriter } from '../../src/profiles/persist-profiles.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { tempDir } from '../helpers/temp-tenant.js'

const profile = (id: string, score: number): DerivedProfile => ({
  entity_id: id,
  low_data: false,
  skills: [
    {
      skill_id: 'python',
      validation_state: 'suggested',
      score,
      proficiency_float: score,
      proficiency_level: 3,
      governed_proficiency_level: null,
      governed_critical: null,
      inferred_critical: null,
      first_seen: '2024-01-01',
      last_seen: '2025-01-01',
      evidence: [{ external_id: `ev-${id}`, event_type: 'working_history' }],
    },
  ],
})

describe('storing derived profiles', () => {
  const temp = tempDir()
  let database: TenantDatabase

  beforeAll(async () => {
    database = await TenantDatabase.open(join(temp.dir, 'writer.duckdb'), { create: true })
  })
  afterAll(() => {
    database.close()
    temp.cleanup()
  })

  const store = async (profiles: DerivedProfile[]) => {
    // Versions inserted two profiles a statement: every slice, the last one short, lands once.
    const writer = await ProfileWriter.open(database, 'vendor_default', 2)
    for (const each of profiles) writer.add('employee', each)
    return writer.commit('http://127.0.0.1:1/acme/eu', 'acme')
  }
  const versions = () =>
    database.all<{ entity_id: string; version: number }>(
      'SELECT entity_id, version FROM skill_profile_versions ORDER BY entity_id, version',
    )

  it('stores one version per changed profile when the versions are inserted in slices', async () => {
    const ids = ['e1', 'e2', 'e3', 'e4', 'e5']
    const first = await store(ids.map((id) => profile(id, 0.5)))
    expect(first.changed).toEqual({ employee: 5 })
    expect(await versions()).toEqual(ids.map((id) => ({ entity_id: id, version: 1 })))

    // Three change, two stay the same: three new versions, numbered 2.
    const second = await store(ids.map((id, index) => profile(id, index % 2 === 0 ? 0.75 : 0.5)))
    expect(second.changed).toEqual({ employee: 3 })
    expect(await versions()).toEqual([
      { entity_id: 'e1', version: 1 },
      { entity_id: 'e1', version: 2 },
      { entity_id: 'e2', version: 1 },
      { entity_id: 'e3', version: 1 },
      { entity_id: 'e3', version: 2 },
      { entity_id: 'e4', version: 1 },
      { entity_id: 'e5', version: 1 },
      { entity_id: 'e5', version: 2 },
    ])
    const skills = await database.all<{ n: number }>(
      "SELECT count(*)::INTEGER AS n FROM profile_skills WHERE entity_type = 'employee'",
    )
    expect(skills).toEqual([{ n: 5 }])
  })
})
