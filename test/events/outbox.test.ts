import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CloudEvent, HTTP } from 'cloudevents'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendEvents, eventSource, exportEvents, readEvents, readOutbox } from '../../src/events/outbox.js'
import { OutboxCloudEvent } from '../../src/schemas/index.js'
import { TenantDatabase } from '../../src/store/tenant-database.js'
import { createOpenTenant, runCli, tempDir } from '../helpers/temp-tenant.js'

const BASE = 'http://127.0.0.1:8080/acme/eu'

const skillEvent = (id: string) => ({
  type: 'ai.vendor.taxonomy.skill.created.v1',
  source: eventSource(BASE, `/taxonomy/skills/${id}`),
  data: { tenant_name: 'acme', external_id: id, external_vendor: 'vendor_default' },
})

describe('the outbox of CloudEvents', () => {
  const temp = tempDir()
  let database: TenantDatabase

  beforeAll(async () => {
    database = await TenantDatabase.open(join(temp.dir, 'outbox.duckdb'), { create: true })
  })
  afterAll(() => {
    database.close()
    temp.cleanup()
  })

  it('builds event sources on the tenant base URL', () => {
    expect(eventSource(BASE, '/taxonomy/skills/py')).toBe(`${BASE}/taxonomy/skills/py`)
    expect(eventSource(`${BASE}/`, 'taxonomy/changes')).toBe(`${BASE}/taxonomy/changes`)
    expect(eventSource(BASE, '/')).toBe(`${BASE}/`)
  })

  it('appends events with a UUID, the current time and the next sequence number, and reads them in order', async () => {
    const before = new Date()
    const appended = await appendEvents(database, [skillEvent('a'), skillEvent('b'), skillEvent('c')])
    expect(appended).toHaveLength(3)
    const entries = await readOutbox(database)
    expect(entries.map((entry) => entry.event.data.external_id)).toEqual(['a', 'b', 'c'])
    const seqs = entries.map((entry) => entry.seq)
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y))
    for (const { event } of entries) {
      expect(OutboxCloudEvent.parse(event)).toEqual(event)
      expect(event).toMatchObject({ specversion: '1.0', datacontenttype: 'application/json' })
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(Date.parse(event.time)).toBeGreaterThanOrEqual(before.getTime() - 1)
    }
    expect(new Set(entries.map((entry) => entry.event.id)).size).toBe(3)
  })

  it('reads from a sequence cursor, from a time, and a limited number of events', async () => {
    const all = await readOutbox(database)
    const first = all[0]?.seq as number
    expect((await readEvents(database, { sinceSeq: first })).map((event) => event.data.external_id)).toEqual([
      'b',
      'c',
    ])
    expect(await readEvents(database, { limit: 1 })).toHaveLength(1)
    expect(await readEvents(database, { since: '2999-01-01T00:00:00Z' })).toEqual([])
    expect(await readEvents(database, { since: '2000-01-01' })).toHaveLength(all.length)
  })

  it('rejects a since that is not a time with 422 naming since', async () => {
    await expect(readEvents(database, { since: 'yesterday' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringMatching(/^since: 'yesterday'/),
    })
  })

  it('appends nothing when the transaction around it rolls back', async () => {
    const count = (await readOutbox(database)).length
    await expect(
      database.transaction(async () => {
        await appendEvents(database, [skillEvent('rolled-back')])
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    expect(await readOutbox(database)).toHaveLength(count)
  })

  it('refuses an event that is not a valid CloudEvent', async () => {
    await expect(appendEvents(database, [{ type: '', source: BASE, data: {} }])).rejects.toMatchObject({
      status: 500,
      message: expect.stringContaining('is not a valid CloudEvent'),
    })
  })

  it('exports NDJSON whose every line parses with the cloudevents SDK', async () => {
    const out = join(temp.dir, 'events.ndjson')
    const result = await exportEvents(database, { out })
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n')
    expect(result).toEqual({ path: out, events: lines.length })
    expect(lines.length).toBeGreaterThanOrEqual(3)
    for (const line of lines) {
      const event = new CloudEvent(JSON.parse(line) as Record<string, unknown>)
      expect(event.validate()).toBe(true)
      const received = HTTP.toEvent({
        headers: { 'content-type': 'application/cloudevents+json' },
        body: line,
      })
      expect((received as CloudEvent<unknown>).type).toBe('ai.vendor.taxonomy.skill.created.v1')
      expect((received as CloudEvent<unknown>).data).toMatchObject({ tenant_name: 'acme' })
    }
    // Written beside the target and renamed: no temporary file stays behind.
    expect(readdirSync(temp.dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('exports only the events at or after --since', async () => {
    const out = join(temp.dir, 'none.ndjson')
    expect(await exportEvents(database, { out, since: '2999-01-01T00:00:00Z' })).toEqual({
      path: out,
      events: 0,
    })
    expect(existsSync(out)).toBe(true)
    expect(readFileSync(out, 'utf8')).toBe('')
  })
})

describe('skillhouse events export', () => {
  const temp = tempDir()
  afterAll(() => temp.cleanup())

  it('prints the outbox as NDJSON on stdout and writes it to --out', async () => {
    const tenant = await createOpenTenant(temp.dir, 'acme')
    tenant.database.close()
    const printed = await runCli(['events', 'export', '--data-dir', temp.dir])
    expect(printed.exitCode).toBe(0)
    const lines = String(printed.stdout).trimEnd().split('\n')
    // A new tenant's default vocabulary announces itself with one taxonomy event.
    expect(lines).toHaveLength(1)
    const event = new CloudEvent(JSON.parse(lines[0] as string) as Record<string, unknown>)
    expect(event.type).toBe('ai.vendor.taxonomy.updated.v1')
    expect(event.source).toBe('http://127.0.0.1:8080/acme/eu/taxonomy/changes')

    const out = join(temp.dir, 'export.ndjson')
    const written = await runCli(['events', 'export', '--data-dir', temp.dir, '--out', out, '--json'])
    expect(written.exitCode).toBe(0)
    expect(JSON.parse(String(written.stdout))).toEqual({ path: out, events: 1 })
    expect(readFileSync(out, 'utf8')).toBe(`${lines[0]}\n`)

    const bad = await runCli(['events', 'export', '--data-dir', temp.dir, '--since', 'last week'])
    expect(bad.exitCode).toBe(2)
    expect(String(bad.stderr)).toContain('since')
  })
})
