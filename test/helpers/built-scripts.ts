import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { projectRoot } from '../../src/util/project-paths.js'

/**
 * A worker script as `npm run build` compiles it (`npm test` builds first): the worker pools'
 * scripts under vitest, which runs the TypeScript sources (a worker thread loads JavaScript
 * only). `module` is the path under src/ without its suffix: `matching/job-match-worker`.
 */
export function builtWorkerScript(module: string): URL {
  return pathToFileURL(join(projectRoot(), 'dist', 'src', `${module}.js`))
}
