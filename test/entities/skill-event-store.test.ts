import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeSkillEvent, storeSkillEvents } from '../../src/entities/skill-event-store.js'
import { SkillhouseError } from '../../src/errors/skillhouse-error.js'
import type { OpenTenant } from '../../src/tenants/tenant-service.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'

const temp = tempDir()
let tenant: OpenTenant

beforeAll(async () => {
  tenant = await createOpenTenant(join(temp.dir, 'data'))
  await tenant.database.run(
    `INSERT INTO employees (external_id, doc, doc_hash, updated_at, change_seq)
     VALUES ('emp-1', '{"external_id":"emp-1"}', 'h', now(), nextval('change_seq'))`,
  )
}, 60_000)
afterAll(() => {
  tenant.database.close()
  temp.cleanup()
})

const goal = (id: string, title = 'Learn SQL') => ({
  external_id: id,
  event_type: 'goal',
  timestamp: '2024-05-01',
  content: { title },
  source: 'hr',
})

const answer = (outcome: unknown) =>
  outcome instanceof SkillhouseError
    ? { status: outcome.status, descriptions: outcome.descriptions }
    : outcome

describe('storing skill events of the API (4.2)', () => {
  it('stores an event once; the same external_id again is a 409 that says whether the content differs', async () => {
    expect(await storeSkillEvent(tenant, 'emp-1', goal('ev-1'), {})).toEqual({
      external_id: 'ev-1',
      stored: true,
    })
    const outcomes = await storeSkillEvents(tenant, [
      { employeeId: 'emp-1', body: goal('ev-1'), query: {} },
      { employeeId: 'emp-1', body: goal('ev-1', 'Learn Python'), query: {} },
      { employeeId: 'emp-9', body: goal('ev-2'), query: {} },
      { employeeId: 'emp-1', body: { ...goal('ev-3'), employee_id: 'emp-1' }, query: {} },
      { employeeId: 'emp-1', body: goal('ev-4'), query: { strict: 'maybe' } },
    ])
    expect(outcomes.map(answer)).toEqual([
      {
        status: 409,
        descriptions: [
          "skill event 'ev-1' already exists with the same content; it is stored, nothing changed",
        ],
      },
      {
        status: 409,
        descriptions: [
          "skill event 'ev-1' already exists with different content; a skill event cannot be changed, send a new one with its own external_id",
        ],
      },
      {
        status: 404,
        descriptions: ["employee 'emp-9' does not exist; create the employee with POST /employees first"],
      },
      expect.objectContaining({ status: 400 }),
      expect.objectContaining({ status: 422 }),
    ])
    const stored = await tenant.database.all<{ external_id: string }>('SELECT external_id FROM skill_events')
    expect(stored.map((row) => row.external_id)).toEqual(['ev-1'])
  })
})
