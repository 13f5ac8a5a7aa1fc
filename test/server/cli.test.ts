import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deriveProfiles } from '../../src/profiles/derive.js'
import { openTenant } from '../../src/tenants/tenant-service.js'
import { projectRoot } from '../../src/util/project-paths.js'
import { createAnalyticsTenant } from '../analytics/analytics-tenant.js'
import { runCli, tempDir } from '../helpers/temp-tenant.js'
import { call, eventually, startTestServer, tokenFor } from './server-helpers.js'

/** Sources the built CLI of these tests runs, by folder or file. */
const SOURCES = [
  'commands/serve.ts',
  'commands/token.ts',
  'commands/client',
  'commands/gap.ts',
  'commands/org',
  'src/server',
  'src/entities',
  'src/analytics',
]

const outputOf = (source: string) => join(projectRoot(), 'dist', source.replace(/\.ts$/, '.js'))

function filesOf(source: string): string[] {
  const path = join(projectRoot(), source)
  if (!statSync(path).isDirectory()) return [source]
  return readdirSync(path)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(source, name))
}

/**
 * Builds the CLI when its output is missing or older than these sources. `npm test` builds first
 * (pretest), so this compiles only when the file is run on its own.
 */
async function buildWhenStale(): Promise<void> {
  const stale = SOURCES.flatMap(filesOf).some(
    (source) =>
      !existsSync(outputOf(source)) ||
      statSync(outputOf(source)).mtimeMs < statSync(join(projectRoot(), source)).mtimeMs,
  )
  if (stale) await execa('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: projectRoot(), reject: false })
}

const text = async (args: string[]) => {
  const result = await runCli(args)
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) }
}

describe('the CLI and the server give the same JSON', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')

  beforeAll(async () => {
    await buildWhenStale()
    const tenant = await createAnalyticsTenant(dataDir)
    // The worker of a server derives a tenant when it opens it: derived now, it finds nothing to change.
    await deriveProfiles({ tenant })
    tenant.database.close()
  }, 240_000)
  afterAll(() => temp.cleanup())

  it('answers gap and org export with the bytes of `gap --json` and `org export --json`', async () => {
    // The CLI first: while the server holds the tenant, a batch command may not open it.
    const common = ['--data-dir', dataDir, '--tenant', 'acme', '--json']
    const gap = await text([
      'gap',
      '--employee',
      'e-deep-1',
      '--vacancy',
      'vac-1',
      '--vocab-language',
      'nl',
      ...common,
    ])
    const tree = await text(['org', 'export', '--low-data', ...common])
    const python = await text(['org', 'export', '--skill-id', 'skl-java', ...common])
    for (const result of [gap, tree, python]) expect(result.exitCode, result.stderr).toBe(0)

    const server = await startTestServer(dataDir)
    try {
      const token = await tokenFor(dataDir, 'acme')
      const base = `${server.url}/acme/eu`
      const httpGap = await call(`${base}/employees/e-deep-1/vacancies/vac-1/gap?vocab_language=nl`, {
        token,
      })
      const httpTree = await call(`${base}/organisational_units/export?include=low_data_availability_flag`, {
        token,
      })
      const httpPython = await call(`${base}/organisational_units/export?skill_id=skl-java`, { token })
      expect(httpTree.text).toBe(tree.stdout)
      expect(httpPython.text).toBe(python.stdout)
      // oclif indents the --json of a returned result by 2: the same JSON, the same order of keys.
      expect(JSON.parse(httpGap.text)).not.toEqual([])
      expect(gap.stdout).toBe(JSON.stringify(JSON.parse(httpGap.text), null, 2))
      expect(httpGap.text).toBe(JSON.stringify(JSON.parse(gap.stdout)))
    } finally {
      await server.close()
    }
  })
})

