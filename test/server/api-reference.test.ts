import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { servedDocument } from '../../src/openapi/api-reference.js'
import { openApiDocument } from '../../src/openapi/openapi-document.js'
import type { RunningServer } from '../../src/server/start-server.js'
import { createOpenTenant, tempDir } from '../helpers/temp-tenant.js'
import { openPage } from '../report/report-browser.js'
import { call, startTestServer, tokenFor } from './server-helpers.js'

describe('the API reference and the request checks of serve', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let server: RunningServer
  let token: string
  beforeAll(async () => {
    ;(await createOpenTenant(dataDir, 'acme')).database.close()
    token = await tokenFor(dataDir, 'acme')
    server = await startTestServer(dataDir)
  })
  afterAll(async () => {
    await server.close()
    temp.cleanup()
  })

  it('answers the OpenAPI document at /openapi.json, its servers relative to the host that answered', async () => {
    const response = await fetch(`${server.url}/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    const document = (await response.json()) as { servers: { url: string }[]; paths: object }
    expect(document).toEqual(JSON.parse(JSON.stringify(servedDocument(openApiDocument()))))
    expect(document.servers.map((entry) => entry.url)).toEqual(['/{tenant}/{region}'])
  })

  it('leads / and a base URL without a path to the page at /docs, without a token', async () => {
    for (const path of ['/', '/acme/eu', '/nobody/eu']) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual' })
      expect(response.status, path).toBe(302)
      expect(response.headers.get('location')).toBe('/docs')
    }
    // Not a region: no base URL, so the token check comes first, as for every path below one.
    expect((await fetch(`${server.url}/acme/nowhere`)).status).toBe(401)
  })

  it('draws the reference in Chromium from its own files only, with every operation of the document', async () => {
    const opened = await openPage(`${server.url}/docs`)
    try {
      await opened.page.waitForSelector('.opblock', { timeout: 30_000 })
      const operations = await opened.page.$$eval('.opblock', (blocks) => blocks.length)
      const document = openApiDocument()
      const documented =
        Object.values(document.paths ?? {}).flatMap((item) =>
          ['get', 'post', 'patch', 'delete', 'put'].filter((method) => method in (item as object)),
        ).length + Object.keys(document.webhooks ?? {}).length
      expect(operations).toBe(documented)
      const title = await opened.page.$eval('.title', (element) => element.textContent ?? '')
      expect(title).toContain('Skills Service API')
      const elsewhere = opened.requests.filter(
        (url) => !url.startsWith(server.url) && !url.startsWith('data:'),
      )
      expect(elsewhere).toEqual([])
      expect(opened.errors).toEqual([])
    } finally {
      await opened.close()
    }
  })

  it('refuses a query parameter the endpoint does not have, naming it and the ones it has', async () => {
    const base = `${server.url}/acme/eu`
    const matching = await call(`${base}/job_architecture/export/jobs/matching_employees?limit=2`, {
      method: 'POST',
      token,
      body: { filters: [], weights: [{ weight: 'skills_match', value: 1 }] },
    })
    expect(matching.status).toBe(422)
    expect(matching.json).toEqual([
      {
        title: '422 Unprocessable entity',
        description:
          'query parameter limit: is not a parameter of this endpoint (its parameters are response_format, external_vendor, vocab_language); limit is a field of the request body',
      },
    ])
    const typo = await call(`${base}/employees?limt=2`, { token })
    expect(typo.status).toBe(422)
    expect(JSON.stringify(typo.json)).toMatch(/query parameter limt: is not a parameter of this endpoint/)
    expect((await call(`${base}/employees?limit=2`, { token })).status).toBe(200)
  })

  it('answers 4.10 without filters and weights with the 400 naming both, as the spec makes them required', async () => {
    const answer = await call(`${server.url}/acme/eu/job_architecture/export/jobs/matching_employees`, {
      method: 'POST',
      token,
      body: {},
    })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual([
      { title: '400 Bad Request', description: 'filters: is required (array)' },
      { title: '400 Bad Request', description: 'weights: is required (array)' },
    ])
  })
})
