import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TenantPool } from '../../src/server/tenant-pool.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

describe('the tenant pool', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  afterAll(() => temp.cleanup())

  it('opens a tenant once when work side by side asks for it at the same moment', async () => {
    const tenant = await createOpenTenant(dataDir, 'twice')
    tenant.database.close()
    const pool = new TenantPool(dataDir)
    try {
      // A batch of events and a read, both first on the tenant: one database for both, so that
      // what the batch commits is what later reads see.
      await Promise.all([
        pool.useForSkillEvents('twice', (open) =>
          open.database.run("INSERT INTO derive_state VALUES ('seen', '1')"),
        ),
        pool.useForReading('twice', (open) => open.database.all('SELECT 1')),
      ])
      const rows = await pool.useForReading('twice', (open) =>
        open.database.all("SELECT key FROM derive_state WHERE key = 'seen'"),
      )
      expect(rows).toEqual([{ key: 'seen' }])
    } finally {
      await pool.close()
    }
  })

  it('writes skill events beside a running derivation and beside each other, each batch on a connection of its own, and runs all else alone in order', async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    tenant.database.close()
    const pool = new TenantPool(dataDir)
    const order: string[] = []
    let finishDerivation: () => void = () => undefined
    const derivationHeld = new Promise<void>((resolve) => {
      finishDerivation = resolve
    })
    let derivationStarted: () => void = () => undefined
    const started = new Promise<void>((resolve) => {
      derivationStarted = resolve
    })
    let releaseBatch: () => void = () => undefined
    try {
      const derivation = pool.useForDerivation('acme', async (open) => {
        order.push('derive started')
        derivationStarted()
        // A transaction open on the main connection, as a derivation's is while it stores profiles.
        await open.database.run('BEGIN TRANSACTION')
        await open.database.run("INSERT INTO derive_state VALUES ('probe', '1')")
        await derivationHeld
        await open.database.run('ROLLBACK')
        order.push('derive finished')
      })
      const request = pool.use('acme', async () => {
        order.push('request')
      })
      const events = pool.useForSkillEvents('acme', async (open) => {
        order.push('events')
        // Its own connection: the derivation's uncommitted row is not visible, and its rollback
        // does not take this write with it.
        const probe = await open.database.all("SELECT key FROM derive_state WHERE key = 'probe'")
        await open.database.run("INSERT INTO derive_state VALUES ('events', '1')")
        return probe
      })
      // The request arrived before the events: they wait for it, and it for the derivation (which
      // has started, however slow the machine: then both have had their chance to run).
      await started
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(order).toEqual(['derive started'])
      const parallel = pool.useForSkillEvents('acme', async () => {
        order.push('events 2')
      })
      finishDerivation()
      await Promise.all([derivation, request, parallel])
      expect(await events).toEqual([])
      // The two batches of events start in their order, and run beside each other.
      expect(order.slice(0, 3)).toEqual(['derive started', 'derive finished', 'request'])
      expect(order.slice(3).sort()).toEqual(['events', 'events 2'])

      // A batch being written does not hold up the next one, which has a connection of its own
      // (the batch's uncommitted row is not visible there).
      const batchHeld = new Promise<void>((resolve) => {
        releaseBatch = resolve
      })
      const writing = pool.useForSkillEvents('acme', async (open) => {
        await open.database.run('BEGIN TRANSACTION')
        await open.database.run("INSERT INTO derive_state VALUES ('batch', '1')")
        await batchHeld
        await open.database.run('COMMIT')
      })
      const checking = pool.useForSkillEvents('acme', (open) =>
        open.database.all("SELECT key FROM derive_state WHERE key = 'batch'"),
      )
      expect(await checking).toEqual([])
      releaseBatch()
      await writing

      // Without a request queued in between, events run while the derivation holds the tenant.
      order.length = 0
      let release: () => void = () => undefined
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      const second = pool.useForDerivation('acme', async () => {
        order.push('derive started')
        await held
        order.push('derive finished')
      })
      await pool.useForSkillEvents('acme', async () => {
        order.push('events')
      })
      release()
      await second
      expect(order).toEqual(['derive started', 'events', 'derive finished'])
      const rows = await pool.use('acme', (open) =>
        open.database.all('SELECT key FROM derive_state WHERE key IN ($1, $2) ORDER BY key', [
          'events',
          'probe',
        ]),
      )
      expect(rows).toEqual([{ key: 'events' }])
    } finally {
      // A failed expectation must not leave work waiting that the pool's close would wait for.
      finishDerivation()
      releaseBatch()
      await pool.close()
    }
  })
})

describe('the tenant pool opening databases and reading tenants.json', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let pool: TenantPool
  const opened: string[] = []
  beforeAll(async () => {
    const tenant = await createOpenTenant(dataDir, 'acme')
    tenant.database.close()
    pool = new TenantPool(dataDir, (name) => opened.push(name))
  })
  afterAll(async () => {
    await pool.close()
    temp.cleanup()
  })

  it('opens a tenant once when many reads arrive before it is open, and gives them its data version', async () => {
    const reads = await Promise.all(
      Array.from({ length: 20 }, () =>
        pool.useForReading('acme', async (open) => ({
          scope: open.database.cacheScope,
          version: open.dataVersion,
        })),
      ),
    )
    expect(opened).toEqual(['acme'])
    expect(new Set(reads.map((read) => read.scope)).size).toBe(1)
    expect(new Set(reads.map((read) => read.version))).toEqual(new Set([pool.version('acme')]))
    await pool.use('acme', async () => undefined)
    expect(await pool.useForReading('acme', async (open) => open.dataVersion)).not.toBe(reads[0]?.version)
  })

  it('sees a tenant made on disk from the next turn of the event loop on', async () => {
    expect(pool.current().find('beta')).toBeUndefined()
    const beta = await createOpenTenant(dataDir, 'beta')
    beta.database.close()
    await new Promise((resolve) => setImmediate(resolve))
    expect(pool.current().find('beta')?.settings.name).toBe('beta')
  })
})
