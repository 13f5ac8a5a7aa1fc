import { mkdirSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ENTITY_COLLECTIONS } from '../../src/entities/entity-collections.js'
import { deleteEntity } from '../../src/entities/entity-store.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { exportAllJobs } from '../../src/matching/match-jobs.js'
import { persistedIndexGeneration } from '../../src/matching/persisted-job-index.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { type MatchingTenantFixture, matchingTenant, ndjson } from './matching-helpers.js'

const body = { filters: [], weights: [], score_min_threshold: 0 }

/** A tenant of 3 jobs and 30 employees with profiles; returns the fixture and where its data lives. */
async function tenantWithProfiles(): Promise<MatchingTenantFixture> {
  const fixture = await matchingTenant({ proficiencyMatching: true, useCriticalities: true })
  const skills = ['skl-sql', 'skl-python', 'skl-communication', 'skl-java', 'skl-leadership']
  await fixture.ingest({
    'jobs.ndjson': ndjson(['job-a', 'job-b', 'job-c'].map((id) => ({ external_id: id, title: id }))),
    'employees.ndjson': ndjson(
      Array.from({ length: 30 }, (_, n) => ({ external_id: `emp-${String(n).padStart(2, '0')}` })),
    ),
  })
  for (const [n, job] of ['job-a', 'job-b', 'job-c'].entries()) {
    await fixture.profile(
      'job',
      job,
      skills.slice(n, n + 3).map((skill, rank) => ({ skill_id: skill, score: 1 - rank / 5, level: 3 })),
    )
  }
  for (let n = 0; n < 30; n++) {
    await fixture.profile(
      'employee',
      `emp-${String(n).padStart(2, '0')}`,
      skills
        .filter((_, skill) => (n + skill) % 3 !== 0)
        .map((skill, rank) => ({
          skill_id: skill,
          score: ((n + rank) % 7) / 7 + 0.1,
          level: (n + rank) % 6,
        })),
    )
  }
  return fixture
}

const keptFiles = (databasePath: string) =>
  readdirSync(dirname(databasePath)).filter((file) => file.endsWith('.job-index'))

describe('the kept job matching index', () => {
  let fixture: MatchingTenantFixture | undefined
  afterEach(() => fixture?.close())

  it('is kept beside the database, and a later process loads it while the data is unchanged, with the same answers', async () => {
    fixture = await tenantWithProfiles()
    const { tenant } = fixture
    const dataDir = dirname(tenant.database.path)
    const name = tenant.settings.name
    const built = await exportAllJobs(tenant, body)
    expect(built.stats.index_source).toBe('built')
    expect(built.response.records.some((record) => record.matches.length > 0)).toBe(true)
    expect(keptFiles(tenant.database.path)).toHaveLength(1)
    tenant.database.close()

    // A new open of the database (what another process does): the kept index, the same answers.
    const reopened = await openTenant(dataDir, name)
    try {
      const loaded = await exportAllJobs(reopened, body)
      expect(loaded.stats.index_source).toBe('kept')
      expect(JSON.stringify(loaded.response)).toBe(JSON.stringify(built.response))

      // New data (a job) moves the stamp: built again, and kept again.
      const inbox = join(fixture.dir, 'more')
      const file = join(inbox, 'jobs.ndjson')
      mkdirSync(inbox, { recursive: true })
      writeFileSync(file, ndjson([{ external_id: 'job-d', title: 'job-d' }]))
      await ingestPaths({
        database: reopened.database,
        settings: reopened.settings,
        paths: [file],
        rejectsDir: join(fixture.dir, 'rejects'),
      })
      const changed = await exportAllJobs(reopened, body)
      expect(changed.stats.index_source).toBe('built')
      expect(changed.response.records.map((record) => record.job_id)).toEqual([
        'job-a',
        'job-b',
        'job-c',
        'job-d',
      ])
    } finally {
      reopened.database.close()
    }
    const again = await openTenant(dataDir, name)
    try {
      const loaded = await exportAllJobs(again, body)
      expect(loaded.stats.index_source).toBe('kept')
      expect(loaded.response.records.map((record) => record.job_id)).toContain('job-d')
    } finally {
      again.database.close()
    }
  })

  it('builds the index again when the kept file is cut short or holds something else', async () => {
    fixture = await tenantWithProfiles()
    const { tenant } = fixture
    const dataDir = dirname(tenant.database.path)
    const name = tenant.settings.name
    const built = await exportAllJobs(tenant, body)
    tenant.database.close()
    const [kept] = keptFiles(tenant.database.path)
    const path = join(dataDir, kept as string)
    const whole = readFileSync(path)
    for (const spoil of [
      () => truncateSync(path, whole.length - 5),
      () => truncateSync(path, 3),
      () => writeFileSync(path, Buffer.concat([whole, Buffer.from([0])])),
      () => writeFileSync(path, 'not an index'),
    ]) {
      spoil()
      const reopened = await openTenant(dataDir, name)
      try {
        const again = await exportAllJobs(reopened, body)
        expect(again.stats.index_source).toBe('built')
        expect(JSON.stringify(again.response)).toBe(JSON.stringify(built.response))
      } finally {
        reopened.database.close()
      }
      // The build kept a whole file again.
      expect(readFileSync(path).equals(whole)).toBe(true)
    }
  })

  it('is deleted with the profiles it holds when an employee is deleted', async () => {
    fixture = await tenantWithProfiles()
    const { tenant } = fixture
    await exportAllJobs(tenant, body)
    expect(keptFiles(tenant.database.path)).toHaveLength(1)
    const employees = ENTITY_COLLECTIONS.find((collection) => collection.profileType === 'employee')
    if (!employees) throw new Error('no employee collection')
    const generation = persistedIndexGeneration(tenant.database.path)
    await deleteEntity(tenant, employees, 'emp-03')
    expect(keptFiles(tenant.database.path)).toHaveLength(0)
    // A build that began before the delete (and read the employee) does not keep its index.
    expect(persistedIndexGeneration(tenant.database.path)).not.toBe(generation)
  })
})
