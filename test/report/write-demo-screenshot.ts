import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { projectRoot } from '../../src/util/project-paths.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { openReport } from './report-browser.js'
import { demoReport } from './report-tenant.js'

/**
 * Makes `docs/images/report-demo.png`: the demo tenant's report as the browser test opens it
 * (`report-browser.ts`), its top (header, overview and organisation heatmap) photographed.
 * Run: `npm run build && node dist/test/report/write-demo-screenshot.js`.
 */
const temp = tempDir('skillhouse-report-shot-')
try {
  const made = await demoReport(temp.dir, ['--locale', 'en-GB'])
  const opened = await openReport(made.html, 1024)
  try {
    const heatmap = await opened.page.$('section[data-section="organisation"]')
    const box = await heatmap?.boundingBox()
    const folder = join(projectRoot(), 'docs', 'images')
    mkdirSync(folder, { recursive: true })
    await opened.page.screenshot({
      path: join(folder, 'report-demo.png'),
      clip: { x: 0, y: 0, width: 1024, height: Math.ceil((box?.y ?? 0) + (box?.height ?? 1200)) },
      captureBeyondViewport: true,
    })
    console.log(`written ${join(folder, 'report-demo.png')}`)
  } finally {
    await opened.close()
  }
} finally {
  temp.cleanup()
}
