import { rmSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

/**
 * Runs Prism's CLI in this process, tied to the process that started it: `startPrism` keeps the
 * write end of this process's stdin, so when that process is gone (stopped, crashed, `kill -9`)
 * stdin ends, and this process removes Prism's temporary folder and exits. Prism itself runs
 * here, so the pid its starter holds is Prism's own.
 *
 *     node prism-watchdog.js FOLDER PRISM_SCRIPT PRISM_ARGS…
 */

const [folder, script, ...args] = process.argv.slice(2)
if (!folder || !script) {
  process.stderr.write('usage: prism-watchdog FOLDER PRISM_SCRIPT ARGS…\n')
  process.exit(2)
}
const removeFolder = () => rmSync(folder, { recursive: true, force: true })
const parentGone = () => {
  removeFolder()
  process.exit(0)
}
process.stdin.on('end', parentGone)
process.stdin.on('error', parentGone)
process.stdin.resume()
process.on('exit', removeFolder)
// Stopped by a signal (its starter stopping it, or execa's cleanup as the starter exits): the
// folder goes first, then the signal ends the process as it would have.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => {
    removeFolder()
    process.kill(process.pid, signal)
  })
}
// Prism's CLI reads its arguments from process.argv, as if it had been started itself.
process.argv = [process.argv[0] as string, script, ...args]
await import(pathToFileURL(script).href)
