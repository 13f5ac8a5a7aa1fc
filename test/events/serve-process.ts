import { join } from 'node:path'
import { execa } from 'execa'
import { projectRoot } from '../../src/util/project-paths.js'

/**
 * `skillhouse serve --port 0 --json` through the built CLI, as a user starts it, with `flags`;
 * resolves with the process, its address and its log lines (stderr) so far.
 */
export async function startServe(dataDir: string, flags: string[] = []) {
  const process = execa(
    'node',
    [join(projectRoot(), 'bin', 'run.js'), 'serve', '--port', '0', '--json', '--data-dir', dataDir, ...flags],
    // A graceful stop waits for a running derivation: no SIGKILL after a delay.
    { cwd: projectRoot(), env: { NO_COLOR: '1' }, reject: false, forceKillAfterDelay: false },
  )
  const log = { text: '' }
  process.stderr?.on('data', (chunk: Buffer) => {
    log.text += chunk.toString()
  })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    process.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n')[0]
      if (out.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url)
    })
    void process.then((result) => reject(new Error(`serve exited with ${result.exitCode}: ${result.stderr}`)))
  })
  return { process, url, log }
}
