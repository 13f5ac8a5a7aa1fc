import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Stemmers } from '../../src/extraction/text-tokens.js'
import { generateTenant } from '../../src/generate/generate-tenant.js'
import { ingestPaths } from '../../src/ingest/ingest-paths.js'
import { deriveProfiles } from '../../src/profiles/derive.js'
import type { DeriveThreads } from '../../src/profiles/derive-employees.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { builtWorkerScript } from '../helpers/built-scripts.js'
import { createOpenTenant, runCli, tempDir } from '../helpers/temp-tenant.js'

describe('derivation in worker threads', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  const derive = async (dataDir: string, threshold: string, ...flags: string[]) => {
    const derived = await runCli(
      ['derive', '--as-of', '2026-06-30', '--data-dir', dataDir, '--json', ...flags],
      { env: { NO_COLOR: '1', SKILLHOUSE_PARALLEL_MIN_EMPLOYEES: threshold } },
    )
    expect(derived.exitCode, String(derived.stderr)).toBe(0)
    return JSON.parse(String(derived.stdout)) as { text_bytes: number }
  }
  /** Every stored profile skill, digested; and the characters of event content there are. */
  const stored = async (dataDir: string) => {
    const database = await TenantDatabase.open(join(dataDir, 'p.duckdb'))
    try {
      const text = await database.one<{ bytes: number }>(
        'SELECT sum(length(content::VARCHAR)) AS bytes FROM skill_events',
      )
      const row = await database.one<{ digest: string; n: number }>(
        `SELECT count(*) AS n, md5(string_agg(entity_type || entity_id || skill_id || score || proficiency_float || evidence::VARCHAR, ',' ORDER BY entity_type, entity_id, skill_id)) AS digest
         FROM profile_skills`,
      )
      return { bytes: text?.bytes, n: row?.n ?? 0, digest: row?.digest as string }
    } finally {
      database.close()
    }
  }

  it('derives the same profiles as derivation on one thread, reading every event, and keeps the stems the workers learned', async () => {
    const inbox = join(temp.dir, 'inbox')
    await generateTenant({ out: inbox, seed: 5, employees: 2500, events: 25_000 })
    const digests: string[] = []
    for (const threshold of ['0', '999999999']) {
      const dataDir = join(temp.dir, `data-${threshold}`)
      await runCli(['tenant', 'create', 'p', '--region', 'eu', '--data-dir', dataDir])
      expect((await runCli(['ingest', inbox, '--data-dir', dataDir])).exitCode).toBe(0)
      const derived = await derive(dataDir, threshold)
      const profiles = await stored(dataDir)
      // Every event was read: profiles are written while the events stream (a regression once cut the stream short).
      expect(derived.text_bytes).toBe(profiles.bytes)
      expect(profiles.n).toBeGreaterThan(1000)
      digests.push(profiles.digest)
    }
    expect(digests[0]).toBe(digests[1])

    // The workers' stems were kept beside the database, for the next process.
    const dataDir = join(temp.dir, 'data-0')
    const stemsFile = join(dataDir, 'p.duckdb.vendor_default.stems')
    const kept = JSON.parse(readFileSync(stemsFile, 'utf8')) as { stems: Record<string, string[]> }
    const english = kept.stems.en ?? []
    const stemOf = new Map(
      english.flatMap((word, index) => (index % 2 === 0 ? [[word, english[index + 1]]] : [])),
    )
    expect(stemOf.size).toBeGreaterThan(100)
    expect(stemOf.get('responsible')).toBe(new Stemmers().stem('responsible', 'en'))

    // A full derivation that starts from those stems, or from a damaged file, derives the same.
    await derive(dataDir, '999999999', '--full')
    expect((await stored(dataDir)).digest).toBe(digests[0])
    writeFileSync(stemsFile, '{"stamp": "x", "stems": ')
    await derive(dataDir, '0', '--full')
    expect((await stored(dataDir)).digest).toBe(digests[0])
    const rewritten = JSON.parse(readFileSync(stemsFile, 'utf8')) as { stems: Record<string, string[]> }
    expect(rewritten.stems.en?.length).toBeGreaterThan(200)
    // Stems of another stemmer version (here: every word stemmed to nonsense) are not used.
    const nonsense = Object.fromEntries(
      Object.entries(rewritten.stems).map(([language, list]) => [
        language,
        list.map((item, index) => (index % 2 === 0 ? item : 'zzz')),
      ]),
    )
    writeFileSync(stemsFile, JSON.stringify({ stamp: 'another-version', stems: nonsense }))
    await derive(dataDir, '0', '--full')
    expect((await stored(dataDir)).digest).toBe(digests[0])
  })
  it('derives in this process on worker threads (the compiled worker script) what it derives on this thread', async () => {
    const inbox = join(temp.dir, 'inbox-in-process')
    await generateTenant({ out: inbox, seed: 8, employees: 400, events: 4000 })
    const deriveWith = async (name: string, threads: DeriveThreads) => {
      const dataDir = join(temp.dir, name)
      const tenant = await createOpenTenant(dataDir, 'p')
      try {
        await ingestPaths({
          database: tenant.database,
          settings: tenant.settings,
          paths: [inbox],
          rejectsDir: join(dataDir, 'rejects'),
        })
        const result = await deriveProfiles({ tenant, asOf: '2026-06-30', full: true, threads })
        return { workers: result.vendors.flatMap((vendor) => vendor.workers).length }
      } finally {
        tenant.database.close()
      }
    }
    const threaded = await deriveWith('threaded', {
      script: builtWorkerScript('profiles/derive-worker'),
      minEmployees: 0,
    })
    const here = await deriveWith('here', { minEmployees: Number.POSITIVE_INFINITY })
    expect(threaded.workers).toBeGreaterThanOrEqual(2)
    expect(here.workers).toBe(0)
    const threadedProfiles = await stored(join(temp.dir, 'threaded'))
    expect(threadedProfiles.n).toBeGreaterThan(1000)
    expect(threadedProfiles.digest).toBe((await stored(join(temp.dir, 'here'))).digest)
  })
})
