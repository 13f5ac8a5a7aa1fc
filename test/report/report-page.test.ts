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

  // The heatmap was 1,604 px wide: it scrolled sideways on a 1024 px screen and printed on A4
  // shrunk to labels of 5 to 7 px.
  it('fits every chart on a 1024 px screen, and prints each on A4 landscape at its own size', async () => {
    const { page } = opened
    const charts = () =>
      page.$$eval('figure.chart', (figures) =>
        figures.map((figure) => {
          const svg = figure.querySelector('svg') as unknown as {
            width: { baseVal: { value: number } }
            getBoundingClientRect(): { width: number }
          }
          return {
            chart: figure.getAttribute('data-chart'),
            scrolls: figure.scrollWidth > figure.clientWidth,
            scale: svg.getBoundingClientRect().width / svg.width.baseVal.value,
          }
        }),
      )
    try {
      await page.setViewport({ width: 1024, height: 800 })
      expect((await charts()).filter((chart) => chart.scrolls)).toEqual([])
      // A4 landscape less the page's 12 mm margins, at 96 px an inch: 273 mm.
      await page.emulateMediaType('print')
      await page.setViewport({ width: Math.floor((273 / 25.4) * 96), height: 800 })
      for (const chart of await charts()) expect(chart.scale, String(chart.chart)).toBeGreaterThan(0.99)
    } finally {
      await page.emulateMediaType('screen')
      await page.setViewport({ width: 1400, height: 1000 })
    }
  })

  // A name longer than its axis's room was cut with … and nothing to read it whole by.
  it('gives every label cut short its whole text as a title', async () => {
    const cut = await opened.page.$$eval('svg text', (texts) =>
      texts
        .filter((text) => (text.lastChild?.textContent ?? '').endsWith('…'))
        .map((text) => ({
          shown: (text.lastChild?.textContent ?? '').slice(0, -1),
          title: text.querySelector('title')?.textContent ?? null,
        })),
    )
    expect(cut.length).toBeGreaterThan(0)
    for (const label of cut) {
      expect(label.title, label.shown).not.toBeNull()
      expect(label.title?.startsWith(label.shown), label.shown).toBe(true)
    }
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
