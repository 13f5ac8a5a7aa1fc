import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRoutes } from '../../src/api/api-routes.js'
import { readEvents, typedEventSource } from '../../src/events/outbox.js'
import { CLOUD_EVENT_TYPES, type CloudEventType } from '../../src/schemas/index.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { call, eventually, startTestServer, tokenFor, workingHistory } from './server-helpers.js'

/** The route (method and hono path) below a base URL that answers `path`, if any. */
function routeOf(path: string): { method: string; path: string } | undefined {
  return apiRoutes().find((route) => new RegExp(`^${route.path.replace(/:[a-z_]+/g, '[^/]+')}$`).test(path))
}

describe('the sources of CloudEvents', () => {
  it('name an endpoint of the API for every event type', () => {
    for (const type of Object.keys(CLOUD_EVENT_TYPES) as CloudEventType[]) {
      const source = typedEventSource('http://x/acme/eu', type, 'id-1')
      expect(routeOf(new URL(source).pathname.replace('/acme/eu', '')), `${type}: ${source}`).toBeDefined()
    }
  })

  describe('on a server', () => {
    const temp = tempDir()
    const dataDir = join(temp.dir, 'data')
    let token: string
    const servers: RunningServer[] = []
    beforeAll(async () => {
      // Created with the default origin, http://127.0.0.1:8080: the servers below listen elsewhere.
      ;(await createOpenTenant(dataDir, 'acme')).database.close()
      token = await tokenFor(dataDir, 'acme')
    })
    afterAll(async () => {
      for (const server of servers) await server.close()
      temp.cleanup()
    })
    const outbox = (server: RunningServer) =>
      server.app.pool.use('acme', (tenant) => readEvents(tenant.database))

    it('follow `origin`, and each one answers there: the skill with GET, the change with POST /taxonomy/changes', async () => {
      const server = await startTestServer(dataDir, { origin: 'https://skills.example.com/' })
      servers.push(server)
      const base = `${server.url}/acme/eu`
      expect(
        (
          await call(`${base}/taxonomy/skills`, {
            method: 'POST',
            token,
            body: { external_id: 'sk-kite', skill_name: 'Kitesurfing', skill_cluster_id: 'cl-none' },
          })
        ).status,
      ).toBe(404)
      const cluster = (
        (await call(`${base}/taxonomy/skill_clusters?limit=1`, { token })).json as {
          records: { external_id: string }[]
        }
      ).records[0]?.external_id
      const created = await call(`${base}/taxonomy/skills`, {
        method: 'POST',
        token,
        body: { external_id: 'sk-kite', skill_name: 'Kitesurfing', skill_cluster_id: cluster },
      })
      expect(created.status, created.text).toBe(204)
      const events = (await outbox(server)).filter((event) => event.source.includes('https://'))
      const skill = events.find((event) => event.type === 'ai.vendor.taxonomy.skill.created.v1')
      const taxonomy = events.find((event) => event.type === 'ai.vendor.taxonomy.updated.v1')
      expect(skill?.source).toBe('https://skills.example.com/acme/eu/taxonomy/skills/sk-kite')
      expect(taxonomy?.source).toBe('https://skills.example.com/acme/eu/taxonomy/changes')
      // Resolved on this server: the path of each source below the server's own origin.
      const at = (source: string | undefined) => `${server.url}${new URL(source ?? '').pathname}`
      const fetched = await call(at(skill?.source), { token })
      expect(fetched.status, fetched.text).toBe(200)
      expect(fetched.json).toMatchObject({ external_id: 'sk-kite' })
      const change = (taxonomy?.data as { external_id?: string } | undefined)?.external_id
      const changes = await call(at(taxonomy?.source), {
        method: 'POST',
        token,
        body: { external_id: change },
      })
      expect(changes.status, changes.text).toBe(200)
      expect(changes.json).toMatchObject({
        records: [{ external_id: change, operation_type: 'skill_created' }],
      })
      await server.close()
    })

    it('follow the origin the request reached without `origin`, for the events of the request and of the background derivation', async () => {
      const server = await startTestServer(dataDir)
      servers.push(server)
      // The same server reached by another name than the one it printed.
      const origin = server.url.replace('127.0.0.1', 'localhost')
      const base = `${origin}/acme/eu`
      expect(
        (await call(`${base}/employees`, { method: 'POST', token, body: { external_id: 'e-1' } })).status,
      ).toBe(204)
      const event = workingHistory('evt-1', 'Built Python services and tuned SQL queries.')
      expect(
        (await call(`${base}/employees/e-1/skill_events`, { method: 'POST', token, body: event })).status,
      ).toBe(204)
      const updated = await eventually(async () =>
        (await outbox(server)).find((entry) => entry.type === 'ai.vendor.employee.skill_profile.updated.v1'),
      )
      expect(updated.source).toBe(`${base}/employees/e-1/skill_profile`)
      await server.close()
    })

    it('refuses an origin that is not one, naming it', async () => {
      await expect(
        startTestServer(dataDir, { origin: 'https://skills.example.com/api' }),
      ).rejects.toMatchObject({
        status: 400,
        descriptions: [expect.stringMatching(/^origin: must be an origin/)],
      })
    })
  })
})
