import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { execa } from 'execa'
import { afterAll, describe, expect, it } from 'vitest'
import { projectRoot } from '../../src/util/project-paths.js'
import { freePort } from '../helpers/ports.js'
import { tempDir } from '../helpers/temp-tenant.js'

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function gone(pid: number): Promise<void> {
  while (alive(pid)) await new Promise((resolve) => setTimeout(resolve, 50))
}

/** Prism's temporary folders in `directory`. */
const prismFolders = (directory: string) =>
  readdirSync(directory).filter((name) => name.startsWith('skillhouse-prism-'))

describe('skillhouse mock and its Prism', () => {
  // The mock's temporary folders go here (TMPDIR), apart from those of any other run.
  const temp = tempDir('skillhouse-mock-tmp-')
  afterAll(() => temp.cleanup())

  /** `skillhouse mock --json` in a process group of its own; resolves once it listens. */
  async function startMock() {
    const port = await freePort()
    const child = execa(
      'node',
      [join(projectRoot(), 'bin', 'run.js'), 'mock', '--port', String(port), '--json'],
      {
        reject: false,
        cwd: projectRoot(),
        env: { NO_COLOR: '1', TMPDIR: temp.dir },
        detached: true,
        cleanup: false,
      },
    )
    const started = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
      let seen = ''
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString('utf8')
        const line = seen.split('\n').find((text) => text.startsWith('{'))
        if (line) resolve(JSON.parse(line) as { url: string; pid: number })
      })
      void child.then((result) =>
        reject(new Error(`the mock exited early: ${String(result.stderr).slice(-2000)}`)),
      )
    })
    return { child, port, prism: started.pid, url: started.url }
  }

  it('ends Prism and removes its temporary folder when the mock is killed with SIGKILL', async () => {
    const mock = await startMock()
    expect(mock.prism).not.toBe(mock.child.pid)
    expect(alive(mock.prism)).toBe(true)
    expect((await fetch(`${mock.url}/healthz`)).status).toBe(200)
    expect(prismFolders(temp.dir)).toHaveLength(1)
    process.kill(mock.child.pid as number, 'SIGKILL')
    await mock.child
    await gone(mock.prism)
    expect(prismFolders(temp.dir)).toEqual([])
  })

  it('removes, on its next start, the folder of a mock killed together with its Prism', async () => {
    const first = await startMock()
    const [left] = prismFolders(temp.dir)
    // The whole process group at once: neither the mock nor Prism gets to clean up.
    process.kill(-(first.child.pid as number), 'SIGKILL')
    await first.child
    await gone(first.prism)
    expect(left && existsSync(join(temp.dir, left))).toBe(true)

    const second = await startMock()
    const folders = prismFolders(temp.dir)
    expect(folders).toHaveLength(1)
    expect(folders).not.toContain(left)
    second.child.kill('SIGTERM')
    const result = await second.child
    expect(result.exitCode, String(result.stderr).slice(-2000)).toBe(0)
    await gone(second.prism)
    expect(prismFolders(temp.dir)).toEqual([])
  })
})