describe('skillhouse serve, token and client', () => {
  const temp = tempDir()
  const dataDir = join(temp.dir, 'data')
  let child: ChildProcess
  let url: string
  let stderr = ''

  beforeAll(async () => {
    await buildWhenStale()
    const created = await text([
      'tenant',
      'create',
      'acme',
      '--region',
      'eu',
      '--data-dir',
      dataDir,
      '--json',
    ])
    expect(created.exitCode, created.stderr).toBe(0)
    child = spawn(
      process.execPath,
      [join(projectRoot(), 'bin', 'run.js'), 'serve', '--port', '0', '--data-dir', dataDir],
      {
        cwd: projectRoot(),
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    child.stderr?.on('data', (chunk) => {
      stderr += chunk.toString()
    })
    url = await new Promise<string>((resolve, reject) => {
      let out = ''
      child.stdout?.on('data', (chunk) => {
        out += chunk.toString()
        const match = /skillhouse serving on (http:\/\/\S+)/.exec(out)
        if (match?.[1]) resolve(match[1])
      })
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)))
    })
  }, 240_000)
  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL')
    temp.cleanup()
  })

  it('prints the listen address and serves /healthz, logging JSON lines on stderr', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await call(`${url}/healthz`)).status).toBe(200)
    // The lines of a turn of the event loop are written at its end: the answer may arrive first.
    const lines = await eventually(async () => {
      const parsed = stderr
        .split('\n')
        .filter((line) => line.endsWith('}'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      return parsed.some((line) => line.msg === 'request') ? parsed : undefined
    })
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', method: 'GET', path: '/healthz', status: 200 }),
    )
  })

  it('accepts a token of `skillhouse token`, and the tokens of a client made by `client create` until `client revoke`', async () => {
    const minted = await text(['token', '--tenant', 'acme', '--scope', 'read', '--data-dir', dataDir])
    expect(minted.exitCode, minted.stderr).toBe(0)
    expect(
      (await call(`${url}/acme/eu/taxonomy/skills/languages`, { token: minted.stdout.trim() })).status,
    ).toBe(200)

    const created = await text(['client', 'create', '--tenant', 'acme', '--data-dir', dataDir, '--json'])
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string }
    const listed = JSON.parse(
      (await text(['client', 'list', '--data-dir', dataDir, '--json'])).stdout,
    ) as Record<string, unknown>[]
    const entry = listed.find((candidate) => candidate.client_id === client.client_id)
    expect(entry).toMatchObject({ tenant: 'acme', scopes: ['read', 'write'], revoked_at: null })
    expect(JSON.stringify(listed)).not.toContain(client.client_secret)
    const request = () =>
      call(`${url}/oauth/token`, {
        method: 'POST',
        body: {
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
        },
      })
    expect((await request()).status).toBe(200)
    expect((await text(['client', 'revoke', client.client_id, '--data-dir', dataDir])).exitCode).toBe(0)
    expect((await request()).status).toBe(401)
  })

  it('hands a batch command on a tenant the server holds to the server', async () => {
    const token = await tokenFor(dataDir, 'acme')
    expect((await call(`${url}/acme/eu/employees`, { token })).status).toBe(200)
    const derive = await text(['derive', '--tenant', 'acme', '--data-dir', dataDir])
    expect(derive.exitCode, derive.stderr).toBe(0)
    expect(derive.stdout).toMatch(/^vendor_default: recomputed /)
    expect((await call(`${url}/acme/eu/employees`, { token })).status).toBe(200)
  })

  it('finishes the request in flight on SIGTERM, then exits 0 having closed the database', async () => {
    const token = await tokenFor(dataDir, 'acme')
    const { port } = new URL(url)
    const body = JSON.stringify({ external_id: 'co-late', name: 'Late NV', vat: 'BE1' })
    const socket = connect(Number(port), '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    let answer = ''
    socket.on('data', (chunk) => {
      answer += chunk.toString()
    })
    socket.write(
      `POST /acme/eu/companies HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 300))
    socket.write(body.slice(10))
    expect(await exited).toBe(0)
    expect(answer).toMatch(/^HTTP\/1\.1 204 /)
    expect(stderr).toContain('"msg":"stopped"')
    const tenant = await openTenant(dataDir, 'acme')
    try {
      expect(await tenant.database.all('SELECT external_id FROM companies')).toEqual([
        { external_id: 'co-late' },
      ])
    } finally {
      tenant.database.close()
    }
  })
})
