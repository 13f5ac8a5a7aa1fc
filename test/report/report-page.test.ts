import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPORT_SECTIONS } from '../../src/report/render-html.js'
import { tempDir } from '../helpers/temp-tenant.js'
import { type OpenedReport, openReport, screenshotSection } from './report-browser.js'
import { demoReport } from './report-tenant.js'

/**
 * The demo report looked at as a person would: report.html opened from disk in headless
 * Chromium. Each section and its chart must be there and visible, the page must ask for nothing
 * beyond its own file and log no error; each section is photographed into the test's folder.
 */
describe('skillhouse report: report.html in a browser', () => {
  const temp = tempDir('skillhouse-report-page-')
  let opened: OpenedReport
  let html: string

  beforeAll(async () => {
    const made = await demoReport(temp.dir, ['--locale', 'nl-BE', '--vocab-language', 'nl'])
    html = made.html
    opened = await openReport(html)
  })
  afterAll(async () => {
    await opened?.close()
    temp.cleanup()
  })

  it('shows every section with a visible chart', async () => {
    for (const [id, title] of REPORT_SECTIONS) {
      const section = await opened.page.$(`section[data-section="${id}"]`)
      expect(section, id).not.toBeNull()
      expect(await section?.isVisible()).toBe(true)
      expect(await opened.page.$eval(`section[data-section="${id}"] h2`, (node) => node.textContent)).toBe(
        title,
      )
      const chart = await opened.page.$(`figure[data-chart="${id}"] svg`)
      expect(chart, `chart of ${id}`).not.toBeNull()
      expect(await chart?.isVisible()).toBe(true)
      const box = await chart?.boundingBox()
      expect(box?.width ?? 0).toBeGreaterThan(100)
      expect(box?.height ?? 0).toBeGreaterThan(40)
      // A chart with marks, not an empty frame.
      expect(
        await opened.page.$$eval(
          `figure[data-chart="${id}"] svg path, figure[data-chart="${id}"] svg rect`,
          (nodes) => nodes.length,
        ),
      ).toBeGreaterThan(2)
    }
  })

  it('makes no network request and logs no error', () => {
    expect(opened.requests).toEqual([`file://${html}`])
    expect(opened.errors).toEqual([])
  })

  it('writes numbers in the chosen locale and skill names in the chosen vocabulary language', async () => {
    const text = await opened.page.$eval('body', (body) => body.innerText)
    // nl-BE groups thousands with a dot and writes long dates in Dutch.
    expect(text).toMatch(/3\.\d{3}/)
    expect(text).toMatch(
      /\d{1,2} (januari|februari|maart|april|mei|juni|juli|augustus|september|oktober|november|december) \d{4}/,
    )
    // Skill names from the Dutch labels of the vocabulary (the report's own words stay English).
    expect(text).toContain('Magazijnbeheer')
  })

  it('saves a screenshot of each section', async () => {
    for (const [id] of REPORT_SECTIONS) {
      const path = join(temp.dir, `section-${id}.png`)
      await screenshotSection(opened.page, id, path)
      expect(existsSync(path)).toBe(true)
      expect(statSync(path).size).toBeGreaterThan(5_000)
    }
  })
})
