import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../src/store/migrations.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { tempDir } from '../helpers/temp-tenant.js'

describe('tenant database migrations', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('creates a new database at the latest schema version', async () => {
    const database = await TenantDatabase.open(join(temp.dir, 'new.duckdb'), { create: true })
    expect(await database.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    database.close()
  })

  it('upgrades a database made by an older version and keeps its data', async () => {
    const path = join(temp.dir, 'old.duckdb')
    const old = await TenantDatabase.open(path, { create: true, migrations: MIGRATIONS.slice(0, 1) })
    expect(await old.schemaVersion()).toBe(1)
    await old.run(
      `INSERT INTO employees VALUES ('emp-1', NULL, NULL, '{"external_id":"emp-1"}', 'h', now(), nextval('change_seq'))`,
    )
    old.close()

    const upgraded = await TenantDatabase.open(path)
    expect(await upgraded.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    expect(await upgraded.all('SELECT external_id FROM employees')).toEqual([{ external_id: 'emp-1' }])
    // Migration 2 added the runs table.
    expect(await upgraded.all('SELECT count(*) AS n FROM runs')).toEqual([{ n: 0 }])
    upgraded.close()
  })

  it('keeps the profile skills when it builds their table again without its key (8)', async () => {
    const path = join(temp.dir, 'seven.duckdb')
    const before = MIGRATIONS.filter((migration) => migration.version <= 7)
    const old = await TenantDatabase.open(path, { create: true, migrations: before })
    const skill = (id: string, skill: string) =>
      old.run(
        `INSERT INTO profile_skills VALUES ('employee', $1, 'vendor_default', $2, 'suggested', 0.5,
           0.4, 3, NULL, NULL, false, DATE '2020-01-01', DATE '2024-01-01', '[]')`,
        [id, skill],
      )
    await skill('emp-2', 'skl-sql')
    await skill('emp-1', 'skl-python')
    old.close()

    const upgraded = await TenantDatabase.open(path)
    expect(await upgraded.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    expect(
      await upgraded.all(
        'SELECT entity_id, skill_id, proficiency_level, first_seen::VARCHAR AS first_seen FROM profile_skills ORDER BY entity_id',
      ),
    ).toEqual([
      { entity_id: 'emp-1', skill_id: 'skl-python', proficiency_level: 3, first_seen: '2020-01-01' },
      { entity_id: 'emp-2', skill_id: 'skl-sql', proficiency_level: 3, first_seen: '2020-01-01' },
    ])
    const indexes = await upgraded.all(
      `SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'profile_skills' AND constraint_type = 'PRIMARY KEY'`,
    )
    expect(indexes).toEqual([])
    upgraded.close()
  })

  it('keeps the outbox, in order, when it builds its table again without indexes (9)', async () => {
    const path = join(temp.dir, 'eight.duckdb')
    const before = MIGRATIONS.filter((migration) => migration.version <= 8)
    const old = await TenantDatabase.open(path, { create: true, migrations: before })
    for (const id of ['evt-b', 'evt-a'])
      await old.run(
        `INSERT INTO outbox VALUES (nextval('outbox_seq'), $1, 'test.event.v1', 'http://x/t/eu', NULL,
           TIMESTAMP '2026-11-01 00:00:00', '{"n":1}')`,
        [id],
      )
    old.close()

    const upgraded = await TenantDatabase.open(path)
    expect(await upgraded.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    expect(await upgraded.all('SELECT seq, id, data::VARCHAR AS data FROM outbox ORDER BY seq')).toEqual([
      { seq: 1, id: 'evt-b', data: '{"n":1}' },
      { seq: 2, id: 'evt-a', data: '{"n":1}' },
    ])
    expect(
      await upgraded.all(
        `SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'outbox' AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`,
      ),
    ).toEqual([])
    // The sequence goes on where it was: new events follow the old ones.
    expect(await upgraded.all(`SELECT nextval('outbox_seq') AS seq`)).toEqual([{ seq: 3 }])
    upgraded.close()
  })

  it("keeps the webhook delivery log, starting each pending event's retry window when it was queued (10)", async () => {
    const path = join(temp.dir, 'nine.duckdb')
    const old = await TenantDatabase.open(path, {
      create: true,
      migrations: MIGRATIONS.filter((migration) => migration.version <= 9),
    })
    await old.run(
      `INSERT INTO webhook_subscriptions VALUES ('wh_1', 'http://x/hooks', [], 'active', 0, TIMESTAMP '2026-11-01 00:00:00', NULL)`,
    )
    await old.run(
      `INSERT INTO webhook_deliveries VALUES ('wh_1', 1, 'evt-1', 'test.event.v1', 'pending', 3, 503, 'answered 503',
         TIMESTAMP '2026-11-01 00:05:00', TIMESTAMP '2026-11-01 00:01:00', TIMESTAMP '2026-11-01 00:04:00', NULL)`,
    )
    old.close()

    const upgraded = await TenantDatabase.open(path)
    expect(await upgraded.schemaVersion()).toBe(LATEST_SCHEMA_VERSION)
    expect(
      await upgraded.all(
        'SELECT state, attempts, queued_at::VARCHAR AS queued_at FROM webhook_deliveries WHERE subscription_id = $1',
        ['wh_1'],
      ),
    ).toEqual([{ state: 'pending', attempts: 3, queued_at: '2026-11-01 00:01:00' }])
    expect(
      await upgraded.all(
        'SELECT retry_window_ms, retry_at, last_error FROM webhook_subscriptions WHERE id = $1',
        ['wh_1'],
      ),
    ).toEqual([{ retry_window_ms: null, retry_at: null, last_error: null }])
    upgraded.close()
  })

  it('refuses a database made by a newer skillhouse', async () => {
    const path = join(temp.dir, 'future.duckdb')
    const database = await TenantDatabase.open(path, { create: true })
    await database.run(`INSERT INTO schema_migrations VALUES (999, 'from the future', now())`)
    database.close()
    await expect(TenantDatabase.open(path)).rejects.toThrow(/newer than this skillhouse understands/)
  })

  it('answers 404 for a database file that does not exist', async () => {
    await expect(TenantDatabase.open(join(temp.dir, 'missing.duckdb'))).rejects.toMatchObject({ status: 404 })
  })

  it('refuses with 503 when another process holds the database', async () => {
    const path = join(temp.dir, 'held.duckdb')
    const holder = await TenantDatabase.open(path, { create: true })
    const { execa } = await import('execa')
    const module = join(projectRoot(), 'dist', 'src', 'store', 'tenant-database.js')
    const script = `import(${JSON.stringify(module)}).then(async ({TenantDatabase}) => { try { await TenantDatabase.open(${JSON.stringify(path)}); console.log('opened') } catch (e) { console.log(e.status, e.message) } })`
    const child = await execa('node', ['--input-type=module', '-e', script], { reject: false })
    expect(child.stdout).toMatch(
      /^503 tenant database .* is in use by another skillhouse process \(PID \d+\)/,
    )
    holder.close()
  })
})
